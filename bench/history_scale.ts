/**
 * The cost of notes that stay true (issue 23) at 10,000 and 100,000 notes, measured side by side
 * in one process on one generated project (no model: embeddings off):
 *
 * - **remember**: `Memo.remember` (with the `similar` check) against `Memo.rememberMany` of one
 *   draft (the same write without it), alternating, each with a new text; p50 and p95 of each
 *   and their ratio (goal: ≤ 1.3× at p50). The first write of each kind (which keys the text
 *   identities) is reported apart.
 * - **tidy**: `Memo.tidy()` over all the notes (the plan a person reviews), and the time of
 *   `tidyText` (the diff's preview), median of 3.
 * - **recall** at the largest size: the same queries plain (`includeSuperseded`: no history
 *   filter), with the default filtering (superseded notes hidden) and with `asOf`, in a rotating
 *   order, answer cache off, each three times (the fastest counts); p50 and p95 (goal: ≤ 1.2×
 *   plain at p50).
 *
 * The notes: ~40 words from a vocabulary of 20,000 with a Zipf-like spread (some words in most
 * notes, most in few), a number or two, and one note in 20 superseding an earlier one, so that
 * filtering has something to hide.
 *
 * Usage: deno run -A bench/history_scale.ts [--sizes 10000,100000] [--writes 200] [--queries 300]
 *        [--parts remember,tidy,recall] [--json FILE]
 *
 * @module
 */

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  contentHash,
  memoPaths,
  type Note,
  NOTES_PREAMBLE,
  openMemo,
  serializeNote,
  tidyText,
} from "../memory/mod.ts";
import { median, percentile } from "./_report.ts";
import { rng } from "./_rng.ts";

const args = Deno.args;
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const sizes = option("sizes", "10000,100000").split(",").map(Number);
const writes = Number(option("writes", "200"));
const queryCount = Number(option("queries", "300"));
const only = new Set(option("parts", "remember,tidy,recall").split(","));

const VOCABULARY = 20_000;
const random = rng(23);
const syllables = ["ka", "ro", "mi", "te", "su", "ba", "lo", "ne", "di", "fa", "gu", "pe", "zo"];
const words = Array.from({ length: VOCABULARY }, (_, i) => {
  let w = "";
  for (let n = i + 7; n > 0; n = Math.floor(n / syllables.length)) {
    w += syllables[n % syllables.length];
  }
  return w;
});
/** A word with a Zipf-like spread: rank r is picked about 1/r as often. */
function word(): string {
  return words[Math.min(VOCABULARY - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY))) - 1)];
}
function sentence(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(word());
  out.push(String(Math.floor(random() * 1000)));
  return out.join(" ") + ".";
}

/** Writes `count` notes to a new project; returns its root. */
async function generate(count: number): Promise<string> {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-history-scale-" });
  const path = memoPaths(rootDir).notes;
  await Deno.mkdir(join(rootDir, ".memo/memory"), { recursive: true });
  const start = Date.parse("2025-01-01T00:00:00Z");
  const ids: string[] = [];
  const parts: string[] = [NOTES_PREAMBLE];
  for (let i = 0; i < count; i++) {
    const body = `${sentence(20)} ${sentence(18)}`;
    const time = new Date(start + i * 60_000).toISOString();
    const id = `0${i.toString(36).padStart(9, "0")}history`;
    const note: Note = {
      id,
      title: body.slice(0, 60),
      body,
      labels: [],
      hash: "",
      created: time,
      updated: time,
    };
    if (i > 100 && i % 20 === 0) note.supersedes = [ids[i - 1 - Math.floor(random() * 100)]];
    note.hash = contentHash(note);
    ids.push(id);
    parts.push(serializeNote(note));
  }
  await writeFile(path, parts.join(""));
  return rootDir;
}

const round = (ms: number) => Math.round(ms * 100) / 100;
function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)) };
}

async function measure(count: number, recallToo: boolean) {
  const rootDir = await generate(count);
  try {
    let t = performance.now();
    const memo = await openMemo({
      rootDir,
      localEmbeddings: false,
      indexCache: false,
      recallCacheSize: 0,
    });
    const openMs = performance.now() - t;
    // remember with and without the similarity check, alternating.
    const plain: number[] = [];
    const checked: number[] = [];
    let firstPlain = 0;
    let firstChecked = 0;
    let listed = 0;
    for (let i = 0; i < (only.has("remember") ? writes + 1 : 0); i++) {
      t = performance.now();
      await memo.rememberMany([{ text: `${sentence(20)} ${sentence(18)}` }]);
      const a = performance.now() - t;
      t = performance.now();
      const r = await memo.remember({ text: `${sentence(20)} ${sentence(18)}` });
      const b = performance.now() - t;
      listed += r.similar?.length ?? 0;
      if (i === 0) [firstPlain, firstChecked] = [a, b];
      else {
        plain.push(a);
        checked.push(b);
      }
    }
    const without = summary(plain.length ? plain : [NaN]);
    const withCheck = summary(checked.length ? checked : [NaN]);
    // tidy and its preview.
    const tidyTimes: number[] = [];
    let proposals = 0;
    for (let i = 0; i < (only.has("tidy") ? 3 : 0); i++) {
      t = performance.now();
      const plan = await memo.tidy();
      tidyTimes.push(performance.now() - t);
      proposals = plan.proposals.length;
    }
    let previewMs = NaN;
    if (only.has("tidy")) {
      const plan = await memo.tidy();
      const text = await Deno.readTextFile(memoPaths(rootDir).notes);
      t = performance.now();
      tidyText(text, plan);
      previewMs = performance.now() - t;
    }
    const out: Record<string, unknown> = {
      notes: count,
      openMs: round(openMs),
      remember: {
        without,
        withSimilar: withCheck,
        ratioP50: round(withCheck.p50 / without.p50),
        ratioP95: round(withCheck.p95 / without.p95),
        firstWithoutMs: round(firstPlain),
        firstWithMs: round(firstChecked),
        similarListedPerWrite: round(listed / (writes + 1)),
      },
      tidy: {
        ms: tidyTimes.length ? round(median(tidyTimes)) : NaN,
        proposals,
        previewMs: round(previewMs),
      },
    };
    if (recallToo && only.has("recall")) {
      const queries = Array.from({ length: queryCount }, () => `${word()} ${word()} ${word()}`);
      const asOf = new Date(Date.parse("2025-01-01T00:00:00Z") + count * 30_000).toISOString();
      const times = { plain: [] as number[], hidden: [] as number[], asOf: [] as number[] };
      const kinds = [
        ["plain", { includeSuperseded: true }],
        ["hidden", {}],
        ["asOf", { asOf }],
      ] as const;
      for (const [i, q] of queries.entries()) {
        // Each query runs the three ways, in a rotating order (no way always first or last),
        // three times: its time is the fastest of the three (the least disturbed by the others
        // sharing the machine).
        const best = { plain: Infinity, hidden: Infinity, asOf: Infinity };
        for (let rep = 0; rep < 3; rep++) {
          for (let k = 0; k < 3; k++) {
            const [name, options] = kinds[(i + k + rep) % 3];
            t = performance.now();
            await memo.recall(q, options);
            best[name] = Math.min(best[name], performance.now() - t);
          }
        }
        for (const [name] of kinds) times[name].push(best[name]);
      }
      const p = summary(times.plain);
      const h = summary(times.hidden);
      const s = summary(times.asOf);
      out.recall = {
        plain: p,
        defaultFiltering: h,
        asOf: s,
        ratioDefaultP50: round(h.p50 / p.p50),
        ratioAsOfP50: round(s.p50 / p.p50),
      };
    }
    await memo.close();
    return out;
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
}

const results = [];
for (const [i, count] of sizes.entries()) {
  const result = await measure(count, i === sizes.length - 1);
  results.push(result);
  console.log(JSON.stringify(result, null, 2));
}
const json = option("json", "");
if (json) await writeFile(json, JSON.stringify(results, null, 2));
