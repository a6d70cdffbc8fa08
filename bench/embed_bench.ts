/**
 * Embedding: what semantic recall costs on this machine, with the offline
 * `use-lite` model in its worker thread.
 *
 * - (a) **Throughput**: notes/s embedding `--notes` notes through
 *   `loadEmbedder("use-lite")` directly (its worker thread), once per batch
 *   size of `--batch-sizes` (default 16,32,64). The notes are LoCoMo dev turns
 *   (`../shared/bench/locomo-dev/corpus.jsonl`) with their speaker and date as
 *   the title, repeated with variations (other speaker names and an opening
 *   phrase) until there are enough distinct texts; what is embedded is
 *   `embeddingText(note)`, as memo embeds it.
 * - (b) **Time to cover**: a store of `--cover-notes` such notes is opened
 *   cold (no embedding cache) with background embedding on, and
 *   `embeddingStatus()` is polled until every note is embedded, which is when
 *   `hybrid` (and `auto`, with a model it fuses with) ranks every note by
 *   meaning. Then it is closed and reopened warm: the same, counting the
 *   texts the model computed (0 expected).
 * - (c) **Recall latency** (lexical, auto and hybrid, p50/p95, each question
 *   new; each engine its own questions)
 *   on that store: idle (after (b)'s cold open covered everything, model
 *   loaded, nothing to embed); while background embedding runs (the cache
 *   removed and the store opened cold again; sampled from the first note
 *   embedded until it is covered or the questions run out); and the peer,
 *   the same recall with `localEmbeddings: false` (where hybrid refuses). All
 *   in the same run.
 *
 * The defaults (2,000 notes for (a) and (b)) keep the run near 6 minutes on
 * 2 cores, where use-lite embeds about 30 such notes/s; the issue's sizes are
 * `--notes 10000 --cover-notes 10000` (about 25 minutes).
 *
 * Run: deno run -A bench/embed_bench.ts [--notes 2000] [--batch-sizes 16,32,64]
 *   [--cover-notes 2000] [--questions 300] [--skip throughput,cover,latency] (cover skips latency too) [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  type Embedder,
  type EmbedderLoader,
  embeddingText,
  loadEmbedder,
  type Memo,
  type NoteDraft,
  openMemo,
  type RecallEngine,
} from "../memory/mod.ts";
import { benchPaths } from "./_recall_eval_kit.ts";
import { percentile } from "./_report.ts";

interface Item {
  id: string;
  text: string;
  conversation_id?: string;
  speaker?: string;
  date_text?: string;
}

const NAMES = [
  ["Caroline", "Melanie"],
  ["Jon", "Gina"],
  ["John", "Maria"],
  ["Joanna", "Nate"],
  ["Tim", "Ashley"],
  ["Priya", "Tom"],
  ["Lena", "Omar"],
];
const OPENINGS = ["", "Later, ", "Earlier that week, ", "By the way, ", "Also, ", "Honestly, "];

/**
 * `count` distinct notes made from benchmark items: the items themselves,
 * then again with other speaker names and an opening phrase, until there are
 * enough.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { variedNotes } from "./embed_bench.ts";
 *
 * const items = [{ id: "a", text: "Ann: I moved to Lisbon", speaker: "Ann", date_text: "8 May, 2023" }];
 * const notes = variedNotes(items, 3);
 * assert.equal(notes.length, 3);
 * assert.equal(new Set(notes.map((n) => n.text)).size, 3);
 * assert.equal(notes[0].title, "Ann, 8 May, 2023");
 * ```
 */
export function variedNotes(items: readonly Item[], count: number): NoteDraft[] {
  // Each conversation has two speakers: the first seen is 0, the other 1.
  const side = new Map<string, number>();
  const seenIn = new Map<string, number>();
  for (const item of items) {
    const key = `${item.conversation_id ?? ""}\n${item.speaker ?? ""}`;
    if (side.has(key)) continue;
    const n = seenIn.get(item.conversation_id ?? "") ?? 0;
    side.set(key, n % 2);
    seenIn.set(item.conversation_id ?? "", n + 1);
  }
  const seen = new Set<string>();
  const notes: NoteDraft[] = [];
  for (let round = 0; notes.length < count; round++) {
    const names = NAMES[round % NAMES.length];
    const opening = OPENINGS[Math.floor(round / NAMES.length) % OPENINGS.length];
    for (const item of items) {
      if (notes.length >= count) break;
      let speaker = item.speaker ?? "";
      let text = item.text;
      if (round > 0) {
        const name = names[side.get(`${item.conversation_id ?? ""}\n${speaker}`) ?? 0];
        if (speaker && text.startsWith(speaker + ": ")) text = text.slice(speaker.length + 2);
        speaker = name;
        text = `${name}: ${opening}${text}`;
      }
      if (round >= NAMES.length * OPENINGS.length) text += ` (${round})`;
      const title = [speaker, item.date_text].filter((x) => x).join(", ");
      if (seen.has(title + "\n" + text)) continue;
      seen.add(title + "\n" + text);
      notes.push({ text, title: title || undefined, labels: speaker ? [speaker] : [] });
    }
    if (round > 1000) throw new Error("Cannot make the notes: too few distinct items");
  }
  return notes;
}

/** The engines whose latency (c) measures (hybrid: none with embeddings off). */
const ENGINES = ["lexical", "auto", "hybrid"] as const;
type Engine = typeof ENGINES[number];
type Latencies = Partial<Record<Engine, Latency>>;

/** p50 and p95 of latencies in ms, and how many. */
interface Latency {
  n: number;
  p50: number;
  p95: number;
}

function summary(xs: number[]): Latency {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: r(percentile(s, 0.5)), p95: r(percentile(s, 0.95)) };
}

/** A loader of use-lite that counts the texts the model embeds. */
function countingLoader(model: string): { loader: EmbedderLoader; computed: () => number } {
  let computed = 0;
  const loader: EmbedderLoader = async (options) => {
    const inner = await loadEmbedder(model, options);
    const embedder: Embedder = {
      model: inner.model,
      dimensions: inner.dimensions,
      embed: (texts, o) => {
        computed += texts.length;
        return inner.embed(texts, o);
      },
      close: () => inner.close?.() ?? Promise.resolve(),
    };
    return embedder;
  };
  return { loader, computed: () => computed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms) / 1000;

async function waitCovered(
  memo: Memo,
  started: number,
): Promise<{ ready: number; covered: number }> {
  let ready = NaN;
  while (true) {
    const s = memo.embeddingStatus();
    if (s.state === "failed") throw new Error(`Cannot embed: ${s.error}`);
    if (s.state === "ready" && Number.isNaN(ready)) ready = performance.now() - started;
    if (s.total > 0 && s.embedded === s.total) {
      return { ready, covered: performance.now() - started };
    }
    await sleep(50);
  }
}

async function timeRecalls(
  memo: Memo,
  engine: RecallEngine,
  questions: readonly string[],
): Promise<Latency> {
  const times: number[] = [];
  for (const q of questions) {
    const t = performance.now();
    await memo.recall(q, { engine, limit: 10 });
    times.push(performance.now() - t);
  }
  return summary(times);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      notes: { type: "string", default: "2000" },
      "batch-sizes": { type: "string", default: "16,32,64" },
      "cover-notes": { type: "string", default: "2000" },
      questions: { type: "string", default: "300" },
      model: { type: "string", default: "use-lite" },
      skip: { type: "string", default: "" },
      json: { type: "string" },
    },
  });
  const skip = new Set(values.skip.split(",").filter((s) => s));
  const model = values.model;
  const { bench } = benchPaths();
  const items = (await Deno.readTextFile(join(bench, "corpus.jsonl"))).split("\n")
    .filter((l) => l.trim()).map((l) => JSON.parse(l) as Item);
  const allQuestions = (await Deno.readTextFile(join(bench, "queries.jsonl"))).split("\n")
    .filter((l) => l.trim()).map((l) => (JSON.parse(l) as { question: string }).question);
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => "")).match(
    /model name\s*:\s*(.*)/,
  )?.[1];
  const machine = `${navigator.hardwareConcurrency} cores (${
    cpu ?? "?"
  }), Deno ${Deno.version.deno}`;
  console.log(`embed_bench: ${machine}; model ${model}`);
  const report: Record<string, unknown> = { machine, model };

  // (a) throughput
  if (!skip.has("throughput")) {
    const n = Number(values.notes);
    const texts = variedNotes(items, n).map((d) =>
      embeddingText({ title: d.title ?? "", body: d.text })
    );
    let t = performance.now();
    const embedder = await loadEmbedder(model);
    const loadMs = performance.now() - t;
    await embedder.embed(texts.slice(0, 8)); // warm-up
    const rows: { batch: number; notes: number; seconds: number; perSecond: number }[] = [];
    for (const batch of values["batch-sizes"].split(",").map(Number)) {
      t = performance.now();
      for (let i = 0; i < texts.length; i += batch) await embedder.embed(texts.slice(i, i + batch));
      const ms = performance.now() - t;
      const row = {
        batch,
        notes: texts.length,
        seconds: seconds(ms),
        perSecond: Math.round(texts.length / (ms / 1000)),
      };
      console.error(`embed_bench: throughput ${JSON.stringify(row)}`);
      rows.push(row);
    }
    await embedder.close?.();
    console.log(
      `\n(a) throughput, ${n} notes, ${model} in its worker (load ${Math.round(loadMs)} ms)`,
    );
    console.log("batch   notes/s   seconds");
    for (const r of rows) {
      console.log(
        `${String(r.batch).padStart(5)} ${String(r.perSecond).padStart(9)} ${
          r.seconds.toFixed(1).padStart(9)
        }`,
      );
    }
    report.throughput = { loadMs: Math.round(loadMs), rows };
  }

  if (skip.has("cover")) return finish(); // (c) measures on the store (b) covers
  const n = Number(values["cover-notes"]);
  const root = await Deno.makeTempDir({ prefix: "memo-embed-bench-" });
  try {
    {
      const memo = await openMemo({ rootDir: root, localEmbeddings: false });
      await memo.rememberMany(variedNotes(items, n));
      await memo.close();
    }
    const q = Math.min(Number(values.questions), Math.floor(allQuestions.length / ENGINES.length));
    // Each engine its own questions, so that no answer comes from another's cache.
    const questions = Object.fromEntries(
      ENGINES.map((engine, i) => [engine, allQuestions.slice(i * q, (i + 1) * q)]),
    ) as Record<Engine, string[]>;
    const cacheDir = join(root, ".memo", "cache", "embeddings");

    // (b) cold, then (c) idle on the covered store
    const counter = countingLoader(model);
    let t = performance.now();
    let memo = await openMemo({ rootDir: root, embedder: counter.loader });
    const openMs = performance.now() - t;
    const cold = await waitCovered(memo, t);
    const coldComputed = counter.computed();
    const autoCheck = await memo.recallDetailed(allQuestions[0], { engine: "auto" });
    const hybridCheck = await memo.recallDetailed(allQuestions[0], { engine: "hybrid" });
    const idle: Latencies = {};
    for (const engine of ENGINES) idle[engine] = await timeRecalls(memo, engine, questions[engine]);
    await memo.close();

    // (b) warm
    const warmCounter = countingLoader(model);
    t = performance.now();
    memo = await openMemo({ rootDir: root, embedder: warmCounter.loader });
    const warmOpenMs = performance.now() - t;
    const warm = await waitCovered(memo, t);
    await memo.close();
    const cover = {
      notes: n,
      cold: {
        openMs: Math.round(openMs),
        readyMs: Math.round(cold.ready),
        coveredMs: Math.round(cold.covered),
        computed: coldComputed,
      },
      warm: {
        openMs: Math.round(warmOpenMs),
        readyMs: Math.round(warm.ready),
        coveredMs: Math.round(warm.covered),
        computed: warmCounter.computed(),
      },
      afterCover: {
        auto: { engine: autoCheck.engine, coverage: autoCheck.coverage },
        hybrid: { engine: hybridCheck.engine, coverage: hybridCheck.coverage },
      },
    };
    console.log(`\n(b) time until all ${n} notes are embedded (background embedding, ${model})`);
    console.log("open    openMemo ms  model ready ms  covered ms  computed");
    for (const [name, x] of [["cold", cover.cold], ["warm", cover.warm]] as const) {
      console.log(
        `${name.padEnd(6)} ${String(x.openMs).padStart(12)} ${String(x.readyMs).padStart(15)} ` +
          `${String(x.coveredMs).padStart(11)} ${String(x.computed).padStart(9)}`,
      );
    }
    console.log(
      `then: auto ran as ${autoCheck.engine}, hybrid ranked ` +
        `${hybridCheck.coverage.embedded}/${hybridCheck.coverage.total} notes by meaning`,
    );
    report.cover = cover;

    if (!skip.has("latency")) {
      // (c) while embedding: drop the cache, open cold, sample until covered or out of questions
      await Deno.remove(cacheDir, { recursive: true });
      memo = await openMemo({ rootDir: root });
      // Sample once the model is loaded and the background loop is embedding.
      while (memo.embeddingStatus().embedded === 0) {
        const s = memo.embeddingStatus();
        if (s.state === "failed") throw new Error(`Cannot embed: ${s.error}`);
        await sleep(20);
      }
      const busyFrom = memo.embeddingStatus().embedded;
      const started = performance.now();
      const busyTimes: Record<Engine, number[]> = { lexical: [], auto: [], hybrid: [] };
      const autoEngines = { lexical: 0, hybrid: 0, vector: 0 };
      let coveredDuring = false;
      for (let i = 0; i < q; i++) {
        const s = memo.embeddingStatus();
        if (s.total > 0 && s.embedded === s.total) {
          coveredDuring = true;
          break;
        }
        for (const engine of ENGINES) {
          const at = performance.now();
          const r = await memo.recallDetailed(questions[engine][i], { engine, limit: 10 });
          busyTimes[engine].push(performance.now() - at);
          if (engine === "auto") autoEngines[r.engine]++;
        }
        await sleep(10);
      }
      const busyStatus = memo.embeddingStatus();
      const busyMs = performance.now() - started;
      await memo.close();
      const busy: Latencies = {};
      for (const engine of ENGINES) busy[engine] = summary(busyTimes[engine]);

      memo = await openMemo({ rootDir: root, localEmbeddings: false });
      await memo.recall("warm up", { engine: "lexical" });
      const off: Latencies = {
        lexical: await timeRecalls(memo, "lexical", questions.lexical),
        auto: await timeRecalls(memo, "auto", questions.auto),
      };
      await memo.close();
      console.log(`\n(c) recall latency at ${n} notes, ms (each question new; limit 10)`);
      console.log(
        "state                              " +
          ENGINES.map((e) => `${e} p50`.padStart(12) + "p95".padStart(7)).join(""),
      );
      const cell = (x: number | undefined, width: number) =>
        (x === undefined ? "—" : x.toFixed(2)).padStart(width);
      const row = (name: string, x: Latencies) =>
        console.log(
          name.padEnd(35) + ENGINES.map((e) => cell(x[e]?.p50, 12) + cell(x[e]?.p95, 7)).join(""),
        );
      row("embeddings off (peer)", off);
      row("idle (all embedded, model loaded)", idle);
      row("while background embedding runs", busy);
      console.log(
        `while embedding: ${busy.lexical!.n} questions per engine over ${seconds(busyMs)} s, ` +
          `${busyFrom} → ${busyStatus.embedded} of ${busyStatus.total} embedded meanwhile${
            coveredDuring ? " (covered)" : ""
          }; auto ran as hybrid ${autoEngines.hybrid}×, lexical ${autoEngines.lexical}×`,
      );
      report.latency = {
        notes: n,
        off,
        idle,
        busy,
        busyMs: Math.round(busyMs),
        busyFrom,
        busyStatus,
        autoEngines,
      };
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  await finish();

  async function finish() {
    if (values.json) await Deno.writeTextFile(values.json, JSON.stringify(report, null, 2) + "\n");
  }
}

if (import.meta.main) await main();
