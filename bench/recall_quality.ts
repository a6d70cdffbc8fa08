/**
 * Recall quality: runs `../shared/bench/recall_eval.mjs` on memo
 * (`bench/recall_adapter.ts`) and on the tuned MiniSearch peer
 * (`bench/minisearch_adapter.mjs`) in the same run, over the same benchmark
 * folder, and prints both side by side per category, with the differences.
 *
 * Run: deno run -A bench/recall_quality.ts [BENCH_DIR] [--json out.json] [--evaluator FILE]
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

/**
 * The side-by-side table of two evaluator results.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareTable } from "./recall_quality.ts";
 *
 * const r = { metrics: { ALL: { n: 1, r1: 1, r5: 1, r10: 1, full10: 1, ndcg10: 1, mrr10: 1 } }, timing: {} };
 * assert.ok(compareTable(r, r, "memo", "peer").includes("ALL"));
 * ```
 */
export function compareTable(a: EvalResult, b: EvalResult, nameA: string, nameB: string): string {
  const categories = Object.keys(a.metrics);
  const width = Math.max(20, ...categories.map((c) => c.length));
  const lines: string[] = [headerRow(width, "")];
  for (const c of categories) {
    const x = a.metrics[c];
    const y = b.metrics[c];
    if (!y) continue;
    lines.push(`${c.padEnd(width)} ${String(x.n).padStart(5)}`);
    lines.push(metricsRow("  " + nameA, width, x));
    lines.push(metricsRow("  " + nameB, width, y));
    lines.push(differenceRow("  difference", width, x, y));
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      json: { type: "string" },
      evaluator: { type: "string" },
    },
  });
  const { bench, evaluator } = benchPaths(positionals[0], values.evaluator);
  const deno = Deno.execPath();
  const memo: System = { name: "memo", cmd: `"${deno}" run -A bench/recall_adapter.ts` };
  const peer: System = {
    name: "MiniSearch (tuned)",
    cmd: `"${deno}" run -A bench/minisearch_adapter.mjs`,
  };
  console.error(`recall_quality: ${bench}`);
  const { result: a } = await evaluate(evaluator, bench, memo);
  const { result: b } = await evaluate(evaluator, bench, peer);
  console.log(compareTable(a, b, memo.name, peer.name));
  for (const [name, r] of [[memo.name, a], [peer.name, b]] as const) {
    console.log(timingLine(name, r.timing));
  }
  if (values.json) {
    const out = { bench, systems: { [memo.name]: a, [peer.name]: b } };
    await Deno.writeTextFile(values.json, JSON.stringify(out, null, 2) + "\n");
  }
}

if (import.meta.main) await main();
