/**
 * `planTidy` never merges two notes of the same words that state different facts (issue 35): the
 * distinct pairs of `tests/fixtures/dedupe_own_pairs.jsonl`, each of which changes one fact (a
 * date, a number, a name, a negation, a version, an order, a qualifier, an added word) while
 * keeping most words, in English and a few other languages. Such a pair may be listed for
 * review; a review is never applied.
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { type Note, openMemo, planTidy, tidyMerges } from "./mod.ts";

interface Pair {
  a: string;
  b: string;
  label: "duplicate" | "distinct";
  kind: string;
}

const pairs: Pair[] = (await readFile(
  new URL("../tests/fixtures/dedupe_own_pairs.jsonl", import.meta.url),
  "utf8",
)).trim().split("\n").map((line) => JSON.parse(line));

const note = (id: string, text: string, created: string): Note => ({
  id,
  title: text,
  body: text,
  labels: [],
  hash: id,
  created,
  updated: created,
});

const now = new Date("2026-02-01T00:00:00Z");

Deno.test("planTidy merges no pair of the same words that states another fact", () => {
  const distinct = pairs.filter((p) => p.label === "distinct");
  assert.ok(distinct.length >= 60, `only ${distinct.length} distinct pairs`);
  const kinds = new Set(distinct.map((p) => p.kind));
  for (const k of ["date", "number", "name", "negation", "version", "order", "qualifier"]) {
    assert.ok(kinds.has(k), `no pair changes a ${k}`);
  }
  // Each pair alone, and all of them in one plan (where a note could join another pair's).
  for (const [i, p] of distinct.entries()) {
    const plan = planTidy([
      note(`a${i}`, p.a, "2026-01-01T00:00:00.000Z"),
      note(`b${i}`, p.b, "2026-01-02T00:00:00.000Z"),
    ], { now });
    assert.deepEqual(tidyMerges(plan), [], `merged: ${p.a} | ${p.b}`);
  }
  const all = planTidy(
    distinct.flatMap((p, i) => [
      note(`a${i}`, p.a, "2026-01-01T00:00:00.000Z"),
      note(`b${i}`, p.b, "2026-01-02T00:00:00.000Z"),
    ]),
    { now },
  );
  assert.deepEqual(tidyMerges(all), []);
  // Most are listed for review, each with what they differ in.
  const reviewed = (all.review ?? []).filter((r) =>
    r.notes[0].id.slice(1) === r.notes[1].id.slice(1)
  );
  assert.ok(reviewed.length >= distinct.length / 2, `only ${reviewed.length} reviewed`);
  for (const r of reviewed) assert.ok(r.differ.length > 0);
});

Deno.test("planTidy still merges the duplicates of those pairs that only reword", () => {
  const duplicates = pairs.filter((p) => p.label === "duplicate");
  const plan = planTidy(
    duplicates.flatMap((p, i) => [
      note(`a${i}`, p.a, "2026-01-01T00:00:00.000Z"),
      note(`b${i}`, p.b, "2026-01-02T00:00:00.000Z"),
    ]),
    { now },
  );
  const merged = tidyMerges(plan);
  for (const m of merged) assert.deepEqual(m.supersede.map((id) => id.slice(1)), [m.keep.slice(1)]);
  assert.ok(merged.length >= duplicates.length * 0.4, `${merged.length} of ${duplicates.length}`);
});

Deno.test("Memo.applyTidy never applies a review: two notes that differ in a number stay", async () => {
  const rootDir = await Deno.makeTempDir();
  const memo = await openMemo({ rootDir, localEmbeddings: false });
  try {
    const a = (await memo.remember({ text: "Log retention in Datadog is 15 days." })).note;
    const b = (await memo.remember({ text: "Log retention in Datadog is 30 days." })).note;
    const plan = await memo.tidy();
    assert.deepEqual(plan.proposals, []);
    assert.deepEqual(plan.review?.map((r) => [r.notes.map((n) => n.id).sort(), r.differ]), [
      [[a.id, b.id].sort(), ["number"]],
    ]);
    const result = await memo.applyTidy(plan);
    assert.deepEqual([result.merged, result.superseded], [0, []]);
    assert.equal((await memo.list()).total, 2);
  } finally {
    await memo.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("planTidy: 'and' against 'or' is another fact, listed for review", () => {
  const plan = planTidy([
    note("a1", "Deploys need approval from QA and security.", "2026-01-01T00:00:00.000Z"),
    note("b1", "Deploys need approval from QA or security.", "2026-01-02T00:00:00.000Z"),
  ], { now });
  assert.deepEqual(tidyMerges(plan), []);
  assert.deepEqual(plan.review?.map((r) => r.differ), [["qualifier"]]);
});

Deno.test("planTidy never merges notes valid over different times", () => {
  const text = "Canary deploys hold at 5% of traffic for 30 minutes.";
  const expired = { ...note("a1", `Heads up: ${text}`, "2026-01-02T00:00:00.000Z") };
  expired.validUntil = "2026-01-15T00:00:00.000Z";
  const plan = planTidy([note("b1", text, "2026-01-01T00:00:00.000Z"), expired], { now });
  assert.deepEqual(tidyMerges(plan), []);
  assert.deepEqual(plan.proposals.map((p) => p.kind), ["expired"]);
  // The same window on both: a merge as before.
  const later = { ...note("b1", text, "2026-01-01T00:00:00.000Z"), validUntil: expired.validUntil };
  assert.equal(tidyMerges(planTidy([later, expired], { now })).length, 1);
});

Deno.test("Memo.applyTidy: the kept note takes the labels of the notes it supersedes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-tidy-labels-" });
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
  try {
    const text = "Canary deploys hold at 5% of traffic for 30 minutes.";
    await memo.remember({ text, labels: ["security", "ops"] });
    const { note: keep } = await memo.remember({ text: `Heads up: ${text}`, labels: ["ops"] });
    const plan = await memo.tidy();
    assert.equal(tidyMerges(plan).length, 1);
    await memo.applyTidy(plan);
    const kept = await memo.get(keep.id);
    assert.deepEqual(kept?.labels, ["ops", "security"]);
    const found = await memo.recall("canary", { labels: ["security"] });
    assert.deepEqual(found.map((h) => h.note.id), [keep.id]);
  } finally {
    await memo.close();
    await Deno.remove(dir, { recursive: true });
  }
});
