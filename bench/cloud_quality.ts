/**
 * Cloud recall quality (issue 11): runs `../shared/bench/recall_eval.mjs`, in
 * the same run and over the same benchmark folder, on
 *
 * - memo local: `bench/recall_adapter.ts` (a `Memo` per conversation on a
 *   file store, the lexical engine);
 * - memo cloud: `bench/cloud_recall_adapter.ts` (the cloud runtime, through
 *   the Cloud API, on PostgreSQL);
 * - plain `ts_rank`, OR: `bench/pg_tsrank_adapter.ts` (the question's lexemes
 *   joined with `|`);
 * - plain `ts_rank`, AND: the same with `TSRANK_MODE=and` (`plainto_tsquery`),
 *
 * and prints them side by side per category, with the cloud's difference to
 * local and whether it is within the goal (0.01 R@10 of local), and how many
 * questions got a different top 10 from the cloud than from local.
 *
 * Run: deno run -A bench/cloud_quality.ts [BENCH_DIR] [--json out.json] [--evaluator FILE] [--only local,cloud,tsrank-or,tsrank-and]
 *
 * BENCH_DIR defaults to `../shared/bench/locomo-dev` beside the repository.
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
  type System as EvalSystem,
  timingLine,
} from "./_recall_eval_kit.ts";

/** The goal: the cloud's R@10 within this of local lexical recall's. */
const GOAL_R10 = 0.01;

/** One system under test. */
interface System extends EvalSystem {
  key: string;
}

/**
 * A table of several evaluator results, one block per category, one row per
 * system, and the difference of each further system to the first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sideBySide } from "./cloud_quality.ts";
 *
 * const m = (x: number) => ({ n: 1, r1: x, r5: x, r10: x, full10: x, ndcg10: x, mrr10: x });
 * const table = sideBySide([
 *   { name: "local", result: { metrics: { ALL: m(0.8) }, timing: {} } },
 *   { name: "cloud", result: { metrics: { ALL: m(0.8) }, timing: {} } },
 * ]);
 * assert.match(table, /cloud − local/);
 * assert.match(table, /\+0\.000/);
 * ```
 */
export function sideBySide(rows: { name: string; result: EvalResult }[]): string {
  const [first, ...rest] = rows;
  const categories = Object.keys(first.result.metrics);
  const width = Math.max(
    20,
    ...categories.map((c) => c.length),
    ...rest.map((r) => `  ${r.name} − ${first.name}`.length),
  );
  const lines = [headerRow(width, "n")];
  for (const c of categories) {
    const base = first.result.metrics[c];
    lines.push(`${c.padEnd(width)} ${String(base.n).padStart(5)}`);
    for (const { name, result } of rows) {
      const x = result.metrics[c];
      if (x) lines.push(metricsRow("  " + name, width, x));
    }
    for (const { name, result } of rest) {
      const x = result.metrics[c];
      if (x) lines.push(differenceRow(`  ${name} − ${first.name}`, width, x, base));
    }
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
      only: { type: "string" },
    },
  });
  const { bench, evaluator } = benchPaths(positionals[0], values.evaluator);
  const deno = `"${Deno.execPath()}"`;
  const all: System[] = [
    { key: "local", name: "memo local", cmd: `${deno} run -A bench/recall_adapter.ts` },
    { key: "cloud", name: "memo cloud", cmd: `${deno} run -A bench/cloud_recall_adapter.ts` },
    {
      key: "tsrank-or",
      name: "ts_rank OR",
      cmd: `TSRANK_MODE=or ${deno} run -A --lock=deno.dev.lock bench/pg_tsrank_adapter.ts`,
    },
    {
      key: "tsrank-and",
      name: "ts_rank AND",
      cmd: `TSRANK_MODE=and ${deno} run -A --lock=deno.dev.lock bench/pg_tsrank_adapter.ts`,
    },
  ];
  const only = values.only?.split(",");
  const systems = all.filter((s) => !only || only.includes(s.key));
  if (!systems.length) throw new Error(`Cannot run: --only names none of ${all.map((s) => s.key)}`);
  console.error(`cloud_quality: ${bench}`);
  const runs: { system: System; result: EvalResult; dump: Map<string, string[]> }[] = [];
  for (const system of systems) {
    const started = performance.now();
    const run = await evaluate(evaluator, bench, system, { dump: true });
    console.error(
      `cloud_quality: ${system.name} done in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    runs.push({ system, ...run });
  }

  console.log(sideBySide(runs.map((r) => ({ name: r.system.name, result: r.result }))));
  console.log("");
  for (const { system, result } of runs) {
    console.log(`${timingLine(system.name, result.timing)} (through the evaluator's pipe)`);
  }
  const summary: Record<string, unknown> = {};
  const local = runs.find((r) => r.system.key === "local");
  const cloud = runs.find((r) => r.system.key === "cloud");
  if (local && cloud) {
    const d = cloud.result.metrics.ALL.r10 - local.result.metrics.ALL.r10;
    let differ = 0;
    for (const [qid, ids] of local.dump) {
      const other = cloud.dump.get(qid) ?? [];
      if (ids.length !== other.length || ids.some((id, i) => other[i] !== id)) differ++;
    }
    summary.cloudMinusLocalR10 = d;
    summary.goalMet = d >= -GOAL_R10; // better than local is fine too
    summary.questionsWithADifferentTop10 = differ;
    console.log(
      `\ncloud − local R@10 = ${d >= 0 ? "+" : ""}${d.toFixed(3)} ` +
        `(goal: within ${GOAL_R10}): ${summary.goalMet ? "met" : "MISSED"}; ` +
        `${differ} of ${local.dump.size} questions got a different top 10 (ids or order)`,
    );
  }
  for (const key of ["tsrank-or", "tsrank-and"]) {
    const peer = runs.find((r) => r.system.key === key);
    if (!peer || !local) continue;
    const d = peer.result.metrics.ALL.r10 - local.result.metrics.ALL.r10;
    const n = peer.result.metrics.ALL.ndcg10 - local.result.metrics.ALL.ndcg10;
    summary[`${key}MinusLocalR10`] = d;
    console.log(
      `${peer.system.name} − local: R@10 ${d >= 0 ? "+" : ""}${d.toFixed(3)}, ` +
        `nDCG@10 ${n >= 0 ? "+" : ""}${n.toFixed(3)}`,
    );
  }
  if (values.json) {
    const out = {
      bench,
      systems: Object.fromEntries(runs.map((r) => [r.system.name, r.result])),
      summary,
    };
    await Deno.writeTextFile(values.json, JSON.stringify(out, null, 2) + "\n");
  }
}

if (import.meta.main) await main();
