/**
 * The hybrid runtime (issue 12) against its peers, each measured side by
 * side in the same run. One Cloud API server (`deno serve cloud/main.ts`, as
 * deployed, rate limit off) on PostgreSQL (a throwaway cluster,
 * `tests/_postgres.ts`; `--store file` for the file store) serves all three
 * parts:
 *
 * 1. **Write latency, the cloud 100 ms away.** A delaying proxy
 *    (`bench/_delay_proxy.ts`, its own process) adds `--delay` ms to every
 *    round trip to the cloud. Two writer processes (this script with
 *    `--writer`), one on a hybrid runtime (`createMemoHybridMcpRuntime`,
 *    default `pullIntervalMs`, replicating in the background through the
 *    proxy) and one on a local-only runtime
 *    (`createMemoMcpRuntimeFromConfig({ mode: "local" })`), each in its own
 *    folder, write the same notes with `remember()` one after another
 *    (`--gap-ms`: with a pause after each), in rounds of 10 that alternate
 *    (hybrid first, then local first) to cancel drift, into projects that
 *    hold `--sizes` notes already (the hybrid one replicated beforehand).
 *    p50 and p99 of each (goal: hybrid ≤ 1.2× local), the writers' CPU
 *    time, and how long after the last write the outbox reached 0.
 * 2. **Catch-up.** Machine A (a hybrid runtime) writes `--notes` notes and
 *    replicates them; then machine B starts (a fresh hybrid runtime, empty
 *    folder) and calls `replicate()` until it holds them all and a call
 *    moves nothing. The peers: reading the same notes with the change feed
 *    directly (`MemoCloudClient.changes`, pages of 1,000), and copying them
 *    with the Cloud API's batch upsert directly (`upsertBatch`, batches of
 *    1,000, into a fresh project). Over loopback and through the delaying
 *    proxy, `--rounds` rounds alternating which goes first.
 * 3. **Steady cost.** An idle hybrid `memo mcp` (`MEMO_RUNTIME=hybrid`,
 *    through the delaying proxy, on a project of `--idle-notes` notes already
 *    replicated) and an idle local-only `memo mcp` on the same notes, started
 *    together, stdin kept open, initialized, then left alone for `--idle`
 *    seconds: CPU time (utime + stime from `/proc/<pid>/stat`) over the
 *    window, and RSS (`VmRSS`) at its end.
 *
 * Run: deno run -A bench/hybrid_bench.ts [--writes 2000] [--sizes 0,10000] [--gap-ms 0]
 *        [--notes 10000] [--rounds 3]
 *        [--idle 60] [--idle-notes 1000] [--delay 100] [--store postgres|file]
 *        [--only latency,catchup,idle] [--quick] [--json out.json]
 *
 * `--quick`: 100 writes into an empty project, 2,000 notes, 1 round, 10 s idle.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  createMemoHybridMcpRuntime,
  type MemoHybridMcpRuntime,
} from "../runtimes/hybrid/runtime.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import {
  MemoCloudClient,
  type MemoCloudDraft,
  type MemoCloudNote,
} from "../runtimes/cloud/client.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { startPostgres } from "../tests/_postgres.ts";
import {
  corpus,
  cpuModel,
  DENO,
  fmt,
  freePort,
  loadAvg,
  log,
  ROOT,
  rssKiB,
  seedProject,
  waitForCloudHealth,
} from "./_http_kit.ts";
import { percentile } from "./_report.ts";
import { proxyStats } from "./_delay_proxy.ts";
import { clockTicks, LineReader, processTicks, startMcp, tail } from "./_mcp_process.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    writes: { type: "string" },
    sizes: { type: "string" },
    "gap-ms": { type: "string", default: "0" },
    warmup: { type: "string", default: "20" },
    notes: { type: "string" },
    rounds: { type: "string" },
    idle: { type: "string" },
    "idle-notes": { type: "string", default: "1000" },
    delay: { type: "string", default: "100" },
    store: { type: "string", default: "postgres" },
    only: { type: "string", default: "latency,catchup,idle" },
    quick: { type: "boolean", default: false },
    json: { type: "string" },
    // The writer processes of part 1 (this script, started by itself).
    writer: { type: "string" },
    dir: { type: "string" },
    "base-url": { type: "string" },
    project: { type: "string" },
    total: { type: "string" },
  },
});
const QUICK = flags.quick;
const WRITES = Number(flags.writes ?? (QUICK ? 100 : 2000));
const WARMUP = Number(flags.warmup);
/** Notes already in the projects the writes of part 1 go into. */
const SIZES = (flags.sizes ?? (QUICK ? "0" : "0,10000")).split(",").map(Number);
const NOTES = Number(flags.notes ?? (QUICK ? 2000 : 10000));
const ROUNDS = Number(flags.rounds ?? (QUICK ? 1 : 3));
const IDLE_S = Number(flags.idle ?? (QUICK ? 10 : 60));
const IDLE_NOTES = Number(flags["idle-notes"]);
const DELAY_MS = Number(flags.delay);
const ONLY = new Set(flags.only.split(","));
/** Pause after each write of part 1 (not timed), in ms: 0 writes back to back. */
const GAP_MS = Number(flags["gap-ms"]);
/** Writes per turn of one writer in part 1; the turns alternate. */
const ROUND_WRITES = 10;
/** Notes per batch and per feed page of the peers in part 2. */
const PEER_BATCH = 1000;

const API_KEY = "bench-key";
const WORKSPACE = "bench";
/** The goal of issue 12: hybrid write latency at most this times local-only, p50 and p99. */
const GOAL_RATIO = 1.2;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ small tools

function memTotalGiB(): number {
  const kb = Number(Deno.readTextFileSync("/proc/meminfo").match(/MemTotal:\s+(\d+)/)?.[1]);
  return Math.round(kb / 1048576);
}

/** p50, p99, mean and max of timings in ms. */
interface Latency {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/**
 * p50, p99 (nearest rank, rounding down, as `bench/_report.ts`), mean and
 * max of timings in ms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { latency } from "./hybrid_bench.ts";
 *
 * const l = latency([4, 1, 3, 2]);
 * assert.equal(l.p50, 2);
 * assert.equal(l.max, 4);
 * assert.equal(l.mean, 2.5);
 * ```
 */
export function latency(ms: readonly number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: s.length,
    p50: r(percentile(s, 0.5)),
    p99: r(percentile(s, 0.99)),
    mean: r(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)),
    max: r(s[s.length - 1] ?? NaN),
  };
}

/**
 * The median (the mean of the middle two for an even count).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { median } from "./hybrid_bench.ts";
 *
 * assert.equal(median([3, 1, 2]), 2);
 * assert.equal(median([4, 1, 3, 2]), 2.5);
 * ```
 */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function clientOf(baseUrl: string, projectId: string): MemoCloudClient {
  return new MemoCloudClient({ baseUrl, apiKey: API_KEY, workspaceId: WORKSPACE, projectId });
}

function hybridOf(rootDir: string, baseUrl: string, projectId: string): MemoHybridMcpRuntime {
  return createMemoHybridMcpRuntime({
    rootDir,
    baseUrl,
    apiKey: API_KEY,
    workspaceId: WORKSPACE,
    projectId,
  });
}

/** Calls `replicate()` until a call moves nothing and the outbox is empty. */
async function replicateUntilQuiet(
  runtime: MemoHybridMcpRuntime,
  maxCalls = 100,
): Promise<{ calls: number; pushed: number; pulled: number }> {
  let pushed = 0;
  let pulled = 0;
  for (let calls = 1; calls <= maxCalls; calls++) {
    const r = await runtime.replicate();
    pushed += r.pushed;
    pulled += r.pulled;
    if (r.pushed === 0 && r.pulled === 0 && r.outbox === 0) return { calls, pushed, pulled };
  }
  throw new Error(`replicate() still moved notes after ${maxCalls} calls`);
}

/** Every note id of a runtime. */
async function idsOf(runtime: MemoMcpRuntime): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await runtime.list({ limit: 100, cursor });
    for (const note of page.notes) ids.add(note.id);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** The notes of a project, read with the change feed (pages of 1,000). */
async function readFeed(client: MemoCloudClient): Promise<Map<string, MemoCloudNote>> {
  const notes = new Map<string, MemoCloudNote>();
  let since: string | undefined;
  while (true) {
    const page = await client.changes({ since, limit: PEER_BATCH });
    for (const c of page.changes) {
      if (c.op === "upsert") notes.set(c.id, c.note);
      else notes.delete(c.id);
    }
    since = page.next;
    if (!page.hasMore) return notes;
  }
}

// ------------------------------------------------------------------ processes

/** The Cloud API server process (`deno serve cloud/main.ts`). */
interface Cloud {
  baseUrl: string;
  pid: number;
  store: string;
  stop(): Promise<void>;
}

async function startCloud(store: string, databaseUrl: string | undefined, dataDir: string) {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "cloud/main.ts"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      MEMO_CLOUD_API_KEYS: `${API_KEY}:${WORKSPACE}`,
      MEMO_CLOUD_RATE_LIMIT: "0",
      MEMO_LOG_LEVEL: "error",
      ...(databaseUrl
        ? { MEMO_CLOUD_DATABASE_URL: databaseUrl }
        : { MEMO_CLOUD_DATA_DIR: dataDir }),
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const errors = tail(child.stderr);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForCloudHealth(baseUrl, child, () => `the cloud did not start: ${errors()}`);
  const cloud: Cloud = {
    baseUrl,
    pid: child.pid,
    store,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
  return cloud;
}

/** The delaying proxy process. */
async function startProxy(target: string, delayMs: number) {
  const child = new Deno.Command(DENO, {
    args: [
      "run",
      "-A",
      `${ROOT}bench/_delay_proxy.ts`,
      "--target",
      target,
      "--delay",
      String(delayMs),
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errors = tail(child.stderr);
  const first = await new LineReader(child.stdout).next();
  if (!first) throw new Error(`the delay proxy did not start: ${errors()}`);
  const { origin } = JSON.parse(first) as { origin: string };
  return {
    origin,
    pid: child.pid,
    stats: () => proxyStats(origin),
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** A writer process of part 1, driven by JSON lines. */
interface Writer {
  name: string;
  pid: number;
  // deno-lint-ignore no-explicit-any
  call(command: Record<string, unknown>): Promise<any>;
  stop(): Promise<void>;
}

async function startWriter(
  role: "hybrid" | "local",
  dir: string,
  total: number,
  baseUrl?: string,
  project?: string,
): Promise<Writer> {
  const args = ["run", "-A", `${ROOT}bench/hybrid_bench.ts`, "--writer", role, "--dir", dir];
  args.push("--total", String(total));
  if (baseUrl) args.push("--base-url", baseUrl, "--project", project!);
  const child = new Deno.Command(DENO, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errors = tail(child.stderr);
  const lines = new LineReader(child.stdout);
  const stdin = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const read = async () => {
    const line = await lines.next();
    if (line === null) throw new Error(`the ${role} writer ended: ${errors()}`);
    const answer = JSON.parse(line);
    if (answer.error) throw new Error(`the ${role} writer failed: ${answer.error}`);
    return answer;
  };
  await read(); // ready
  return {
    name: role,
    pid: child.pid,
    async call(command) {
      await stdin.write(encoder.encode(JSON.stringify(command) + "\n"));
      return await read();
    },
    async stop() {
      await stdin.close().catch(() => {});
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

/** The writer process's side (`--writer hybrid|local`). */
async function writerMain(): Promise<void> {
  const role = flags.writer!;
  const rootDir = flags.dir!;
  const drafts = corpus(Number(flags.total)).drafts;
  const runtime: MemoMcpRuntime = role === "hybrid"
    ? hybridOf(rootDir, flags["base-url"]!, flags.project!)
    : createMemoMcpRuntimeFromConfig({ mode: "local", rootDir });
  const send = (x: unknown) => console.log(JSON.stringify(x));
  let lastWriteEnd = performance.now();
  const replica = async () => (await runtime.stats()).replica;
  /** Polls until the outbox is empty (and a pull happened), or the timeout. */
  const drained = async (timeoutMs: number, needPull: boolean) => {
    const deadline = performance.now() + timeoutMs;
    for (let polls = 1;; polls++) {
      const r = await replica();
      if (!r) return { ok: false, reason: "stats() has no replica status", at: performance.now() };
      if (r.outbox === 0 && (!needPull || r.lastPull !== null)) {
        return { ok: true, at: performance.now(), polls, replica: r };
      }
      if (performance.now() > deadline) {
        return { ok: false, reason: `outbox ${r.outbox} after ${timeoutMs} ms`, replica: r };
      }
      await sleep(5);
    }
  };
  await runtime.stats(); // the notes loaded
  send({ ready: true });
  const lines = new LineReader(Deno.stdin.readable);
  for (let line = await lines.next(); line !== null; line = await lines.next()) {
    if (!line.trim()) continue;
    const command = JSON.parse(line);
    try {
      if (command.op === "write") {
        const ms: number[] = [];
        for (let i = command.from; i < command.from + command.n; i++) {
          const t = performance.now();
          await runtime.remember(drafts[i]);
          lastWriteEnd = performance.now();
          ms.push(lastWriteEnd - t);
          if (command.gapMs) await sleep(command.gapMs);
        }
        send({ ms });
      } else if (command.op === "settle") {
        if (role !== "hybrid") send({ ok: true });
        else {
          const t = performance.now();
          const d = await drained(command.timeoutMs ?? 60_000, true);
          send({ ...d, ms: performance.now() - t });
        }
      } else if (command.op === "drain") {
        const d = await drained(command.timeoutMs ?? 120_000, false);
        send({ ...d, drainMs: (d.at ?? performance.now()) - lastWriteEnd });
      } else if (command.op === "stats") {
        send(await runtime.stats());
      } else if (command.op === "close") {
        const t = performance.now();
        await runtime.close();
        send({ closeMs: performance.now() - t });
        return;
      }
    } catch (e) {
      send({ error: e instanceof Error ? e.message : String(e) });
    }
  }
  await runtime.close();
}

// ------------------------------------------------------------------ part 1: write latency

async function latencyPart(cloud: Cloud, tmp: string, ticksPerS: number, size: number) {
  log(
    `latency: ${WRITES} writes each (after ${WARMUP} warm-up) into projects of ${size} notes, ` +
      `the cloud ${DELAY_MS} ms away`,
  );
  const proxy = await startProxy(cloud.baseUrl, DELAY_MS);
  const project = `latency-${size}`;
  const total = size + WARMUP + WRITES;
  let hDir: string;
  let lDir: string;
  let seedReplicateMs = 0;
  if (size > 0) {
    const drafts = corpus(size).drafts;
    hDir = await seedProject(size, drafts);
    lDir = await seedProject(size, drafts);
    // Replicated beforehand, through the proxy as the writer will be (the state belongs to a URL).
    const t = performance.now();
    const seeded = hybridOf(hDir, proxy.origin, project);
    await replicateUntilQuiet(seeded);
    await seeded.close();
    seedReplicateMs = performance.now() - t;
    log(
      `latency: seeded ${size} notes each; the hybrid one replicated in ${
        Math.round(seedReplicateMs)
      } ms`,
    );
  } else {
    hDir = await Deno.makeTempDir({ dir: tmp, prefix: "latency-hybrid-" });
    lDir = await Deno.makeTempDir({ dir: tmp, prefix: "latency-local-" });
  }
  const writers: Writer[] = [];
  try {
    const h = await startWriter("hybrid", hDir, total, proxy.origin, project);
    writers.push(h);
    const l = await startWriter("local", lDir, total);
    writers.push(l);
    const firstSettle = await h.call({ op: "settle" });
    if (!firstSettle.ok) log(`latency: hybrid did not settle at start: ${firstSettle.reason}`);
    await h.call({ op: "write", from: size, n: WARMUP });
    await l.call({ op: "write", from: size, n: WARMUP });
    const settle = await h.call({ op: "settle" });
    if (!settle.ok) log(`latency: hybrid did not settle after the warm-up: ${settle.reason}`);

    const requests0 = (await proxy.stats()).requests;
    const ticks0 = { hybrid: processTicks(h.pid), local: processTicks(l.pid) };
    const ms: Record<string, number[]> = { hybrid: [], local: [] };
    const started = performance.now();
    for (let r = 0; r * ROUND_WRITES < WRITES; r++) {
      const n = Math.min(ROUND_WRITES, WRITES - r * ROUND_WRITES);
      for (const w of r % 2 === 0 ? [h, l] : [l, h]) {
        const from = size + WARMUP + r * ROUND_WRITES;
        const answer = await w.call({ op: "write", from, n, gapMs: GAP_MS });
        ms[w.name].push(...answer.ms);
      }
    }
    const writeWallMs = performance.now() - started;
    const ticks1 = { hybrid: processTicks(h.pid), local: processTicks(l.pid) };
    const drain = await h.call({ op: "drain" });
    const ticks2 = processTicks(h.pid);
    const requests1 = (await proxy.stats()).requests;
    const stats = await h.call({ op: "stats" });
    const closeH = await h.call({ op: "close" });
    await l.call({ op: "close" });

    const cloudNotes = (await clientOf(cloud.baseUrl, project).stats()).notes;
    const hybrid = latency(ms.hybrid);
    const local = latency(ms.local);
    const cpuMs = (t: number) => Math.round(t * 1000 / ticksPerS);
    return {
      projectNotes: size,
      gapMs: GAP_MS,
      seedReplicateMs: Math.round(seedReplicateMs),
      writes: WRITES,
      warmup: WARMUP,
      delayMs: DELAY_MS,
      roundWrites: ROUND_WRITES,
      hybrid,
      local,
      ratio: {
        p50: Math.round(hybrid.p50 / local.p50 * 100) / 100,
        p99: Math.round(hybrid.p99 / local.p99 * 100) / 100,
        mean: Math.round(hybrid.mean / local.mean * 100) / 100,
      },
      goalRatio: GOAL_RATIO,
      writeWallMs: Math.round(writeWallMs),
      cpuMsDuringWrites: {
        hybrid: cpuMs(ticks1.hybrid - ticks0.hybrid),
        local: cpuMs(ticks1.local - ticks0.local),
      },
      hybridCpuMsUntilDrained: cpuMs(ticks2 - ticks0.hybrid),
      drain: {
        ok: drain.ok,
        reason: drain.reason,
        // Empty at the first look: it emptied sooner than this (during the pause after the write).
        atFirstLook: drain.polls === 1,
        msAfterLastWrite: Math.round(drain.drainMs),
      },
      cloudRequests: requests1 - requests0,
      replica: stats.replica ?? null,
      closeMs: Math.round(closeH.closeMs),
      cloudNotes,
      expectedCloudNotes: total,
    };
  } finally {
    for (const w of writers) await w.stop().catch(() => {});
    await proxy.stop();
    if (size > 0) {
      await Deno.remove(hDir, { recursive: true }).catch(() => {});
      await Deno.remove(lDir, { recursive: true }).catch(() => {});
    }
  }
}

// ------------------------------------------------------------------ part 2: catch-up

async function catchUpPart(cloud: Cloud, tmp: string) {
  const drafts = corpus(NOTES).drafts;
  log(`catch-up: machine A writes ${NOTES} notes`);
  const aDir = await Deno.makeTempDir({ dir: tmp, prefix: "catchup-a-" });
  const a = hybridOf(aDir, cloud.baseUrl, "catchup");
  let t = performance.now();
  for (const d of drafts) await a.remember(d);
  const aWriteMs = performance.now() - t;
  t = performance.now();
  const aPush = await replicateUntilQuiet(a);
  const aDrainMs = performance.now() - t;
  const aIds = await idsOf(a);
  await a.close();
  const cloudNotes = (await clientOf(cloud.baseUrl, "catchup").stats()).notes;
  log(
    `catch-up: A wrote ${NOTES} in ${(aWriteMs / 1000).toFixed(1)} s; replicate() until quiet ${
      Math.round(aDrainMs)
    } ms (${aPush.calls} calls); the cloud holds ${cloudNotes}`,
  );
  if (cloudNotes !== NOTES) throw new Error(`the cloud holds ${cloudNotes} notes, not ${NOTES}`);

  const proxy = await startProxy(cloud.baseUrl, DELAY_MS);
  const conditions = [
    { name: "loopback", baseUrl: cloud.baseUrl },
    { name: `${DELAY_MS} ms away`, baseUrl: proxy.origin },
  ];
  const rows: Record<string, unknown>[] = [];
  let copies = 0;
  try {
    for (const condition of conditions) {
      const runs: { b: number[]; bAll: number[]; feed: number[]; copy: number[] } = {
        b: [],
        bAll: [],
        feed: [],
        copy: [],
      };
      let calls = 0;
      let identical = true;
      for (let r = 0; r < ROUNDS; r++) {
        const machineB = async () => {
          const dir = await Deno.makeTempDir({ dir: tmp, prefix: "catchup-b-" });
          const t0 = performance.now();
          const b = hybridOf(dir, condition.baseUrl, "catchup");
          let holdsAllMs = NaN;
          let n = 0;
          while (true) {
            const res = await b.replicate();
            n++;
            if (Number.isNaN(holdsAllMs) && (await b.stats()).notes >= NOTES) {
              holdsAllMs = performance.now() - t0;
            }
            if (res.pushed === 0 && res.pulled === 0 && res.outbox === 0) break;
            if (n > 100) throw new Error("B: replicate() still moving notes after 100 calls");
          }
          const quietMs = performance.now() - t0;
          const ids = await idsOf(b);
          await b.close();
          await Deno.remove(dir, { recursive: true });
          const same = ids.size === aIds.size && [...ids].every((id) => aIds.has(id));
          if (!same) identical = false;
          calls = n;
          runs.bAll.push(holdsAllMs);
          runs.b.push(quietMs);
          log(
            `catch-up (${condition.name}) round ${r + 1}: B holds all ${ids.size} after ${
              Math.round(holdsAllMs)
            } ms, quiet after ${Math.round(quietMs)} ms (${n} replicate() calls); ids ${
              same ? "identical to A's" : "DIFFER from A's"
            }`,
          );
        };
        const peers = async () => {
          const client = clientOf(condition.baseUrl, "catchup");
          await client.whoami();
          let t0 = performance.now();
          const notes = await readFeed(client);
          const feedMs = performance.now() - t0;
          const copyClient = clientOf(condition.baseUrl, `copy-${++copies}`);
          await copyClient.whoami();
          const all: MemoCloudDraft[] = [...notes.values()].map((n) => ({
            id: n.id,
            text: n.body,
            title: n.title,
            labels: n.labels,
            source: n.source,
            created: n.created,
            updated: n.updated,
          }));
          t0 = performance.now();
          let written = 0;
          for (let i = 0; i < all.length; i += PEER_BATCH) {
            written += (await copyClient.upsertBatch(all.slice(i, i + PEER_BATCH))).written;
          }
          const copyMs = performance.now() - t0;
          runs.feed.push(feedMs);
          runs.copy.push(copyMs);
          log(
            `catch-up (${condition.name}) round ${r + 1}: feed read ${notes.size} in ${
              Math.round(feedMs)
            } ms; batch upsert copy (${written} written) ${Math.round(copyMs)} ms`,
          );
        };
        if (r % 2 === 0) {
          await machineB();
          await peers();
        } else {
          await peers();
          await machineB();
        }
      }
      const med = (xs: number[]) => Math.round(median(xs));
      const row = {
        condition: condition.name,
        rounds: ROUNDS,
        bHoldsAllMs: runs.bAll.map(Math.round),
        bQuietMs: runs.b.map(Math.round),
        feedReadMs: runs.feed.map(Math.round),
        batchCopyMs: runs.copy.map(Math.round),
        median: {
          bHoldsAll: med(runs.bAll),
          bQuiet: med(runs.b),
          feedRead: med(runs.feed),
          batchCopy: med(runs.copy),
        },
        replicateCalls: calls,
        idsIdenticalToA: identical,
      };
      rows.push(row);
    }
  } finally {
    await proxy.stop();
  }
  return {
    notes: NOTES,
    machineA: {
      writeMs: Math.round(aWriteMs),
      writesPerS: Math.round(NOTES / (aWriteMs / 1000)),
      replicateUntilQuietMs: Math.round(aDrainMs),
      replicateCalls: aPush.calls,
      pushedByThoseCalls: aPush.pushed,
    },
    rows,
  };
}

// ------------------------------------------------------------------ part 3: steady cost

async function idlePart(cloud: Cloud, ticksPerS: number) {
  const drafts = corpus(IDLE_NOTES).drafts;
  log(`idle: seeding two projects of ${IDLE_NOTES} notes; replicating the hybrid one first`);
  const hDir = await seedProject(IDLE_NOTES, drafts);
  const lDir = await seedProject(IDLE_NOTES, drafts);
  const proxy = await startProxy(cloud.baseUrl, DELAY_MS);
  try {
    {
      // Through the proxy, as memo mcp will be: the replica's state belongs to its base URL.
      const h = hybridOf(hDir, proxy.origin, "idle");
      const pushed = await replicateUntilQuiet(h);
      await h.close();
      const inCloud = (await clientOf(cloud.baseUrl, "idle").stats()).notes;
      log(`idle: hybrid project replicated (${pushed.pushed} pushed), the cloud holds ${inCloud}`);
    }
    const hybridEnv = {
      MEMO_RUNTIME: "hybrid",
      MEMO_CLOUD_BASE_URL: proxy.origin,
      MEMO_CLOUD_API_KEY: API_KEY,
      MEMO_CLOUD_WORKSPACE_ID: WORKSPACE,
      MEMO_CLOUD_PROJECT_ID: "idle",
    };
    const spawnedAt = performance.now();
    const h = startMcp("hybrid", hDir, hybridEnv);
    const l = startMcp("local", lDir, { MEMO_RUNTIME: "local" });
    try {
      const init = {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "hybrid-bench", version: "1.0.0" },
      };
      await Promise.all([h.request("initialize", init), l.request("initialize", init)]);
      await Promise.all([
        h.notify("notifications/initialized"),
        l.notify("notifications/initialized"),
      ]);
      // A first call each, so both have loaded their notes, then time to settle.
      await Promise.all([h.request("tools/list"), l.request("tools/list")]);
      const before = await Promise.all([
        h.request("tools/call", { name: "memory_stats", arguments: {} }),
        l.request("tools/call", { name: "memory_stats", arguments: {} }),
      ]);
      await sleep(2000);
      const readyMs = performance.now() - spawnedAt;
      const start = {
        hybrid: processTicks(h.pid),
        local: processTicks(l.pid),
        rssHybrid: rssKiB(h.pid),
        rssLocal: rssKiB(l.pid),
        requests: (await proxy.stats()).requests,
        load: loadAvg(),
      };
      log(`idle: both up (${Math.round(readyMs)} ms); idle for ${IDLE_S} s`);
      await sleep(IDLE_S * 1000);
      const end = {
        hybrid: processTicks(h.pid),
        local: processTicks(l.pid),
        rssHybrid: rssKiB(h.pid),
        rssLocal: rssKiB(l.pid),
        requests: (await proxy.stats()).requests,
        load: loadAvg(),
      };
      const statsAfter = await h.request("tools/call", { name: "memory_stats", arguments: {} });
      const cpuMs = (ticks: number) => Math.round(ticks * 1000 / ticksPerS);
      const hybridCpu = cpuMs(end.hybrid - start.hybrid);
      const localCpu = cpuMs(end.local - start.local);
      return {
        notes: IDLE_NOTES,
        idleS: IDLE_S,
        delayMs: DELAY_MS,
        clockTicksPerS: ticksPerS,
        startupCpuMs: { hybrid: cpuMs(start.hybrid), local: cpuMs(start.local) },
        cpuMs: { hybrid: hybridCpu, local: localCpu },
        cpuRatio: localCpu > 0 ? Math.round(hybridCpu / localCpu * 100) / 100 : null,
        cpuPctOfOneCore: {
          hybrid: Math.round(hybridCpu / (IDLE_S * 10) * 100) / 100,
          local: Math.round(localCpu / (IDLE_S * 10) * 100) / 100,
        },
        rssMiBStart: {
          hybrid: Math.round(start.rssHybrid / 102.4) / 10,
          local: Math.round(start.rssLocal / 102.4) / 10,
        },
        rssMiBEnd: {
          hybrid: Math.round(end.rssHybrid / 102.4) / 10,
          local: Math.round(end.rssLocal / 102.4) / 10,
        },
        rssRatio: Math.round(end.rssHybrid / end.rssLocal * 100) / 100,
        cloudRequestsDuringIdle: end.requests - start.requests,
        load: { start: start.load, end: end.load },
        hybridReplicaBefore: before[0]?.structuredContent?.replica ?? null,
        hybridReplicaAfter: statsAfter?.structuredContent?.replica ?? null,
        notesSeen: {
          hybrid: before[0]?.structuredContent?.notes ?? null,
          local: before[1]?.structuredContent?.notes ?? null,
        },
      };
    } finally {
      const codes = [await h.stop(), await l.stop()];
      if (codes.some((c) => c !== 0)) log(`idle: memo mcp exit codes ${codes.join(", ")}`);
    }
  } finally {
    await proxy.stop();
    await Deno.remove(hDir, { recursive: true }).catch(() => {});
    await Deno.remove(lDir, { recursive: true }).catch(() => {});
  }
}

// ------------------------------------------------------------------ main

if (import.meta.main) {
  if (flags.writer) await writerMain();
  else await main();
}

async function main() {
  const ticksPerS = await clockTicks();
  const machine = {
    cpu: cpuModel(),
    cores: navigator.hardwareConcurrency,
    memGiB: memTotalGiB(),
    deno: Deno.version.deno,
    os: `${Deno.build.os}/${Deno.build.arch}`,
  };
  const report: Record<string, unknown> = {
    machine,
    date: new Date().toISOString(),
    store: flags.store,
    quick: QUICK,
  };
  log(
    `hybrid: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB, Deno ${machine.deno}; ` +
      `cloud on ${flags.store}, ${DELAY_MS} ms away through the proxy; load ${loadAvg()}`,
  );
  const tmp = await Deno.makeTempDir({ prefix: "memo-hybrid-bench-" });
  const pg = flags.store === "postgres" ? await startPostgres() : undefined;
  let cloud: Cloud | undefined;
  const failures: string[] = [];
  try {
    cloud = await startCloud(flags.store, pg?.url, `${tmp}/cloud-data`);
    const parts: [string, () => Promise<unknown>][] = [
      ["latency", async () => {
        const rows = [];
        for (const size of SIZES) rows.push(await latencyPart(cloud!, tmp, ticksPerS, size));
        return rows;
      }],
      ["catchup", () => catchUpPart(cloud!, tmp)],
      ["idle", () => idlePart(cloud!, ticksPerS)],
    ];
    for (const [name, run] of parts) {
      if (!ONLY.has(name)) continue;
      try {
        report[name] = await run();
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        log(`${name} FAILED: ${message}`);
        report[name] = { failed: message };
        failures.push(name);
      }
    }
  } finally {
    await cloud?.stop().catch(() => {});
    await pg?.stop();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
  printReport(report);
  if (flags.json) await Deno.writeTextFile(flags.json, JSON.stringify(report, null, 2) + "\n");
  if (failures.length) Deno.exit(1);
}

// deno-lint-ignore no-explicit-any
function printReport(r: any): void {
  const out: string[] = [];
  const m = r.machine;
  out.push(
    `\nhybrid (issue 12) — ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}, Deno ${m.deno}; ` +
      `cloud: cloud/main.ts on ${r.store === "postgres" ? "PostgreSQL" : "the file store"}`,
  );
  const ms = (x: number) => fmt(x, x < 10 ? 2 : 1);
  const x = (v: number) => Number.isFinite(v) ? `${v.toFixed(2)}×` : "-";
  if (r.latency?.failed) out.push(`\n1. write latency: FAILED: ${r.latency.failed}`);
  else if (r.latency) {
    for (const l of r.latency) {
      const met = (v: number) => (v <= l.goalRatio ? "met" : "MISSED");
      out.push(
        `\n1. write latency, remember(), ${l.writes} writes each into a project of ${l.projectNotes} notes, ` +
          (l.gapMs ? `one every ${l.gapMs} ms (plus the write), ` : "back to back, ") +
          `the cloud ${l.delayMs} ms away (rounds of ${l.roundWrites}, alternating)`,
      );
      out.push(`   runtime        p50 ms   p99 ms   mean ms   max ms   CPU during the writes`);
      for (const [name, t] of [["hybrid", l.hybrid], ["local-only", l.local]] as const) {
        const cpu = name === "hybrid" ? l.cpuMsDuringWrites.hybrid : l.cpuMsDuringWrites.local;
        out.push(
          `   ${name.padEnd(12)}  ${ms(t.p50).padStart(7)}  ${ms(t.p99).padStart(7)}  ${
            ms(t.mean).padStart(8)
          }  ${ms(t.max).padStart(7)}   ${cpu} ms`,
        );
      }
      out.push(
        `   hybrid ÷ local: p50 ${x(l.ratio.p50)} (${met(l.ratio.p50)}), p99 ${x(l.ratio.p99)} (${
          met(l.ratio.p99)
        }), mean ${x(l.ratio.mean)}; goal ≤ ${l.goalRatio}×`,
      );
      out.push(
        `   outbox 0 ${
          l.drain.ok
            ? `${
              l.drain.atFirstLook ? "≤ " : ""
            }${l.drain.msAfterLastWrite} ms after the last write`
            : `NOT reached: ${l.drain.reason}`
        }; ${l.cloudRequests} requests to the cloud during the writes and the drain; ` +
          `hybrid CPU until drained ${l.hybridCpuMsUntilDrained} ms; close() ${l.closeMs} ms; ` +
          `the cloud holds ${l.cloudNotes} of ${l.expectedCloudNotes}`,
      );
    }
  }
  if (r.catchup?.failed) out.push(`\n2. catch-up: FAILED: ${r.catchup.failed}`);
  else if (r.catchup) {
    const c = r.catchup;
    out.push(
      `\n2. catch-up of ${c.notes} notes (machine A wrote them in ${
        fmt(c.machineA.writeMs / 1000, 1)
      } s, ` +
        `${c.machineA.writesPerS} writes/s; replicate() until quiet after: ${c.machineA.replicateUntilQuietMs} ms)`,
    );
    out.push(
      `   condition       B holds all   B quiet   feed read   batch copy   B÷copy   B÷feed   (medians of ${
        c.rows[0]?.rounds ?? 0
      })`,
    );
    for (const row of c.rows) {
      const md = row.median;
      out.push(
        `   ${row.condition.padEnd(14)} ${`${md.bHoldsAll} ms`.padStart(11)}  ${
          `${md.bQuiet} ms`.padStart(8)
        }  ${`${md.feedRead} ms`.padStart(10)}  ${`${md.batchCopy} ms`.padStart(11)}  ${
          x(md.bQuiet / md.batchCopy).padStart(7)
        }  ${x(md.bQuiet / md.feedRead).padStart(7)}   ids ${
          row.idsIdenticalToA ? "identical" : "DIFFER"
        }; ${row.replicateCalls} replicate() calls`,
      );
    }
  }
  if (r.idle?.failed) out.push(`\n3. steady cost: FAILED: ${r.idle.failed}`);
  else if (r.idle) {
    const i = r.idle;
    out.push(
      `\n3. steady cost: idle memo mcp, ${i.notes} notes, ${i.idleS} s, both at once (the cloud ${i.delayMs} ms away)`,
    );
    out.push(`   runtime       CPU over the window   of one core   RSS at the end   start-up CPU`);
    for (const k of ["hybrid", "local"]) {
      out.push(
        `   ${k.padEnd(12)} ${`${i.cpuMs[k]} ms`.padStart(20)}  ${
          `${fmt(i.cpuPctOfOneCore[k], 2)}%`.padStart(12)
        }  ${`${fmt(i.rssMiBEnd[k], 1)} MiB`.padStart(15)}  ${
          `${i.startupCpuMs[k]} ms`.padStart(13)
        }`,
      );
    }
    out.push(
      `   hybrid ÷ local: CPU ${i.cpuRatio === null ? "-" : x(i.cpuRatio)}, RSS ${
        x(i.rssRatio)
      }; ` +
        `${i.cloudRequestsDuringIdle} cloud requests in the window; replica at the end: ${
          JSON.stringify(i.hybridReplicaAfter)
        }`,
    );
  }
  console.log(out.join("\n"));
}
