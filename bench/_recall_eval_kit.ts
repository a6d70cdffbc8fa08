/**
 * What the recall quality benches (`bench/recall_quality.ts`,
 * `bench/cloud_quality.ts`) share: running `../shared/bench/recall_eval.mjs`
 * on one system under test, and the rows of their tables.
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (the evaluator runs there). */
export const REPO: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const METRICS = ["r1", "r5", "r10", "full10", "ndcg10", "mrr10"] as const;
const HEADERS = ["R@1", "R@5", "R@10", "Full@10", "nDCG@10", "MRR@10"];

/** What the evaluator writes with `--json`. */
export interface EvalResult {
  /** Per category (and `ALL`): the number of questions and each metric. */
  metrics: Record<string, Record<string, number> & { n: number }>;
  /** Index time, queries per second, latency percentiles. */
  timing: Record<string, number>;
}

/** One system under test. */
export interface System {
  /** Its name in the tables. */
  name: string;
  /** The shell command the evaluator starts. */
  cmd: string;
}

/**
 * The benchmark folder and the evaluator, absolute: the arguments given, or
 * `../shared/bench/locomo-dev` and `../shared/bench/recall_eval.mjs` beside
 * the repository.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { benchPaths } from "./_recall_eval_kit.ts";
 *
 * assert.match(benchPaths().bench, /shared\/bench\/locomo-dev$/);
 * assert.equal(benchPaths("/b", "/e.mjs").evaluator, "/e.mjs");
 * ```
 */
export function benchPaths(
  bench?: string,
  evaluator?: string,
): { bench: string; evaluator: string } {
  return {
    bench: resolve(bench ?? join(REPO, "..", "shared", "bench", "locomo-dev")),
    evaluator: resolve(evaluator ?? join(REPO, "..", "shared", "bench", "recall_eval.mjs")),
  };
}

/** One line of the evaluator's `--dump`. */
interface Dumped {
  qid: string;
  ids: string[];
}

/**
 * Runs the evaluator on one system (in the repository root, its own table
 * swallowed); returns its JSON result and, with `dump`, the ids it answered
 * per question.
 *
 * @example
 * ```ts ignore
 * import { evaluate } from "./_recall_eval_kit.ts";
 *
 * const { result } = await evaluate("../shared/bench/recall_eval.mjs", "../shared/bench/locomo-dev", {
 *   name: "memo",
 *   cmd: "deno run -A bench/recall_adapter.ts",
 * });
 * console.log(result.metrics.ALL.r10);
 * ```
 */
export async function evaluate(
  evaluator: string,
  bench: string,
  system: System,
  options: {
    /**
     * Also collect the evaluator's `--dump`.
     * @default false
     */
    dump?: boolean;
  } = {},
): Promise<{ result: EvalResult; dump: Map<string, string[]> }> {
  const out = await Deno.makeTempFile({ suffix: ".json" });
  const dumpFile = options.dump ? await Deno.makeTempFile({ suffix: ".jsonl" }) : undefined;
  try {
    const child = new Deno.Command("node", {
      args: [
        evaluator,
        "--bench",
        bench,
        "--cmd",
        system.cmd,
        "--json",
        out,
        ...(dumpFile ? ["--dump", dumpFile] : []),
        "--quiet",
      ],
      cwd: REPO,
      stdout: "piped", // its own table; the comparison replaces it
      stderr: "inherit",
    });
    const status = await child.output();
    if (!status.success) throw new Error(`the evaluator failed on ${system.name}`);
    const dump = new Map<string, string[]>();
    if (dumpFile) {
      for (const line of (await Deno.readTextFile(dumpFile)).split("\n")) {
        if (!line.trim()) continue;
        const row = JSON.parse(line) as Dumped;
        dump.set(row.qid, row.ids);
      }
    }
    return { result: JSON.parse(await Deno.readTextFile(out)) as EvalResult, dump };
  } finally {
    await Deno.remove(out).catch(() => {});
    if (dumpFile) await Deno.remove(dumpFile).catch(() => {});
  }
}

const cell = (s: string) => s.padStart(8);

/**
 * The header row of a metrics table, `nLabel` over the question counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headerRow } from "./_recall_eval_kit.ts";
 *
 * assert.match(headerRow(20, "n"), /^ {20}\s+n +R@1 +R@5/);
 * ```
 */
export function headerRow(width: number, nLabel: string): string {
  return `${"".padEnd(width)} ${nLabel.padStart(5)}  ${HEADERS.map(cell).join("")}`;
}

/**
 * One row of metrics, labelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { metricsRow } from "./_recall_eval_kit.ts";
 *
 * const m = { n: 1, r1: 0.5, r5: 1, r10: 1, full10: 1, ndcg10: 1, mrr10: 1 };
 * assert.match(metricsRow("  memo", 20, m), /^  memo +0\.500 +1\.000/);
 * ```
 */
export function metricsRow(label: string, width: number, x: Record<string, number>): string {
  return `${label.padEnd(width)} ${"".padStart(5)}  ${
    METRICS.map((m) => cell(x[m].toFixed(3))).join("")
  }`;
}

/**
 * One row of the differences `x − base`, signed, labelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { differenceRow } from "./_recall_eval_kit.ts";
 *
 * const m = (v: number) => ({ n: 1, r1: v, r5: v, r10: v, full10: v, ndcg10: v, mrr10: v });
 * assert.match(differenceRow("  difference", 20, m(0.5), m(0.25)), /\+0\.250/);
 * assert.match(differenceRow("  difference", 20, m(0.25), m(0.5)), /-0\.250/);
 * ```
 */
export function differenceRow(
  label: string,
  width: number,
  x: Record<string, number>,
  base: Record<string, number>,
): string {
  return `${label.padEnd(width)} ${"".padStart(5)}  ${
    METRICS.map((m) => {
      const d = x[m] - base[m];
      return cell((d >= 0 ? "+" : "") + d.toFixed(3));
    }).join("")
  }`;
}

/**
 * The timing line of one evaluator result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { timingLine } from "./_recall_eval_kit.ts";
 *
 * const t = { index_ms: 5, queries_per_s: 900, latency_ms_p50: 1, latency_ms_p95: 2 };
 * assert.equal(
 *   timingLine("memo", t),
 *   "memo: index 5 ms; 900 queries/s; latency p50 1 ms, p95 2 ms",
 * );
 * ```
 */
export function timingLine(name: string, t: Record<string, number>): string {
  return `${name}: index ${t.index_ms} ms; ${t.queries_per_s} queries/s; ` +
    `latency p50 ${t.latency_ms_p50} ms, p95 ${t.latency_ms_p95} ms`;
}
