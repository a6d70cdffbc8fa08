/**
 * Stdio benchmark: `memo mcp` against the official SDK's `McpServer` over
 * `StdioServerTransport` with one trivial `echo` tool
 * (bench/stdio_sdk_peer.ts), both driven by the same SDK client
 * (`Client` over `StdioClientTransport`) in the same run. Measures:
 *
 * - cold start: spawn to the `initialize` result (median of `--starts` runs),
 *   memo on an empty project and on the 10,000-note project;
 * - `ping` round trip, p50 and p99;
 * - `tools/call`: memo `recall` on 10,000 notes against the SDK's `echo`,
 *   p50 and p99.
 *
 * Rounds alternate memo and SDK so that background load hits both alike.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/stdio_bench.ts [--notes 10000] [--starts 15] [--pings 2000] [--calls 1000] [--rounds 3] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import type { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { median, percentile } from "./_report.ts";
import { freshQuery, QUERIES, seedProject, timedConnect } from "./_stdio_kit.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    notes: { type: "string", default: "10000" },
    starts: { type: "string", default: "15" },
    pings: { type: "string", default: "2000" },
    calls: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
  },
});
const NOTES = Number(flags.notes);
const STARTS = Number(flags.starts);
const PINGS = Number(flags.pings);
const CALLS = Number(flags.calls);
const ROUNDS = Number(flags.rounds);
const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();

function log(line: string) {
  console.error(`bench: ${line}`);
}

interface Target {
  name: string;
  args: string[];
  call: { name: string; args: (i: number) => Record<string, unknown> };
  /** A second workload whose every call is new (no answer can come from a cache). */
  fresh?: (i: number) => Record<string, unknown>;
}

function memoTarget(dir: string): Target {
  return {
    name: "memo",
    args: ["run", "-A", "--quiet", `${ROOT}cli.ts`, "mcp", "--dir", dir],
    call: { name: "recall", args: (i) => ({ query: QUERIES[i % QUERIES.length], limit: 10 }) },
    fresh: (i) => ({ query: freshQuery(i), limit: 10 }),
  };
}

const sdkTarget: Target = {
  name: "sdk",
  args: ["run", "-A", "--quiet", `--lock=${ROOT}deno.dev.lock`, `${ROOT}bench/stdio_sdk_peer.ts`],
  call: { name: "echo", args: (i) => ({ text: QUERIES[i % QUERIES.length] }) },
};

function connect(target: Target): Promise<{ client: Client; ms: number; pid: number | null }> {
  return timedConnect({ command: DENO, args: target.args, cwd: ROOT });
}

async function coldStart(target: Target): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const { client, ms } = await connect(target);
    times.push(ms);
    await client.close();
  }
  return median(times);
}

async function latencies(
  count: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(200, count); i++) await fn(i); // warm-up
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await fn(i);
    times[i] = performance.now() - t;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5) * 1000, p99: percentile(sorted, 0.99) * 1000 };
}

interface RoundResult {
  coldStartMs: number;
  ping: { p50: number; p99: number };
  call: { p50: number; p99: number };
  fresh?: { p50: number; p99: number };
}

async function measure(target: Target): Promise<RoundResult> {
  const coldStartMs = await coldStart(target);
  const { client } = await connect(target);
  try {
    // The first call waits for the 10,000 notes to load; then let the heap settle.
    await client.callTool({ name: target.call.name, arguments: target.call.args(0) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const ping = await latencies(PINGS, () => client.ping());
    const call = await latencies(CALLS, async (i) => {
      const r = await client.callTool({ name: target.call.name, arguments: target.call.args(i) });
      if (r.isError) throw new Error(`${target.name}: ${JSON.stringify(r.content)}`);
    });
    const fresh = target.fresh && await latencies(CALLS, async (i) => {
      const r = await client.callTool({ name: target.call.name, arguments: target.fresh!(i) });
      if (r.isError) throw new Error(`${target.name}: ${JSON.stringify(r.content)}`);
    });
    return { coldStartMs, ping, call, fresh };
  } finally {
    await client.close();
  }
}

if (import.meta.main) await main();

async function main() {
  log(`seeding ${NOTES} notes`);
  const bigDir = await seedProject(NOTES);
  const emptyDir = await seedProject(0);
  const memoBig = memoTarget(bigDir);
  const memoEmpty = { ...memoTarget(emptyDir), name: "memo-empty" };
  const rounds: Record<string, RoundResult[]> = { memo: [], sdk: [], "memo-empty": [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const target of [memoBig, sdkTarget, memoEmpty]) {
      log(`round ${r + 1}/${ROUNDS}: ${target.name}`);
      rounds[target.name].push(
        target === memoEmpty
          ? {
            coldStartMs: await coldStart(target),
            ping: { p50: 0, p99: 0 },
            call: { p50: 0, p99: 0 },
          }
          : await measure(target),
      );
    }
  }
  const summary = (name: string) => {
    const rs = rounds[name];
    return {
      coldStartMs: median(rs.map((r) => r.coldStartMs)),
      pingP50Us: median(rs.map((r) => r.ping.p50)),
      pingP99Us: median(rs.map((r) => r.ping.p99)),
      callP50Us: median(rs.map((r) => r.call.p50)),
      callP99Us: median(rs.map((r) => r.call.p99)),
      freshP50Us: median(rs.map((r) => r.fresh?.p50 ?? 0)),
      freshP99Us: median(rs.map((r) => r.fresh?.p99 ?? 0)),
    };
  };
  const memo = summary("memo");
  const sdk = summary("sdk");
  const empty = summary("memo-empty");
  const result = {
    date: new Date().toISOString(),
    notes: NOTES,
    rounds: ROUNDS,
    memo,
    memoEmptyColdStartMs: empty.coldStartMs,
    sdk,
    ratios: {
      coldStart: memo.coldStartMs / sdk.coldStartMs,
      coldStartEmpty: empty.coldStartMs / sdk.coldStartMs,
      pingP50: memo.pingP50Us / sdk.pingP50Us,
      recallVsEchoP50: memo.callP50Us / sdk.callP50Us,
      freshRecallVsEchoP50: memo.freshP50Us / sdk.callP50Us,
    },
    raw: rounds,
  };
  const f = (n: number) => n.toFixed(0).padStart(8);
  console.log(
    [
      `| measure | memo | SDK | ratio (goal) |`,
      `|---|---:|---:|---:|`,
      `| cold start to initialize, ms (${NOTES} notes) | ${f(memo.coldStartMs)} | ${
        f(sdk.coldStartMs)
      } | ${result.ratios.coldStart.toFixed(2)} (≤ 0.5) |`,
      `| cold start to initialize, ms (empty project) | ${f(empty.coldStartMs)} | ${
        f(sdk.coldStartMs)
      } | ${result.ratios.coldStartEmpty.toFixed(2)} (≤ 0.5) |`,
      `| ping p50, µs | ${f(memo.pingP50Us)} | ${f(sdk.pingP50Us)} | ${
        result.ratios.pingP50.toFixed(2)
      } (≤ 1) |`,
      `| ping p99, µs | ${f(memo.pingP99Us)} | ${f(sdk.pingP99Us)} | |`,
      `| tools/call p50, µs (memo recall on ${NOTES} vs SDK echo) | ${f(memo.callP50Us)} | ${
        f(sdk.callP50Us)
      } | ${result.ratios.recallVsEchoP50.toFixed(2)} (≤ 2) |`,
      `| tools/call p99, µs | ${f(memo.callP99Us)} | ${f(sdk.callP99Us)} | |`,
      `| tools/call p50, µs (memo recall, every query new, vs SDK echo) | ${f(memo.freshP50Us)} | ${
        f(sdk.callP50Us)
      } | ${result.ratios.freshRecallVsEchoP50.toFixed(2)} (≤ 2) |`,
      `| tools/call p99, µs (every query new) | ${f(memo.freshP99Us)} | ${f(sdk.callP99Us)} | |`,
    ].join("\n"),
  );
  if (flags.json) await Deno.writeTextFile(flags.json, JSON.stringify(result, null, 2) + "\n");
  await Deno.remove(bigDir, { recursive: true });
  await Deno.remove(emptyDir, { recursive: true });
}
