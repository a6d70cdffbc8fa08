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
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const METRICS = ["r1", "r5", "r10", "full10", "ndcg10", "mrr10"] as const;
const HEADERS = ["R@1", "R@5", "R@10", "Full@10", "nDCG@10", "MRR@10"];

/** What the evaluator writes with `--json`. */
interface EvalResult {
  metrics: Record<string, Record<string, number> & { n: number }>;
  timing: Record<string, number>;
}

/** One system under test. */
interface System {
  name: string;
  cmd: string;
}

/** Runs the evaluator on one system; returns its JSON result. */
async function evaluate(evaluator: string, bench: string, system: System): Promise<EvalResult> {
  const out = await Deno.makeTempFile({ suffix: ".json" });
  try {
    const child = new Deno.Command("node", {
      args: [evaluator, "--bench", bench, "--cmd", system.cmd, "--json", out, "--quiet"],
      cwd: REPO,
      stdout: "piped", // its own table; the comparison below replaces it
      stderr: "inherit",
    });
    const status = await child.output();
    if (!status.success) throw new Error(`the evaluator failed on ${system.name}`);
    return JSON.parse(await Deno.readTextFile(out)) as EvalResult;
  } finally {
    await Deno.remove(out).catch(() => {});
  }
}

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
  const cell = (s: string) => s.padStart(8);
  const lines: string[] = [];
  lines.push(
    `${"".padEnd(width)} ${"".padStart(5)}  ${HEADERS.map(cell).join("")}`,
  );
  for (const c of categories) {
    const x = a.metrics[c];
    const y = b.metrics[c];
    if (!y) continue;
    lines.push(`${c.padEnd(width)} ${String(x.n).padStart(5)}`);
    lines.push(
      `${("  " + nameA).padEnd(width)} ${"".padStart(5)}  ${
        METRICS.map((m) => cell(x[m].toFixed(3))).join("")
      }`,
    );
    lines.push(
      `${("  " + nameB).padEnd(width)} ${"".padStart(5)}  ${
        METRICS.map((m) => cell(y[m].toFixed(3))).join("")
      }`,
    );
    lines.push(
      `${"  difference".padEnd(width)} ${"".padStart(5)}  ${
        METRICS.map((m) => {
          const d = x[m] - y[m];
          return cell((d >= 0 ? "+" : "") + d.toFixed(3));
        }).join("")
      }`,
    );
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
  const bench = resolve(positionals[0] ?? join(REPO, "..", "shared", "bench", "locomo-dev"));
  const evaluator = resolve(
    values.evaluator ?? join(REPO, "..", "shared", "bench", "recall_eval.mjs"),
  );
  const deno = Deno.execPath();
  const memo: System = { name: "memo", cmd: `"${deno}" run -A bench/recall_adapter.ts` };
  const peer: System = {
    name: "MiniSearch (tuned)",
    cmd: `"${deno}" run -A bench/minisearch_adapter.mjs`,
  };
  console.error(`recall_quality: ${bench}`);
  const a = await evaluate(evaluator, bench, memo);
  const b = await evaluate(evaluator, bench, peer);
  console.log(compareTable(a, b, memo.name, peer.name));
  for (const [name, r] of [[memo.name, a], [peer.name, b]] as const) {
    const t = r.timing;
    console.log(
      `${name}: index ${t.index_ms} ms; ${t.queries_per_s} queries/s; ` +
        `latency p50 ${t.latency_ms_p50} ms, p95 ${t.latency_ms_p95} ms`,
    );
  }
  if (values.json) {
    const out = { bench, systems: { [memo.name]: a, [peer.name]: b } };
    await Deno.writeTextFile(values.json, JSON.stringify(out, null, 2) + "\n");
  }
}

if (import.meta.main) await main();
