/**
 * `deno task bench`: runs every benchmark in turn, each in its own process, and
 * keeps each one's output (also as JSON) under `bench/results/`. The figures
 * and how to read them are in `bench/README.md`.
 *
 * Run: deno run -A bench/run.ts [--only NAME[,NAME]] [--quick]
 *
 * `--quick` passes small sizes to each benchmark, to check that they run; the
 * figures of `bench/README.md` come from a run without it. Names: recall,
 * index, store, open, stdio, stdio-stateless, http, http-stateless, http-gzip, http-ceiling, sync, cloud,
 * cloud-quality, hybrid, embed, oauth, web, npm, secrets, dedupe, history, start, idle, git; `--only
 * stdio` and `--only http` also run their `-stateless`
 * (MCP 2026-07-28) part (and `http` its gzip part, against a worktree of
 * `main`, and its share of the ceiling in both eras on Deno and Node, `http_ceiling.ts`), while
 * `--only stdio-stateless`, `--only http-stateless`, `--only http-gzip` or `--only http-ceiling`
 * runs that part alone. `--only cloud` runs the cloud at scale on PostgreSQL
 * (`cloud_scale.ts`) and the cloud's recall quality (`cloud_quality.ts`);
 * `--only cloud-quality` runs the quality part alone. `--only hybrid` runs
 * the hybrid runtime's write latency, catch-up and steady cost
 * (`hybrid_bench.ts`). `--only recall` runs the four recall engines beside
 * tuned MiniSearch (`recall_quality.ts`); `--only embed` the embedding
 * throughput, time to cover and recall latency while embedding
 * (`embed_bench.ts`); `--only oauth` recall over HTTP with OAuth (JWT access
 * tokens from a real authorization server) beside the static token, and the
 * first request after a key rotation (`oauth_bench.ts`); `--only web` the web page's transfer size and time to
 * the first search result in Chromium, beside MCP Inspector's web UI
 * (`web_bench.ts`); `--only npm` the npm packages' sizes and the cold start of
 * `npx memo mcp` beside the official SDK's stdio server (`npm_bench.ts`);
 * `--only open` the 100k open with its parts, memo now against memo at
 * `5081ee0` checked out beside it (`open_scale.ts`); `--only dedupe` the
 * duplicate detection of `similar` and `memo tidy` on the dev pairs (`dedupe_quality.ts`),
 * `--only history` the cost of the similarity check on remember, of tidy and of the history filters
 * on recall at 10k and 100k notes (`history_scale.ts`);
 * `--only start` the cold
 * start A/B of `memo mcp` against memo at 5081ee0 and the SDK's stdio server,
 * under Deno and Node (`start_bench.ts`); `--only idle` the RSS and CPU of an
 * idle `memo mcp` after one lexical recall, use-lite against embeddings off
 * (`idle_bench.ts`); `--only git` the git merge driver on 100,000 notes against `git merge-file`
 * and memo's open, and recall on a conflicted notes.md against a clean one (`git_merge.ts`).
 *
 * @module
 */

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, "results");

interface Bench {
  name: string;
  /** `--only GROUP` runs every bench of the group (stdio, http: both eras). */
  group?: string;
  script: string;
  args: string[];
  quick: string[];
}

const benches: Bench[] = [
  { name: "recall", script: "recall_quality.ts", args: [], quick: [] },
  { name: "index", script: "index_scale.ts", args: [], quick: ["--notes", "5000"] },
  { name: "store", script: "store_scale.ts", args: [], quick: ["--notes", "5000"] },
  {
    name: "open",
    script: "open_scale.ts",
    args: [],
    quick: ["--notes", "5000", "--rounds", "2"],
  },
  {
    name: "stdio",
    script: "stdio_bench.ts",
    args: [],
    quick: [
      "--notes",
      "1000",
      "--starts",
      "3",
      "--pings",
      "200",
      "--calls",
      "100",
      "--rounds",
      "1",
    ],
  },
  {
    name: "stdio-stateless",
    group: "stdio",
    script: "stdio_stateless.ts",
    args: [],
    quick: ["--notes", "1000", "--starts", "3", "--calls", "100", "--rounds", "1"],
  },
  {
    name: "http",
    script: "http_bench.ts",
    args: [],
    quick: ["--duration", "2", "--soak", "3", "--notes", "1000"],
  },
  {
    name: "http-stateless",
    group: "http",
    script: "http_stateless.ts",
    args: [],
    quick: ["--duration", "2", "--notes", "1000", "--rounds", "1"],
  },
  {
    name: "http-gzip",
    group: "http",
    script: "http_gzip.ts",
    args: [],
    quick: ["--duration", "1", "--warmup", "1", "--notes", "200", "--rounds", "1"],
  },
  {
    name: "http-ceiling",
    group: "http",
    script: "http_ceiling.ts",
    args: [],
    quick: ["--duration", "1", "--warmup", "1", "--rounds", "1", "--notes", "50"],
  },
  {
    name: "sync",
    script: "sync_bench.ts",
    args: [],
    quick: ["--pages", "250", "--notes", "2000", "--rounds", "1"],
  },
  {
    name: "cloud",
    script: "cloud_scale.ts",
    args: [],
    quick: [
      "--notes",
      "20000",
      "--queries",
      "100",
      "--repeats",
      "200",
      "--batches",
      "20",
      "--duration",
      "3",
      "--warmup",
      "1",
    ],
  },
  { name: "cloud-quality", group: "cloud", script: "cloud_quality.ts", args: [], quick: [] },
  { name: "hybrid", script: "hybrid_bench.ts", args: [], quick: ["--quick"] },
  {
    name: "embed",
    script: "embed_bench.ts",
    args: [],
    quick: ["--notes", "200", "--batch-sizes", "32", "--cover-notes", "300", "--questions", "30"],
  },
  {
    name: "oauth",
    script: "oauth_bench.ts",
    args: [],
    quick: [
      "--duration",
      "2",
      "--warmup",
      "1",
      "--notes",
      "1000",
      "--rounds",
      "2",
      "--rotations",
      "3",
      "--calls",
      "300",
    ],
  },
  { name: "web", script: "web_bench.ts", args: [], quick: ["--notes", "1000", "--only", "memo"] },
  { name: "npm", script: "npm_bench.ts", args: [], quick: ["--rounds", "3"] },
  {
    name: "secrets",
    script: "secrets_bench.ts",
    args: [],
    quick: ["--remembers", "300", "--records", "5000", "--notes", "10000"],
  },
  { name: "dedupe", script: "dedupe_quality.ts", args: [], quick: ["--no-vectors"] },
  {
    name: "history",
    script: "history_scale.ts",
    args: [],
    quick: ["--sizes", "2000", "--writes", "10", "--queries", "50"],
  },
  { name: "start", script: "start_bench.ts", args: [], quick: ["--rounds", "3", "--deno-only"] },
  { name: "idle", script: "idle_bench.ts", args: [], quick: ["--rounds", "1", "--window", "3"] },
  {
    name: "git",
    script: "git_merge.ts",
    args: [],
    quick: ["--notes", "5000", "--changes", "200", "--recall-notes", "2000", "--rounds", "2"],
  },
  {
    name: "scopes",
    script: "scope_recall.ts",
    args: [],
    quick: ["--sizes", "2000", "--queries", "50"],
  },
  {
    name: "hooks",
    script: "hook_latency.ts",
    args: [],
    quick: ["--rounds", "3", "--sizes", "2000"],
  },
  { name: "hooks-quality", script: "hook_quality.ts", args: [], quick: [] },
  {
    name: "cloud-budget",
    script: "cloud_budget.ts",
    args: [],
    quick: ["--projects", "12", "--notes", "300", "--budgets", "4", "--settle", "2"],
  },
  {
    name: "cloud-cold",
    script: "cloud_cold.ts",
    args: [],
    quick: ["--sizes", "2000", "--runs", "1"],
  },
];

if (import.meta.main) await main();

async function main() {
  const argv = [...Deno.args];
  const quick = argv.includes("--quick");
  const onlyAt = argv.indexOf("--only");
  const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]?.split(",") ?? []) : undefined;
  const chosen = benches.filter((b) => !only || only.has(b.name) || only.has(b.group ?? b.name));
  const known = new Set(benches.map((b) => b.name));
  if (only && [...only].some((name) => !known.has(name))) {
    console.error(`bench: unknown name in --only; use ${benches.map((b) => b.name).join(", ")}`);
    Deno.exit(2);
  }

  await mkdir(results, { recursive: true });
  const machine = `${Deno.build.os}/${Deno.build.arch}, Deno ${Deno.version.deno}, ` +
    `${navigator.hardwareConcurrency} cores`;
  console.log(`bench: ${machine}`);
  const failed: string[] = [];
  for (const bench of chosen) {
    const json = join(results, `${bench.name}.json`);
    // Benchmarks import peers and tools that `deno.lock` leaves out (scripts/runtime_lock.ts).
    const lock = `--lock=${join(here, "..", "deno.dev.lock")}`;
    const args = [
      "run",
      "-A",
      lock,
      join(here, bench.script),
      ...(quick ? bench.quick : bench.args),
    ];
    args.push(...(bench.name === "store" ? ["--json"] : ["--json", json]));
    console.log(`\nbench: ${bench.name} (${bench.script})`);
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "inherit" })
      .spawn();
    const out = await child.output();
    const text = new TextDecoder().decode(out.stdout);
    await Deno.stdout.write(out.stdout);
    await writeFile(join(results, `${bench.name}.txt`), text);
    if (bench.name === "store") await writeFile(json, lastJsonLine(text));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`bench: ${bench.name} ${out.success ? "done" : "FAILED"} in ${seconds} s`);
    if (!out.success) failed.push(bench.name);
  }
  if (failed.length) {
    console.error(`bench: failed: ${failed.join(", ")}`);
    Deno.exit(1);
  }
}

/** store_scale.ts prints its report as the last line of JSON with `--json`. */
function lastJsonLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines.findLast((l) => l.startsWith("{")) ?? "{}";
}
