/**
 * memo's HTTP endpoint against the ceiling, in both protocol eras and on both hosts, in one run
 * (issue 34): the share of a bare server's requests per second that memo reaches when both send
 * the very same answer.
 *
 * - **memo on Deno**: `deno serve http.ts` on a small project (200 English-like notes);
 * - **memo on Node**: the npm build (`scripts/build_npm.ts`, installed from the built folders into
 *   an empty project), `node …/@memo/mcp-server/cli.js serve`: `node:http` through memo's Node
 *   adapter (`platform/_node_serve.ts`), its request log on (to a pipe nobody reads, as a service
 *   manager's would be);
 * - **bare**, the ceiling, on the same host: `bench/peers/bare_answers.mjs`, a bare `Deno.serve`
 *   (or a bare `node:http` server) that reads and parses the body and answers what memo answered to
 *   the same request — status, headers in order and body, captured from memo on the wire at the
 *   start of the run and checked to be identical before the load;
 * - **SDK v1** (`@modelcontextprotocol/sdk`, its stateless Streamable HTTP server with Express, as
 *   its README builds it; `bench/peers/sdk_stateless.mjs`) under Node and under Deno, and **SDK v2**
 *   (`@modelcontextprotocol/server`, `createMcpHandler`) on `Deno.serve` (`bench/peers/sdk_v2_http.ts`)
 *   and under Node through the SDK's own Node adapter, `@modelcontextprotocol/node`'s
 *   `toNodeHandler` on `node:http` (`bench/peers/sdk_v2_node.mjs`): the same `tools/list` of the
 *   era each speaks (their lists are one `echo` tool).
 *
 * Workloads, each era with its own headers: `tools/list`, `ping` and `tools/call recall` (one
 * query) in the session era (`MCP-Protocol-Version: 2025-11-25`); `tools/list`,
 * `server/discover` (2026-07-28 removes `ping`: a stateless `ping` is -32601, HTTP 404; discover is
 * the revision's smallest request) and `tools/call recall` in the stateless era (2026-07-28, with
 * its `_meta` and `Mcp-Method`/`Mcp-Name` headers).
 *
 * Load: `wrk -t1 -c32 -d8s` by default, POSTing the same request; in each round, for each
 * workload, memo and its ceiling run back to back, so that what else the machine does hits both
 * alike; the report gives each round's ratio and their median. Then, for `tools/call recall` on
 * Deno, the timers: `bench/peers/memo_timed.ts` (memo's endpoint with timers around the handler
 * and around the runtime's `recall`) and the bare peer's own handler timer, under the same load:
 * memo's time per request outside `recall` ÷ the bare request's time (and ÷ memo's own smallest
 * request of the era, `ping` or `server/discover`, timed the same way), and the same over the whole
 * process: memo's CPU a request (from `/proc`) less its time in `recall`, ÷ the bare server's CPU a
 * request.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/http_ceiling.ts [--duration 8] [--warmup 2] [--rounds 3] [--threads 1]
 * [--connections 32] [--notes 200] [--hosts deno,node] [--peers sdk-v1,sdk-v2] [--npm DIR]
 * [--workloads KEYS] [--timers on|off] [--json out.json]
 *
 * `--workloads session/list,stateless/list,…` runs only those (keys: `session/list`,
 * `session/ping`, `session/recall`, `stateless/list`, `stateless/discover`, `stateless/recall`);
 * `--timers off` leaves out the timers. `--npm DIR` reuses a build of `scripts/build_npm.ts --out DIR` instead of building one; `--peers
 * ""` leaves the SDKs out.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  contentHeaders,
  corpus,
  cpuModel,
  cpuMs,
  denoServeArgs,
  fmt,
  freePort,
  httpWorkloads,
  installNodePeer,
  loadAvg,
  log,
  luaScript,
  type RawAnswer,
  rawPost,
  requireWrk,
  ROOT,
  seedProject,
  startTarget,
  type Target,
  type Workload,
  wrk,
  type WrkResult,
} from "./_http_kit.ts";
import { buildNpm, installApp } from "./_npm_kit.ts";
import { median } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    connections: { type: "string", default: "32" },
    notes: { type: "string", default: "200" },
    hosts: { type: "string", default: "deno,node" },
    peers: { type: "string", default: "sdk-v1,sdk-v2" },
    npm: { type: "string" },
    workloads: { type: "string" },
    timers: { type: "string", default: "on" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const ROUNDS = Number(flags.rounds);
const THREADS = Number(flags.threads);
const CONNECTIONS = Number(flags.connections);
const NOTES = Number(flags.notes);
const HOSTS = flags.hosts.split(",").filter(Boolean) as ("deno" | "node")[];
const PEERS = new Set(flags.peers.split(",").filter(Boolean));
const WORKLOADS = flags.workloads?.split(",");

/** The byte-for-byte answer file of the bare peer. */
function answersFile(captured: Map<string, RawAnswer>, list: Workload[]): string {
  return JSON.stringify({
    answers: list.map((w) => {
      const a = captured.get(w.key)!;
      return {
        version: w.headers["MCP-Protocol-Version"],
        method: w.method,
        status: a.status,
        headers: contentHeaders(a),
        body: a.body,
      };
    }),
  });
}

function sameAnswer(a: RawAnswer, b: RawAnswer): boolean {
  return a.status === b.status && a.body === b.body &&
    JSON.stringify(contentHeaders(a)) === JSON.stringify(contentHeaders(b));
}

interface Row extends WrkResult {
  /** The server process's CPU time per request, in microseconds (user + system, from `/proc`). */
  cpuUs: number;
  round: number;
  host: string;
  target: string;
  key: string;
  loadavg: string;
}

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  log(`seeding ${NOTES} notes`);
  const { drafts, queries } = corpus(NOTES);
  const project = await seedProject(NOTES, drafts);
  const all = httpWorkloads(queries[0]);
  const list = all.filter((w) => !WORKLOADS || WORKLOADS.includes(w.key));
  const scripts = new Map<string, string>();
  // Every workload's script: the timers load memo's smallest request of an era even when
  // --workloads leaves it out.
  for (const w of all) scripts.set(w.key, await luaScript([w.body], w.headers));
  const temp = await Deno.makeTempDir({ prefix: "memo-ceiling-" });

  let nodeBin: string | undefined;
  if (HOSTS.includes("node")) {
    let out = flags.npm;
    if (out === undefined) {
      log("building the npm packages (scripts/build_npm.ts)");
      out = join(temp, "npm");
      await buildNpm(ROOT, out);
    }
    log("installing them into an empty project (npm install --install-links)");
    nodeBin = await installApp(join(temp, "app"), out);
  }

  const startMemo = (host: "deno" | "node", port: number): Promise<Target> =>
    host === "deno"
      ? startTarget("memo", denoServeArgs(port), { MEMO_ROOT_DIR: project }, port)
      : startTarget(
        "memo",
        [nodeBin!, "serve", "--dir", project, "--host", "127.0.0.1", "--port", String(port)],
        {},
        port,
        "node",
      );
  const startBare = (host: "deno" | "node", port: number, file: string): Promise<Target> =>
    host === "deno"
      ? startTarget(
        "bare",
        ["run", "-A", "bench/peers/bare_answers.mjs", String(port), file],
        {},
        port,
      )
      : startTarget("bare", ["bench/peers/bare_answers.mjs", String(port), file], {}, port, "node");

  const rows: Row[] = [];
  const timerRows: Record<string, unknown>[] = [];
  const run = async (host: string, target: string, t: Target, w: Workload, round: number) => {
    const script = scripts.get(w.key)!;
    await wrk(t.url, script, WARMUP, CONNECTIONS, THREADS);
    const loadavg = loadAvg();
    const cpuBefore = cpuMs(t.pid);
    const r = await wrk(t.url, script, DURATION, CONNECTIONS, THREADS);
    const cpuUs = ((cpuMs(t.pid) - cpuBefore) * 1000) / r.requests;
    rows.push({ round, host, target, key: w.key, loadavg, cpuUs, ...r });
    log(
      `round ${round} ${host} ${target} ${w.label}: ${fmt(r.rps)} req/s, p50 ${
        fmt(r.p50ms, 2)
      } ms, ` +
        `p99 ${fmt(r.p99ms, 2)} ms, CPU ${fmt(cpuUs, 1)} µs/request, errors ${r.errors} ` +
        `(load ${loadavg})`,
    );
  };

  try {
    for (const host of HOSTS) {
      // memo's answers on the wire, for the ceiling.
      const captured = new Map<string, RawAnswer>();
      let memo = await startMemo(host, freePort());
      try {
        for (const w of list) {
          const answer = await rawPost(memo.url, w.headers, w.body);
          if (answer.status !== 200 || !JSON.parse(answer.body).result) {
            throw new Error(
              `memo (${host}) ${w.label}: ${answer.status} ${answer.body.slice(0, 200)}`,
            );
          }
          captured.set(w.key, answer);
        }
      } finally {
        await memo.stop();
      }
      const file = join(temp, `answers-${host}.json`);
      await Deno.writeTextFile(file, answersFile(captured, list));

      for (let round = 1; round <= ROUNDS; round++) {
        memo = await startMemo(host, freePort());
        const bare = await startBare(host, freePort(), file);
        try {
          for (const w of list) {
            const [m, b] = [
              await rawPost(memo.url, w.headers, w.body),
              await rawPost(bare.url, w.headers, w.body),
            ];
            if (!sameAnswer(m, b)) {
              throw new Error(
                `bare (${host}) ${w.label}: not memo's answer:\n` +
                  `${JSON.stringify(contentHeaders(m))}\n${JSON.stringify(contentHeaders(b))}`,
              );
            }
            await run(host, "memo", memo, w, round);
            await run(host, "bare", bare, w, round);
          }
        } finally {
          await memo.stop();
          await bare.stop();
        }
      }

      if (host === "deno" && flags.timers === "on") {
        // The timers: time per request outside recall, memo against bare, at the same load.
        for (const w of list.filter((w) => w.method === "tools/call")) {
          for (let round = 1; round <= ROUNDS; round++) {
            const port = freePort();
            const timed = await startTarget(
              "memo-timed",
              ["run", "-A", "bench/peers/memo_timed.ts", String(port), project],
              {},
              port,
            );
            const bare = await startBare(host, freePort(), file);
            try {
              const read = async (t: Target, script: string) => {
                await wrk(t.url, script, WARMUP, CONNECTIONS, THREADS);
                await (await fetch(`${t.url}/__timers?reset`)).body?.cancel();
                const cpuBefore = cpuMs(t.pid);
                const r = await wrk(t.url, script, DURATION, CONNECTIONS, THREADS);
                // The whole process's CPU a request (Deno's own HTTP work included), in ms.
                const cpuPerRequest = (cpuMs(t.pid) - cpuBefore) / Math.max(1, r.requests);
                const timers = await (await fetch(`${t.url}/__timers`)).json();
                return { r, timers, cpuPerRequest };
              };
              const m = await read(timed, scripts.get(w.key)!);
              const b = await read(bare, scripts.get(w.key)!);
              // memo's own smallest request of the era (ping; server/discover in 2026-07-28).
              const small = all.find((s) =>
                s.era === w.era && s.method !== "tools/call" &&
                s.method !== "tools/list"
              );
              const p = small && await read(timed, scripts.get(small.key)!);
              const outside = (m.timers.handlerMs - m.timers.recallMs) / m.timers.requests;
              const bareMs = b.timers.handlerMs / b.timers.requests;
              const memoSmallMs = p ? p.timers.handlerMs / p.timers.requests : NaN;
              const recallMs = m.timers.recallMs / Math.max(1, m.timers.recalls);
              // The same over the whole process: memo's CPU a request less its recall, ÷ the bare
              // server's CPU a request.
              const processRatio = (m.cpuPerRequest - recallMs) / b.cpuPerRequest;
              timerRows.push({
                round,
                key: w.key,
                memoRps: m.r.rps,
                bareRps: b.r.rps,
                memoHandlerMs: m.timers.handlerMs / m.timers.requests,
                recallMs,
                outsideMs: outside,
                bareMs,
                ratio: outside / bareMs,
                memoSmallMs,
                smallRatio: outside / memoSmallMs,
                memoCpuMs: m.cpuPerRequest,
                bareCpuMs: b.cpuPerRequest,
                processRatio,
              });
              log(
                `timers round ${round} ${w.label}: memo ${fmt(m.r.rps)} req/s, outside recall ` +
                  `${outside.toFixed(3)} ms (recall ${recallMs.toFixed(3)} ms); bare ${
                    fmt(b.r.rps)
                  } req/s, ${bareMs.toFixed(3)} ms: ${
                    (outside / bareMs).toFixed(2)
                  }×; memo's ${small?.method} ${memoSmallMs.toFixed(3)} ms: ${
                    (outside / memoSmallMs).toFixed(2)
                  }×; whole process ${processRatio.toFixed(2)}×`,
              );
            } finally {
              await timed.stop();
              await bare.stop();
            }
          }
        }
      }
    }

    // The SDKs, for the table: the tools/list of the era each speaks.
    const peers: {
      name: string;
      host: string;
      key: string;
      start: (p: number) => Promise<Target>;
    }[] = [];
    if (PEERS.has("sdk-v1")) {
      const dir = await installNodePeer();
      for (const host of HOSTS) {
        peers.push({
          name: "sdk-v1",
          host,
          key: "session/list",
          start: (p) =>
            host === "node"
              ? startTarget("sdk-v1", ["sdk_stateless.mjs", String(p)], {}, p, "node", dir)
              : startTarget(
                "sdk-v1",
                ["run", "-A", "sdk_stateless.mjs", String(p)],
                {},
                p,
                undefined,
                dir,
              ),
        });
      }
    }
    if (PEERS.has("sdk-v2")) {
      // On Deno its fetch handler on Deno.serve; on Node the SDK's own Node adapter.
      const dir = HOSTS.includes("node") ? await installNodePeer() : "";
      for (const host of HOSTS) {
        peers.push({
          name: "sdk-v2",
          host,
          key: "stateless/list",
          start: (p) =>
            host === "node"
              ? startTarget("sdk-v2", ["sdk_v2_node.mjs", String(p)], {}, p, "node", dir)
              : startTarget(
                "sdk-v2",
                ["run", "-A", "--lock=deno.dev.lock", "bench/peers/sdk_v2_http.ts", String(p)],
                {},
                p,
              ),
        });
      }
    }
    for (const peer of peers) {
      for (let round = 1; round <= ROUNDS; round++) {
        const t = await peer.start(freePort());
        try {
          await run(peer.host, peer.name, t, list.find((w) => w.key === peer.key)!, round);
        } finally {
          await t.stop();
        }
      }
    }
  } finally {
    await Deno.remove(project, { recursive: true }).catch(() => {});
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    for (const file of scripts.values()) await Deno.remove(file).catch(() => {});
  }

  report(list, rows, timerRows);
}

function report(list: Workload[], rows: Row[], timerRows: Record<string, unknown>[]) {
  const of = (host: string, target: string, key: string) =>
    rows.filter((r) => r.host === host && r.target === target && r.key === key);
  console.log(
    `\nmachine: ${cpuModel()}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
      `wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s; ${ROUNDS} round(s); ${NOTES} notes\n`,
  );
  console.log(
    "| host | workload | memo req/s | bare req/s | memo ÷ bare (per round) | median | memo p99 ms | bare p99 ms | p99 ÷ bare | CPU µs/req memo / bare | bare ÷ memo CPU (median of rounds) |",
  );
  console.log("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|");
  const summary: Record<string, unknown>[] = [];
  for (const host of HOSTS) {
    for (const w of list) {
      const m = of(host, "memo", w.key);
      const b = of(host, "bare", w.key);
      if (!m.length || !b.length) continue;
      const ratios = m.map((r, i) => r.rps / b[i].rps);
      const share = median(ratios);
      const p99 = median(m.map((r) => r.p99ms));
      const bareP99 = median(b.map((r) => r.p99ms));
      const cpu = median(m.map((r) => r.cpuUs));
      const bareCpu = median(b.map((r) => r.cpuUs));
      // Per round, like the rates: the CPU a request costs moves with the machine's load too.
      const cpuShare = median(m.map((r, i) => b[i].cpuUs / r.cpuUs));
      summary.push({ host, key: w.key, share, ratios, p99, bareP99, cpu, bareCpu, cpuShare });
      console.log(
        `| ${host} | ${w.label} | ${fmt(median(m.map((r) => r.rps)))} | ${
          fmt(median(b.map((r) => r.rps)))
        } | ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(" ")} | **${
          (share * 100).toFixed(0)
        }%** | ${fmt(p99, 2)} | ${fmt(bareP99, 2)} | ${(p99 / bareP99).toFixed(2)} | ${
          fmt(cpu, 1)
        } / ${fmt(bareCpu, 1)} | ${(cpuShare * 100).toFixed(0)}% |`,
      );
    }
  }
  const peerRows = rows.filter((r) => r.target.startsWith("sdk"));
  if (peerRows.length) {
    console.log("\n| host | peer | workload | req/s (median) | p99 ms |\n|---|---|---|---:|---:|");
    const seen = new Set<string>();
    for (const r of peerRows) {
      const id = `${r.host}/${r.target}/${r.key}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const same = of(r.host, r.target, r.key);
      const w = list.find((w) => w.key === r.key)!;
      console.log(
        `| ${r.host} | ${r.target} | ${w.label} | ${fmt(median(same.map((s) => s.rps)))} | ${
          fmt(median(same.map((s) => s.p99ms)), 2)
        } |`,
      );
    }
  }
  if (timerRows.length) {
    console.log(
      "\n| workload | round | memo req/s | bare req/s | memo in handler ms | recall ms | outside recall ms | bare ms | outside ÷ bare | memo's ping/discover ms | outside ÷ that | CPU ms/req memo / bare | whole process: (memo CPU − recall) ÷ bare CPU |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const t of timerRows as Record<string, number & string>[]) {
      console.log(
        `| ${t.key} | ${t.round} | ${fmt(t.memoRps)} | ${fmt(t.bareRps)} | ${
          fmt(t.memoHandlerMs, 3)
        } | ${fmt(t.recallMs, 3)} | ${fmt(t.outsideMs, 3)} | ${fmt(t.bareMs, 3)} | ${
          fmt(t.ratio, 2)
        } | ${fmt(t.memoSmallMs, 3)} | ${fmt(t.smallRatio, 2)} | ${fmt(t.memoCpuMs, 4)} / ${
          fmt(t.bareCpuMs, 4)
        } | ${fmt(t.processRatio, 2)} |`,
      );
    }
  }
  if (flags.json) {
    Deno.writeTextFileSync(
      flags.json,
      JSON.stringify(
        { date: new Date().toISOString(), cpu: cpuModel(), rows, summary, timers: timerRows },
        null,
        2,
      ) + "\n",
    );
  }
  const errors = rows.reduce((a, r) => a + r.errors, 0);
  if (errors > 0) {
    console.error(`bench: ${errors} errors under load`);
    Deno.exit(1);
  }
}
