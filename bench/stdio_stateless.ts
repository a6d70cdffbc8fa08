/**
 * Stdio benchmark of MCP 2026-07-28 (the stateless revision):
 * `memo mcp` against the official SDK v2's `serveStdio` with one `echo` tool
 * (bench/peers/sdk_v2_stdio.ts), both driven by the same client code in the
 * same run: a plain newline-delimited JSON-RPC client in this file, so that
 * nothing but the servers differs (the SDK v2 client would probe each server
 * in a second process first). Every request carries the stateless `_meta`
 * (`io.modelcontextprotocol/protocolVersion`, `clientCapabilities`,
 * `clientInfo`). Measures:
 *
 * - cold start: spawn to the answer to a stateless `server/discover` (median of
 *   `--starts` runs), memo on the 10,000-note project and on an empty one;
 * - `tools/list` round trip, p50 and p99 (the stateless revision has no `ping`);
 * - `tools/call` round trip, p50 and p99: memo `recall` on 10,000 notes (8
 *   queries in turn, and every query new) against the SDK's `echo`.
 *
 * The notes are those of `bench/stdio_bench.ts` (a dense 48-word vocabulary,
 * the worst case for BM25). Rounds alternate memo and SDK so that background
 * load hits both alike.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/stdio_stateless.ts [--notes 10000] [--starts 15] [--calls 1000] [--rounds 3] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { checkGoals, median, percentile } from "./_report.ts";
import { freshQuery, QUERIES, seedProject } from "./_stdio_kit.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    notes: { type: "string", default: "10000" },
    starts: { type: "string", default: "15" },
    calls: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    json: { type: "string" },
  },
});
const NOTES = Number(flags.notes);
const STARTS = Number(flags.starts);
const CALLS = Number(flags.calls);
const ROUNDS = Number(flags.rounds);
const ROOT = new URL("..", import.meta.url).pathname;

/** The `_meta` every stateless request carries. */
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "memo-bench", version: "1.0.0" },
};

function log(line: string) {
  console.error(`bench: ${line}`);
}

// deno-lint-ignore no-explicit-any -- JSON-RPC answers, checked where used
type Answer = any;

/**
 * A newline-delimited JSON-RPC client over a child's stdin and stdout: one
 * line per request, answers matched by id, anything else (notifications)
 * ignored.
 */
class LineClient {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, (answer: Answer) => void>();
  #nextId = 1;
  #encoder = new TextEncoder();
  #done: Promise<void>;

  constructor(args: string[]) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#done = this.#read();
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const text of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line);
        const resolve = this.#pending.get(message.id);
        if (resolve !== undefined && !("method" in message)) {
          this.#pending.delete(message.id);
          resolve(message);
        }
      }
    }
    for (const resolve of this.#pending.values()) resolve({ error: { message: "exited" } });
  }

  /** Sends a stateless request; resolves with its result, throws on a JSON-RPC error. */
  async request(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
    const id = this.#nextId++;
    const answer = new Promise<Answer>((resolve) => this.#pending.set(id, resolve));
    const line = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: META },
    });
    await this.#writer.write(this.#encoder.encode(line + "\n"));
    const message = await answer;
    if (message.error || message.result?.resultType !== "complete" || message.result.isError) {
      throw new Error(`${method}: ${JSON.stringify(message).slice(0, 300)}`);
    }
    return message.result;
  }

  /** Closes stdin and waits for the child to exit (killed after 5 s). */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 5000);
    await this.#child.status;
    clearTimeout(timer);
    await this.#done;
  }
}

interface Target {
  name: string;
  args: string[];
  call: { name: string; args: (i: number) => Record<string, unknown> };
  /** A second workload whose every call is new (no answer can come from a cache). */
  fresh?: (i: number) => Record<string, unknown>;
}

function memoTarget(name: string, dir: string): Target {
  return {
    name,
    args: ["run", "-A", "--quiet", `${ROOT}cli.ts`, "mcp", "--dir", dir],
    call: { name: "recall", args: (i) => ({ query: QUERIES[i % QUERIES.length], limit: 10 }) },
    fresh: (i) => ({ query: freshQuery(i), limit: 10 }),
  };
}

const sdkTarget: Target = {
  name: "sdk-v2",
  args: [
    "run",
    "-A",
    "--quiet",
    `--lock=${ROOT}deno.dev.lock`,
    `${ROOT}bench/peers/sdk_v2_stdio.ts`,
  ],
  call: { name: "echo", args: (i) => ({ text: QUERIES[i % QUERIES.length] }) },
};

/** Spawn to the answer of a stateless `server/discover`, median of `STARTS`, in ms. */
async function coldStart(target: Target): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const client = new LineClient(target.args);
    const discovered = await client.request("server/discover");
    times.push(performance.now() - started);
    if (!discovered.supportedVersions?.includes("2026-07-28")) {
      throw new Error(`${target.name}: ${JSON.stringify(discovered).slice(0, 300)}`);
    }
    await client.close();
  }
  return median(times);
}

interface Latency {
  p50: number;
  p99: number;
}

/** Round trips of `fn`, in µs, after a warm-up of up to 200 calls. */
async function latencies(count: number, fn: (i: number) => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < Math.min(200, count); i++) await fn(i);
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await fn(i);
    times[i] = performance.now() - t;
  }
  times.sort();
  return { p50: percentile(times, 0.5) * 1000, p99: percentile(times, 0.99) * 1000 };
}

interface RoundResult {
  coldStartMs: number;
  list?: Latency;
  call?: Latency;
  fresh?: Latency;
}

async function measure(target: Target): Promise<RoundResult> {
  const coldStartMs = await coldStart(target);
  const client = new LineClient(target.args);
  try {
    await client.request("server/discover");
    // The first call waits for the notes to load; then let the heap settle.
    await client.request("tools/call", { name: target.call.name, arguments: target.call.args(0) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const list = await latencies(CALLS, () => client.request("tools/list"));
    const call = await latencies(
      CALLS,
      (i) =>
        client.request("tools/call", { name: target.call.name, arguments: target.call.args(i) }),
    );
    const fresh = target.fresh && await latencies(
      CALLS,
      (i) => client.request("tools/call", { name: target.call.name, arguments: target.fresh!(i) }),
    );
    return { coldStartMs, list, call, fresh };
  } finally {
    await client.close();
  }
}

if (import.meta.main) await main();

async function main() {
  log(`seeding ${NOTES} notes`);
  const bigDir = await seedProject(NOTES);
  const emptyDir = await seedProject(0);
  const memo = memoTarget("memo", bigDir);
  const memoEmpty = memoTarget("memo-empty", emptyDir);
  const rounds: Record<string, RoundResult[]> = { memo: [], "sdk-v2": [], "memo-empty": [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const target of [memo, sdkTarget, memoEmpty]) {
        log(`round ${r + 1}/${ROUNDS}: ${target.name}`);
        rounds[target.name].push(
          target === memoEmpty ? { coldStartMs: await coldStart(target) } : await measure(target),
        );
      }
    }
  } finally {
    await Deno.remove(bigDir, { recursive: true });
    await Deno.remove(emptyDir, { recursive: true });
  }
  const of = (name: string, pick: (r: RoundResult) => number | undefined) =>
    median(rounds[name].map((r) => pick(r) ?? NaN));
  const summary = (name: string) => ({
    coldStartMs: of(name, (r) => r.coldStartMs),
    listP50Us: of(name, (r) => r.list?.p50),
    listP99Us: of(name, (r) => r.list?.p99),
    callP50Us: of(name, (r) => r.call?.p50),
    callP99Us: of(name, (r) => r.call?.p99),
    freshP50Us: of(name, (r) => r.fresh?.p50),
    freshP99Us: of(name, (r) => r.fresh?.p99),
  });
  const m = summary("memo");
  const s = summary("sdk-v2");
  const emptyColdStartMs = of("memo-empty", (r) => r.coldStartMs);
  const ratio = (v: number) => `${v.toFixed(2)}×`;
  const goals = checkGoals([
    {
      goal: `cold start to server/discover (${NOTES} notes) ≤ 0.5× SDK v2`,
      value: m.coldStartMs / s.coldStartMs,
      atMost: 0.5,
      shown: ratio,
    },
    {
      goal: "cold start to server/discover (empty project) ≤ 0.5× SDK v2",
      value: emptyColdStartMs / s.coldStartMs,
      atMost: 0.5,
      shown: ratio,
    },
    {
      goal: `tools/call p50, recall (${NOTES} notes, 8 queries in turn) ≤ 2× SDK v2 echo`,
      value: m.callP50Us / s.callP50Us,
      atMost: 2,
      shown: ratio,
    },
    {
      goal: `tools/call p50, recall (${NOTES} notes, every query new) ≤ 2× SDK v2 echo`,
      value: m.freshP50Us / s.callP50Us,
      atMost: 2,
      shown: ratio,
    },
  ]);
  const f = (n: number) => Number.isFinite(n) ? n.toFixed(0) : "-";
  console.log(
    [
      `\nmachine: ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
      `${ROUNDS} round(s), medians; ${STARTS} starts, ${CALLS} calls each\n`,
      `| measure | memo | SDK v2 | memo ÷ SDK |`,
      `|---|---:|---:|---:|`,
      `| cold start to server/discover, ms (${NOTES} notes) | ${f(m.coldStartMs)} | ${
        f(s.coldStartMs)
      } | ${(m.coldStartMs / s.coldStartMs).toFixed(2)} |`,
      `| cold start to server/discover, ms (empty project) | ${f(emptyColdStartMs)} | ${
        f(s.coldStartMs)
      } | ${(emptyColdStartMs / s.coldStartMs).toFixed(2)} |`,
      `| tools/list p50 / p99, µs | ${f(m.listP50Us)} / ${f(m.listP99Us)} | ${f(s.listP50Us)} / ${
        f(s.listP99Us)
      } | ${(m.listP50Us / s.listP50Us).toFixed(2)} |`,
      `| tools/call p50 / p99, µs: recall (8 queries in turn) vs echo | ${f(m.callP50Us)} / ${
        f(m.callP99Us)
      } | ${f(s.callP50Us)} / ${f(s.callP99Us)} | ${(m.callP50Us / s.callP50Us).toFixed(2)} |`,
      `| tools/call p50 / p99, µs: recall (every query new) vs echo | ${f(m.freshP50Us)} / ${
        f(m.freshP99Us)
      } | ${f(s.callP50Us)} / ${f(s.callP99Us)} | ${(m.freshP50Us / s.callP50Us).toFixed(2)} |`,
      "",
      "| goal (the stdio goals of bench/README.md) | measured | met |",
      "|---|---:|---|",
      ...goals.map((g) => `| ${g.goal} | ${g.measured} | ${g.met} |`),
    ].join("\n"),
  );
  if (flags.json) {
    const result = {
      date: new Date().toISOString(),
      notes: NOTES,
      rounds: ROUNDS,
      memo: m,
      memoEmptyColdStartMs: emptyColdStartMs,
      sdkV2: s,
      goals,
      raw: rounds,
    };
    await Deno.writeTextFile(flags.json, JSON.stringify(result, null, 2) + "\n");
  }
}
