/**
 * Recall quality: runs `../shared/bench/recall_eval.mjs` on memo
 * (`bench/recall_adapter.ts`) with each recall engine — `lexical`, `vector`,
 * `hybrid` and `auto` — and on the tuned MiniSearch peer
 * (`bench/minisearch_adapter.mjs`) in the same run, over the same benchmark
 * folder, and prints them side by side per category, with the differences
 * hybrid − lexical and lexical − MiniSearch.
 *
 * The semantic engines share one embedding cache (`--cache-dir`, default a
 * temporary folder removed at the end), so the notes are embedded once per
 * run (or once ever, with a kept folder).
 *
 * `--grid` tunes the fusion instead: it runs the hybrid engine once per
 * (k, vector weight) pair of `--grid-k` and `--grid-vector-weight` (and each
 * lexical weight of `--grid-lexical-weight`) and prints R@10, nDCG@10 and
 * MRR@10 over all questions for each. Tune on the dev split only.
 *
 * Run: deno run -A bench/recall_quality.ts [BENCH_DIR] [--json out.json] [--evaluator FILE]
 *   [--engines lexical,vector,hybrid,auto] [--model use-lite] [--cache-dir DIR]
 *   [--k N] [--lexical-weight W] [--vector-weight W]
 *   [--grid [--grid-k 5,10,20,40,60,100] [--grid-vector-weight 0.5,0.75,1,1.5] [--grid-lexical-weight 1]]
 *
 * BENCH_DIR defaults to `../shared/bench/locomo-dev` beside the repository;
 * any folder in that format works (the held-out split too).
 *
 * @module
 */

import { parseArgs } from "node:util";
import process from "node:process";
import {
  benchPaths,
  differenceRow,
  type EvalResult,
  evaluate,
  headerRow,
  metricsRow,
  type System,
  timingLine,
} from "./_recall_eval_kit.ts";

/** One system's result, named. */
export interface Named {
  /** Its name in the tables. */
  name: string;
  /** The evaluator's result. */
  result: EvalResult;
}

/** A difference row: `of − base`, both named systems of the table. */
export interface Difference {
  /** The row's label. */
  label: string;
  /** The minuend's system name. */
  of: string;
  /** The subtrahend's system name. */
  base: string;
}

/**
 * The side-by-side table of several evaluator results, per category, with
 * the difference rows asked for (those whose systems are present).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareTable } from "./recall_quality.ts";
 *
 * const m = (v: number) => ({ n: 1, r1: v, r5: v, r10: v, full10: v, ndcg10: v, mrr10: v });
 * const table = compareTable(
 *   [{ name: "a", result: { metrics: { ALL: m(1) }, timing: {} } },
 *    { name: "b", result: { metrics: { ALL: m(0.5) }, timing: {} } }],
 *   [{ label: "a − b", of: "a", base: "b" }, { label: "a − c", of: "a", base: "c" }],
 * );
 * assert.match(table, /a − b +\+0\.500/);
 * assert.doesNotMatch(table, /a − c/);
 * ```
 */
export function compareTable(
  systems: readonly Named[],
  differences: readonly Difference[],
): string {
  if (systems.length === 0) return "";
  const categories = Object.keys(systems[0].result.metrics);
  const labels = [...systems.map((s) => s.name), ...differences.map((d) => d.label)];
  const width = Math.max(
    20,
    ...categories.map((c) => c.length),
    ...labels.map((l) => l.length + 2),
  );
  const byName = new Map(systems.map((s) => [s.name, s.result]));
  const lines: string[] = [headerRow(width, "")];
  for (const c of categories) {
    lines.push(`${c.padEnd(width)} ${String(systems[0].result.metrics[c].n).padStart(5)}`);
    for (const s of systems) {
      const x = s.result.metrics[c];
      if (x) lines.push(metricsRow("  " + s.name, width, x));
    }
    for (const d of differences) {
      const x = byName.get(d.of)?.metrics[c];
      const y = byName.get(d.base)?.metrics[c];
      if (x && y) lines.push(differenceRow("  " + d.label, width, x, y));
    }
  }
  return lines.join("\n");
}

/** One point of the fusion grid and what it scored over all questions. */
export interface GridPoint {
  /** RRF constant. */
  k: number;
  /** Weight of the lexical ranking. */
  lexicalWeight: number;
  /** Weight of the vector ranking. */
  vectorWeight: number;
  /** R@10, nDCG@10, MRR@10 over all questions. */
  r10: number;
  /** nDCG@10 over all questions. */
  ndcg10: number;
  /** MRR@10 over all questions. */
  mrr10: number;
}

/**
 * The fusion grid as a table: one row per (lexical weight, k), one column per
 * vector weight, each cell `R@10 / nDCG@10`; the best point (by the sum of
 * the two) is starred.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gridTable } from "./recall_quality.ts";
 *
 * const table = gridTable([
 *   { k: 10, lexicalWeight: 1, vectorWeight: 1, r10: 0.8, ndcg10: 0.6, mrr10: 0.5 },
 *   { k: 60, lexicalWeight: 1, vectorWeight: 1, r10: 0.7, ndcg10: 0.5, mrr10: 0.4 },
 * ]);
 * assert.ok(table.includes(".800/.600" + "*"));
 * ```
 */
export function gridTable(points: readonly GridPoint[]): string {
  const vws = [...new Set(points.map((p) => p.vectorWeight))].sort((a, b) => a - b);
  const rows = [...new Set(points.map((p) => `${p.lexicalWeight} ${p.k}`))];
  const best = points.reduce((a, b) => (b.r10 + b.ndcg10 > a.r10 + a.ndcg10 ? b : a));
  const lines = [
    `${"lexical weight, k".padEnd(20)}${vws.map((w) => `vw ${w}`.padStart(14)).join("")}`,
  ];
  for (const row of rows) {
    const [lw, k] = row.split(" ").map(Number);
    const cells = vws.map((vw) => {
      const p = points.find((x) => x.k === k && x.lexicalWeight === lw && x.vectorWeight === vw);
      if (!p) return "".padStart(14);
      const star = p === best ? "*" : " ";
      return `${p.r10.toFixed(3).slice(1)}/${p.ndcg10.toFixed(3).slice(1)}${star}`.padStart(14);
    });
    lines.push(`${`lw ${lw}, k ${k}`.padEnd(20)}${cells.join("")}`);
  }
  return lines.join("\n");
}

function list(text: string): number[] {
  return text.split(",").map((x) => Number(x.trim()));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      json: { type: "string" },
      evaluator: { type: "string" },
      engines: { type: "string", default: "lexical,vector,hybrid,auto" },
      model: { type: "string", default: "use-lite" },
      "cache-dir": { type: "string" },
      k: { type: "string" },
      "lexical-weight": { type: "string" },
      "vector-weight": { type: "string" },
      grid: { type: "boolean", default: false },
      "grid-k": { type: "string", default: "5,10,20,40,60,100" },
      "grid-vector-weight": { type: "string", default: "0.5,0.75,1,1.5" },
      "grid-lexical-weight": { type: "string", default: "1" },
    },
  });
  const { bench, evaluator } = benchPaths(positionals[0], values.evaluator);
  const deno = Deno.execPath();
  const cacheDir = values["cache-dir"] ?? await Deno.makeTempDir({ prefix: "memo-embeddings-" });
  const adapter = (engine: string, fusion: string[] = []) =>
    [
      `"${deno}" run -A bench/recall_adapter.ts --engine ${engine}`,
      ...(engine === "lexical" ? [] : [`--model "${values.model}" --cache-dir "${cacheDir}"`]),
      ...fusion,
    ].join(" ");
  const fusion: string[] = [];
  for (const flag of ["k", "lexical-weight", "vector-weight"] as const) {
    if (values[flag] !== undefined) fusion.push(`--${flag} ${Number(values[flag])}`);
  }
  console.error(`recall_quality: ${bench}`);
  try {
    if (values.grid) {
      const points: GridPoint[] = [];
      for (const lexicalWeight of list(values["grid-lexical-weight"])) {
        for (const k of list(values["grid-k"])) {
          for (const vectorWeight of list(values["grid-vector-weight"])) {
            const cmd = adapter("hybrid", [
              `--k ${k} --lexical-weight ${lexicalWeight} --vector-weight ${vectorWeight}`,
            ]);
            const { result } = await evaluate(evaluator, bench, { name: `hybrid k ${k}`, cmd });
            const all = result.metrics.ALL;
            const point = {
              k,
              lexicalWeight,
              vectorWeight,
              r10: all.r10,
              ndcg10: all.ndcg10,
              mrr10: all.mrr10,
            };
            console.error(`recall_quality: ${JSON.stringify(point)}`);
            points.push(point);
          }
        }
      }
      console.log("hybrid over all questions, R@10/nDCG@10 (* best by their sum)");
      console.log(gridTable(points));
      if (values.json) {
        await Deno.writeTextFile(
          values.json,
          JSON.stringify({ bench, grid: points }, null, 2) + "\n",
        );
      }
      return;
    }
    const systems: (System & { result?: EvalResult })[] = [];
    for (const engine of values.engines.split(",").map((e) => e.trim()).filter((e) => e)) {
      systems.push({
        name: `memo ${engine}`,
        cmd: adapter(engine, engine === "lexical" ? [] : fusion),
      });
    }
    systems.push({
      name: "MiniSearch (tuned)",
      cmd: `"${deno}" run -A --lock=deno.dev.lock bench/minisearch_adapter.mjs`,
    });
    const named: Named[] = [];
    for (const system of systems) {
      console.error(`recall_quality: ${system.name}`);
      const { result } = await evaluate(evaluator, bench, system);
      named.push({ name: system.name, result });
    }
    console.log(compareTable(named, [
      { label: "hybrid − lexical", of: "memo hybrid", base: "memo lexical" },
      { label: "auto − lexical", of: "memo auto", base: "memo lexical" },
      { label: "lexical − MiniSearch", of: "memo lexical", base: "MiniSearch (tuned)" },
    ]));
    for (const { name, result } of named) console.log(timingLine(name, result.timing));
    if (values.json) {
      const out = { bench, systems: Object.fromEntries(named.map((s) => [s.name, s.result])) };
      await Deno.writeTextFile(values.json, JSON.stringify(out, null, 2) + "\n");
    }
  } finally {
    if (values["cache-dir"] === undefined) await Deno.remove(cacheDir, { recursive: true });
  }
}

if (import.meta.main) await main();
