/**
 * Notes that stay true (issue 23), in the memory package: the marker keys and their round trip,
 * hand edits, refused chains that leave notes.md byte for byte, the filters and both clocks,
 * normalised duplicates, changes that count as changes, and tidy plans applied or refused.
 */

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Memo, openMemo } from "./memo.ts";
import type { MemoChange } from "./memo_types.ts";
import { memoPaths } from "./store/paths.ts";
import { serializeNote } from "./store/codec.ts";
import { parseNotes } from "./store/parse.ts";
import { contentHash, type Note } from "./notes/note.ts";

async function withMemo(fn: (memo: Memo, notesPath: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "memo-history-"));
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false, indexCache: false });
  try {
    await fn(memo, memoPaths(dir).notes);
  } finally {
    await memo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

Deno.test("codec: history keys follow updated, round-trip, and a note without them is unchanged", () => {
  const note: Note = {
    id: "a2",
    title: "Deploys run on Mondays",
    body: "Deploys run on Mondays",
    labels: ["ops"],
    hash: "",
    created: "2026-03-01T00:00:00.000Z",
    updated: "2026-03-01T00:00:00.000Z",
    supersedes: ["a1"],
    validFrom: "2026-03-02",
    validUntil: "2027-01-01T00:00:00.000Z",
    supersededBy: ["a3"], // derived: never written
  };
  note.hash = contentHash(note);
  const raw = serializeNote(note);
  const marker = JSON.parse(raw.slice("<!-- memo:note ".length, raw.indexOf(" -->")));
  assert.deepEqual(Object.keys(marker), [
    "id",
    "hash",
    "labels",
    "created",
    "updated",
    "supersedes",
    "validFrom",
    "validUntil",
  ]);
  const { supersededBy: _derived, ...stored } = note;
  assert.deepEqual(parseNotes(raw).sections[0].note, stored);
  // An older note's hash and section are what they always were.
  const old = { ...stored, supersedes: undefined, validFrom: undefined, validUntil: undefined };
  delete old.supersedes, delete old.validFrom, delete old.validUntil;
  assert.equal(
    contentHash(old),
    contentHash({ title: old.title, body: old.body, labels: ["ops"] }),
  );
  assert.ok(!serializeNote({ ...old, hash: "h" }).includes("supersedes"));
  // A malformed key makes the note damaged, as a malformed label list does.
  const bad = raw.replace('"validFrom":"2026-03-02"', '"validFrom":"March"');
  assert.equal(parseNotes(bad).issues[0].kind, "damaged-note");
});

Deno.test("Memo: a correction supersedes, the chain shows both ways, other notes keep their bytes", async () => {
  await withMemo(async (memo, notesPath) => {
    const { note: other } = await memo.remember({ text: "Lunch is at noon" });
    const { note: old } = await memo.remember({ text: "Deploys run on Fridays", labels: ["ops"] });
    const otherRaw = serializeNote(other);
    const { note: fixed, superseded } = await memo.correct({
      id: old.id,
      text: "Deploys run on Mondays",
      validFrom: "2026-03-02",
    });
    assert.deepEqual(superseded, [old.id]);
    assert.deepEqual([fixed.supersedes, fixed.labels, fixed.validFrom], [
      [old.id],
      ["ops"],
      "2026-03-02",
    ]);
    const ended = await memo.get(old.id);
    assert.deepEqual(ended.supersededBy, [fixed.id]);
    assert.equal(ended.validUntil, "2026-03-02");
    assert.ok(ended.updated > old.updated, "the change bumps updated");
    const text = await readFile(notesPath, "utf8");
    assert.ok(text.includes(otherRaw), "a note the correction did not change keeps its bytes");
    assert.ok(text.includes(`"supersedes":["${old.id}"]`));
    assert.ok(!text.includes("supersededBy"));
    // Recall and list hide the old fact; includeSuperseded brings it back, flagged.
    assert.deepEqual((await memo.recall("deploys run")).map((h) => h.note.id), [fixed.id]);
    const all = await memo.recall("deploys run", { includeSuperseded: true });
    assert.deepEqual(
      all.map((h) => [h.note.id, h.note.supersededBy]).sort(),
      [
        [fixed.id, undefined],
        [old.id, [fixed.id]],
      ].sort(),
    );
    assert.equal((await memo.list()).total, 2);
    assert.equal((await memo.list({ includeSuperseded: true })).total, 3);
  });
});

Deno.test("Memo: asOf reads both clocks, since and until filter on created, a date means 00:00 UTC", async () => {
  await withMemo(async (memo) => {
    const { note: old } = await memo.remember({
      text: "The audit log is kept for 12 months",
      created: "2026-01-10T00:00:00.000Z",
      validFrom: "2026-01-01",
    });
    const { note: fixed } = await memo.remember({
      text: "The audit log is kept for 24 months",
      created: "2026-02-10T00:00:00.000Z",
      supersedes: [old.id],
    });
    const ids = async (options: Parameters<Memo["list"]>[0]) =>
      (await memo.list({ limit: 10, ...options })).notes.map((n) => n.id);
    assert.deepEqual(await ids({ asOf: "2026-01-09" }), [], "nothing recorded yet");
    assert.deepEqual(await ids({ asOf: "2026-01-10" }), [old.id], "00:00 UTC: created at it");
    assert.deepEqual(await ids({ asOf: "2026-02-01T12:00:00+01:00" }), [old.id]);
    assert.deepEqual(await ids({ asOf: "2026-02-10T00:00:00.000Z" }), [fixed.id]);
    assert.deepEqual(await ids({ asOf: "2026-02-10", includeSuperseded: true }), [
      old.id,
      fixed.id,
    ]);
    assert.deepEqual(await ids({ since: "2026-02-01", includeSuperseded: true }), [fixed.id]);
    assert.deepEqual(await ids({ until: "2026-02-10", includeSuperseded: true }), [old.id]);
    // [validFrom, validUntil): not valid before it starts, nor at its end.
    await memo.update(fixed.id, { validFrom: "2026-03-01", validUntil: "2026-04-01" });
    // Before the new fact starts, the one it supersedes still holds.
    assert.deepEqual(await ids({ asOf: "2026-02-28" }), [old.id]);
    assert.deepEqual(await ids({ asOf: "2026-03-01" }), [fixed.id]);
    assert.deepEqual(await ids({ asOf: "2026-04-01" }), []);
    await assert.rejects(memo.list({ asOf: "last week" }), /asOf must be an ISO date/);
    await assert.rejects(
      memo.update(fixed.id, { validUntil: "2026-02-01" }),
      /validFrom must come before validUntil/,
    );
  });
});

Deno.test("Memo: a chain that is refused leaves notes.md byte for byte", async (t) => {
  await withMemo(async (memo, notesPath) => {
    const { note: a } = await memo.remember({ text: "Deploys run on Fridays" });
    const { note: b } = await memo.remember({ text: "Deploys run on Mondays", supersedes: [a.id] });
    const before = await readFile(notesPath);
    const refused = async (name: string, call: () => Promise<unknown>, message: RegExp) => {
      await t.step(name, async () => {
        await assert.rejects(call, (e: Error & { code?: string }) => {
          assert.equal(e.code, "MEMORY_VALIDATION_ERROR");
          assert.match(e.message, message);
          return true;
        });
        assert.deepEqual(await readFile(notesPath), before);
      });
    };
    await refused(
      "an unknown id",
      () => memo.remember({ text: "Deploys run on Sundays", supersedes: ["nope"] }),
      /unknown note nope/,
    );
    await refused(
      "a note superseding itself",
      () => memo.remember({ text: "deploys run on mondays", supersedes: [b.id] }),
      /itself/,
    );
    await refused("a cycle by update", () => memo.update(a.id, { supersedes: [b.id] }), /cycle/);
    await refused("a cycle by supersede", () => memo.supersede({ ids: [b.id], by: a.id }), /cycle/);
    await refused(
      "an unknown id by supersede",
      () => memo.supersede({ ids: ["nope"], by: b.id }),
      /unknown note nope/,
    );
    await t.step("an unknown note to correct is not found", async () => {
      await assert.rejects(memo.correct({ id: "nope", text: "x" }), { code: "NOTE_NOT_FOUND" });
      assert.deepEqual(await readFile(notesPath), before);
    });
  });
});

Deno.test("Memo: a hand edit that adds supersedes is honoured at the next read", async () => {
  await withMemo(async (memo, notesPath) => {
    const { note: a } = await memo.remember({ text: "Staging lives in eu-west-1" });
    const { note: b } = await memo.remember({ text: "The staging environment is in eu-west-1" });
    const seen: MemoChange[] = [];
    const stop = memo.watch((change) => void seen.push(change));
    const text = await readFile(notesPath, "utf8");
    const marker = `{"id":"${b.id}"`;
    const edited = text.replace(
      new RegExp(`(${marker}[^\\n]*)"updated":"([^"]+)"`),
      `$1"updated":"$2","supersedes":["${a.id}"]`,
    );
    assert.notEqual(edited, text);
    await writeFile(notesPath, edited);
    assert.deepEqual((await memo.list()).notes.map((n) => n.id), [b.id]);
    assert.deepEqual((await memo.get(a.id)).supersededBy, [b.id]);
    assert.deepEqual(seen.flatMap((c) => c.updated), [b.id], "the change feed sees the edit");
    stop();
    // Removing it by hand brings the note back.
    await writeFile(notesPath, text);
    assert.equal((await memo.list()).total, 2);
  });
});

Deno.test("Memo.remember: the same text normalised is unchanged, a near-duplicate is written and listed", async () => {
  await withMemo(async (memo) => {
    const { note } = await memo.remember({ text: "Max upload size for attachments is 25 MB." });
    const same = await memo.remember({ text: "max upload size for attachments is 25 MB" });
    assert.deepEqual([same.status, same.note.id, same.similar], ["unchanged", note.id, []]);
    const near = await memo.remember({ text: "Attachments have a max upload size of 25 MB." });
    assert.equal(near.status, "written");
    assert.deepEqual(near.similar?.map((s) => [s.id, s.title]), [[note.id, note.title]]);
    const unrelated = await memo.remember({ text: "Lunch is at noon on Fridays." });
    assert.deepEqual(unrelated.similar, []);
    // The same text naming a note it supersedes adds the link to the stored note.
    const linked = await memo.remember({
      text: "Attachments have a max upload size of 25 MB",
      supersedes: [note.id],
    });
    assert.deepEqual([linked.status, linked.note.id], ["updated", near.note.id]);
    assert.deepEqual(linked.note.supersedes, [note.id]);
  });
});

Deno.test("Memo.remember: similar never lists the note itself, the notes it supersedes or a superseded note", async () => {
  await withMemo(async (memo) => {
    const { note: a } = await memo.remember({ text: "The audit log is kept for 12 months." });
    const { note: b } = await memo.remember({ text: "The audit log is kept for 12 months in S3." });
    // A near-duplicate that supersedes `a`: `b` is listed, `a` is not.
    const c = await memo.remember({
      text: "Audit logs are kept for 12 months.",
      supersedes: [a.id],
    });
    assert.deepEqual(c.similar?.map((s) => s.id), [b.id]);
    // `a` is superseded now: never listed again; `c` is.
    const d = await memo.remember({ text: "The audit logs are kept 12 months." });
    const listed = d.similar?.map((s) => s.id) ?? [];
    assert.ok(listed.includes(c.note.id) && listed.includes(b.id), String(listed));
    assert.ok(!listed.includes(a.id) && !listed.includes(d.note.id), String(listed));
  });
});

Deno.test("Memo.remember: similar sees a note another process wrote since this one last read (the check during the fsync is redone)", async () => {
  await withMemo(async (first, notesPath) => {
    const rootDir = join(notesPath, "..", "..", "..");
    const second = await openMemo({ rootDir, localEmbeddings: false, indexCache: false });
    try {
      await second.remember({ text: "Lunch is at noon on Fridays." }); // its mirror is current
      const { note } = await first.remember({
        text: "The audit log of billing is kept for 12 months in Glacier.",
      });
      // `second` has not read since: what it checks during its fsync misses `note`.
      const near = await second.remember({
        text: "Audit logs of billing are kept for 12 months in Glacier.",
      });
      assert.deepEqual(near.similar?.map((s) => s.id), [note.id]);
      // Behind again (the check is redone once the note is held): a word only the new note has
      // takes none of the places among the words searched for.
      await first.remember({ text: "Backups run nightly at two." });
      const longer = await second.remember({
        text:
          "Billing audit logs: 12 months in Glacier, zyxqwv plonkers frobnicate quuxly blargh snorf wibbly",
      });
      assert.ok(longer.similar?.some((s) => s.id === note.id), JSON.stringify(longer.similar));
    } finally {
      await second.close();
    }
  });
});

Deno.test("Memo: a change of supersedes or validity is a change: updated, in the feed", async () => {
  await withMemo(async (memo) => {
    const { note } = await memo.remember({ text: "The beta API is open" });
    const seen: MemoChange[] = [];
    const stop = memo.watch((change) => void seen.push(change));
    const changed = await memo.update(note.id, { validUntil: "2027-01-01" });
    assert.ok(changed.updated > note.updated);
    assert.notEqual(changed.hash, note.hash);
    assert.deepEqual(seen, [{ created: [], updated: [note.id], removed: [] }]);
    // Removing it is a change too; the same patch again is none.
    await memo.update(note.id, { validUntil: null });
    assert.equal((await memo.get(note.id)).validUntil, undefined);
    assert.equal(seen.length, 2);
    await memo.update(note.id, { validUntil: null, title: note.title });
    assert.equal(seen.length, 2);
    stop();
  });
});

Deno.test("Memo.applyTidy: all-or-nothing, refused when notes.md changed or a note is gone", async () => {
  await withMemo(async (memo, notesPath) => {
    const texts = [
      "Canary deploys hold at 5% of traffic for 30 minutes.",
      "Heads up: canary deploys hold at 5% of traffic for 30 minutes.",
      "The on-call handbook is in Notion under Engineering.",
      "FYI the on-call handbook is in Notion under Engineering.",
    ];
    const ids = [];
    for (const text of texts) ids.push((await memo.remember({ text })).note.id);
    const plan = await memo.tidy();
    assert.deepEqual(
      plan.proposals.map((p) => p.kind === "merge" ? [p.keep.id, p.supersede.map((s) => s.id)] : p),
      [[ids[3], [ids[2]]], [ids[1], [ids[0]]]],
    );
    // A plan naming a note that is gone is refused whole.
    const gone = structuredClone(plan);
    if (gone.proposals[1].kind === "merge") gone.proposals[1].supersede[0].id = "nope";
    delete gone.sha256;
    const before = await readFile(notesPath);
    await assert.rejects(memo.applyTidy(gone), /changed since the plan was made/);
    assert.deepEqual(await readFile(notesPath), before);
    // A write after the plan makes it stale.
    await memo.remember({ text: "Something else" });
    const after = await readFile(notesPath);
    await assert.rejects(memo.applyTidy(plan), /changed since the plan was made/);
    assert.deepEqual(await readFile(notesPath), after);
    const fresh = await memo.tidy();
    const result = await memo.applyTidy(fresh);
    assert.deepEqual([result.merged, result.superseded.sort()], [2, [ids[0], ids[2]].sort()]);
    assert.equal((await memo.list()).total, 3);
    assert.deepEqual((await memo.tidy()).proposals, []);
  });
});

Deno.test("Memo: a correction with a later validFrom leaves the old fact holding until then (asOf)", async () => {
  await withMemo(async (memo) => {
    const day = 86_400_000;
    const { note: old } = await memo.remember({ text: "The audit log is kept for 12 months" });
    const start = new Date(Date.now() + 30 * day).toISOString();
    const { note: fixed } = await memo.correct({
      id: old.id,
      text: "The audit log is kept for 24 months",
      validFrom: start,
    });
    assert.equal((await memo.get(old.id))?.validUntil, start);
    const ids = async (asOf: string) =>
      (await memo.list({ limit: 10, asOf })).notes.map((n) => n.id);
    // Ten days from now the old fact still holds (until the new one starts), then the new one.
    assert.deepEqual(await ids(new Date(Date.now() + 10 * day).toISOString()), [old.id]);
    assert.deepEqual(await ids(new Date(Date.now() + 40 * day).toISOString()), [fixed.id]);
  });
});
