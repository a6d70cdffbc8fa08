/**
 * Scale benchmark of the lexical index: 100,000 synthetic notes of about 1 KB
 * (English-like text drawn from a Zipf vocabulary, stop words at their usual
 * rate, camelCase / snake_case / kebab-case identifiers, labels), indexed by
 * memo's BM25 index and by MiniSearch 7.2.0 (tuned as the recall anchor:
 * Porter2 + Orama stop words), each in its own child process so that each
 * RSS is its own. Reports build time, search p50/p95 over the same queries
 * and the RSS after building.
 *
 * `--sizes 10000,100000` runs each engine at each size (the 10k mode is the
 * size of a typical MCP store; `--notes N` is one size). Queries are 2–4
 * words, mostly mid-frequency, a third of them ending in an unfinished word
 * (prefix completion), each different; every query runs once to warm up,
 * then once timed.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/index_scale.ts [--notes 100000 | --sizes 10000,100000] [--queries 300] [--runs 1] [--json out.json]
 *
 * @module
 */

import process from "node:process";
import { parseArgs } from "node:util";
import { createLexicalIndex } from "../memory/recall/lexical/lexical.ts";
import type { Note } from "../memory/notes/note.ts";
import { rng } from "./_rng.ts";

const STOP = (
  "the of and to a in is that it for was on with as he be at by this had not are but from or " +
  "have an they which you were her she there we all been his one their if has would will what " +
  "so when can more no out up them some into only could time these its then do than about"
).split(" ");
const SYLLABLES = (
  "ka ri to na me lo se ta de po ni ru la mi ko sa te vo bi du fa ge hi jo ku le mo nu pe qui " +
  "ro su ti ve wa xe yo zu ar en in on un er al el il ol st tr pl gr br cl dr fr pr sk sp"
).split(" ");
const SUFFIXES = ["", "", "", "s", "ed", "ing", "er", "ment", "ly", "tion"];
const LABELS = Array.from({ length: 50 }, (_, i) => `topic-${i}`);

/**
 * Vocabulary, Zipf sampler, note and query generators, all deterministic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corpus } from "./index_scale.ts";
 *
 * const { note } = corpus(1000);
 * assert.ok(note(0).body.length > 800);
 * ```
 */
export function corpus(vocabularySize: number) {
  const rand = rng(42);
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < vocabularySize) {
    let w = "";
    const n = 1 + Math.floor(rand() * 3.2);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    w += SUFFIXES[Math.floor(rand() * SUFFIXES.length)];
    if (w.length < 3 || seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  // Zipf(1.07) over content words; stop words make up ~40 % of running text.
  const cdf = new Float64Array(vocabularySize);
  let sum = 0;
  for (let r = 0; r < vocabularySize; r++) cdf[r] = sum += 1 / Math.pow(r + 1, 1.07);
  for (let r = 0; r < vocabularySize; r++) cdf[r] /= sum;
  const zipf = (u: number) => {
    let lo = 0;
    let hi = vocabularySize - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  const word = (r: () => number) => (r() < 0.4 ? STOP[Math.floor(r() * STOP.length)] : zipf(r()));
  const identifier = (r: () => number) => {
    const a = zipf(r());
    const b = zipf(r());
    const kind = r();
    if (kind < 0.33) return a + b[0].toUpperCase() + b.slice(1);
    return kind < 0.66 ? `${a}_${b}` : `${a}-${b}`;
  };
  const note = (i: number): Note => {
    const r = rng(1000 + i);
    let title = "";
    const tn = 3 + Math.floor(r() * 6);
    for (let k = 0; k < tn; k++) title += (k ? " " : "") + zipf(r());
    title = title[0].toUpperCase() + title.slice(1);
    const target = 900 + Math.floor(r() * 250);
    const parts: string[] = []; // joined at the end: a flat string, as a parsed file gives
    let size = 0;
    let sentence = 0;
    while (size < target) {
      let w = r() < 0.02 ? identifier(r) : word(r);
      if (sentence === 0) w = w[0].toUpperCase() + w.slice(1);
      sentence++;
      let sep = " ";
      if (sentence > 6 && r() < 0.12) {
        sep = r() < 0.1 ? "?\n" : ". ";
        sentence = 0;
      } else if (r() < 0.06) sep = ", ";
      parts.push(w, sep);
      size += w.length + sep.length;
    }
    const body = parts.join("");
    const labels: string[] = [];
    const ln = Math.floor(r() * 3);
    for (let k = 0; k < ln; k++) labels.push(LABELS[Math.floor(r() * LABELS.length)]);
    const id = `n${String(i).padStart(6, "0")}`;
    return { id, title, body, labels, hash: id, created: "", updated: "" };
  };
  const queries = (count: number): string[] => {
    const r = rng(7);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const n = 2 + Math.floor(r() * 3);
      const q: string[] = [];
      for (let k = 0; k < n; k++) {
        // Mostly mid-frequency words, as people type them; some stop words.
        q.push(
          r() < 0.2
            ? STOP[Math.floor(r() * STOP.length)]
            : words[Math.floor(Math.pow(r(), 2) * 5000)],
        );
      }
      let s = q.join(" ");
      if (i % 3 === 0) s = s.slice(0, s.length - Math.min(3, q[n - 1].length - 2)); // a prefix
      else s += "?";
      out.push(s);
    }
    return out;
  };
  return { note, queries };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))];
}

interface PhaseResult {
  engine: string;
  notes: number;
  build_ms: number;
  build_cpu_ms: number;
  search_p50_ms: number;
  search_p95_ms: number;
  rss_mb: number;
  heap_mb: number;
  mean_hits: number;
}

async function phase(engine: string, count: number, queryCount: number): Promise<PhaseResult> {
  const { note, queries } = corpus(50_000);
  const notes: Note[] = [];
  for (let i = 0; i < count; i++) notes.push(note(i));
  const qs = queries(queryCount);
  // deno-lint-ignore no-explicit-any
  let search: (q: string) => any[];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (engine === "memo") {
    const index = createLexicalIndex();
    for (const n of notes) index.add(n);
    index.flush(); // what the first search would do; counted in the build
    search = (q) => index.search(q, { limit: 10 });
  } else {
    // deno-lint-ignore no-import-prefix -- bench-only peer, pinned
    const { default: MiniSearch } = await import("npm:minisearch@7.2.0");
    // deno-lint-ignore no-import-prefix -- bench-only peer, pinned
    const { stem } = await import("npm:porter2@1.1.0");
    // deno-lint-ignore no-import-prefix -- bench-only peer, pinned
    const { stopwords } = await import("npm:@orama/stopwords@3.1.18/english");
    const stop = new Set<string>(stopwords);
    const ms = new MiniSearch({
      fields: ["title", "body", "labels"],
      extractField: (doc: Note, field: string) =>
        field === "labels"
          ? doc.labels.join(" ")
          : (doc as unknown as Record<string, string>)[field],
      processTerm: (t: string) => {
        const w = t.toLowerCase();
        return stop.has(w) ? null : stem(w);
      },
      searchOptions: {
        bm25: { k: 1.2, b: 0, d: 0.5 },
        prefix: (_t: string, i: number, all: string[]) => i === all.length - 1,
      },
    });
    ms.addAll(notes);
    search = (q) => ms.search(q).slice(0, 10);
  }
  const build = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const times: number[] = [];
  let hits = 0;
  for (let round = 0; round < 2; round++) {
    for (const q of qs) {
      const s = performance.now();
      const r = search(q);
      const e = performance.now() - s;
      if (round === 1) {
        times.push(e);
        hits += r.length;
      }
    }
  }
  const mem = process.memoryUsage();
  return {
    engine,
    notes: count,
    build_ms: +build.toFixed(1),
    build_cpu_ms: +((cpu.user + cpu.system) / 1000).toFixed(1),
    search_p50_ms: +percentile(times, 50).toFixed(3),
    search_p95_ms: +percentile(times, 95).toFixed(3),
    rss_mb: +(mem.rss / 2 ** 20).toFixed(1),
    heap_mb: +(mem.heapUsed / 2 ** 20).toFixed(1),
    mean_hits: +(hits / qs.length).toFixed(1),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      notes: { type: "string", default: "100000" },
      sizes: { type: "string" },
      queries: { type: "string", default: "300" },
      runs: { type: "string", default: "1" },
      phase: { type: "string" },
      json: { type: "string" },
      engines: { type: "string", default: "memo,minisearch" },
    },
  });
  const count = Number(values.notes);
  const sizes = (values.sizes ?? values.notes!).split(",").map(Number);
  const queryCount = Number(values.queries);
  if (values.phase) {
    process.stdout.write(JSON.stringify(await phase(values.phase, count, queryCount)) + "\n");
    return;
  }
  const results: PhaseResult[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    for (const size of sizes) {
      for (const engine of values.engines!.split(",")) {
        const child = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "-A",
            `--lock=${new URL("../deno.dev.lock", import.meta.url).pathname}`,
            "--v8-flags=--max-old-space-size=4096",
            new URL(import.meta.url).pathname,
            "--phase",
            engine,
            "--notes",
            String(size),
            "--queries",
            String(queryCount),
          ],
          stderr: "inherit",
        });
        const out = await child.output();
        if (!out.success) throw new Error(`${engine} phase failed`);
        const r = JSON.parse(new TextDecoder().decode(out.stdout)) as PhaseResult;
        console.error(`run ${run + 1}: ${JSON.stringify(r)}`);
        results.push(r);
      }
    }
  }
  const header = [
    "engine",
    "notes",
    "build ms",
    "build CPU ms",
    "search p50 ms",
    "p95 ms",
    "RSS MB",
    "heap MB",
    "hits/q",
  ];
  const rows = results.map((r) =>
    [
      r.engine,
      r.notes,
      r.build_ms,
      r.build_cpu_ms,
      r.search_p50_ms,
      r.search_p95_ms,
      r.rss_mb,
      r.heap_mb,
      r.mean_hits,
    ].map(String)
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i])).join("  ");
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(results, null, 2) + "\n");
}

if (import.meta.main) await main();
