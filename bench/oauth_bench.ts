/**
 * OAuth benchmark of the hosted endpoint, in one run:
 *
 * - throughput: `tools/call recall` over HTTP on a project of 10,000 notes,
 *   memo with OAuth (JWT access tokens, RS256, verified with `jose` against
 *   the cached keys of a real authorization server, `npm:oidc-provider`)
 *   beside memo with the static bearer token: both processes up at once, short
 *   wrk runs (32 connections) alternating, the ratio taken per round; the
 *   goal is ≥ 0.9× the static token's throughput;
 * - the first request after a key rotation: the authorization server rotates
 *   its key, a token signed by the new key arrives, and memo fetches the keys
 *   again before it answers; its latency beside the next request's (the same
 *   token, keys cached), over several rotations.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/oauth_bench.ts [--duration 5] [--warmup 3] [--notes 10000] [--rounds 8] [--rotations 15] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  corpus,
  cpuModel,
  denoServeArgs,
  fmt,
  freePort,
  loadAvg,
  log,
  luaScript,
  requireWrk,
  rpc,
  seedProject,
  SESSION_HEADERS,
  startTarget,
  type Target,
  wrk,
  type WrkResult,
} from "./_http_kit.ts";
import process from "node:process";
import { startAuthServer } from "../tests/_oidc_provider.ts";
import { createMemoMcpRuntimeFromConfig } from "../mod.ts";
import { createFrameworkMemoMcpHandler } from "../http.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "3" },
    notes: { type: "string", default: "10000" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "8" },
    rotations: { type: "string", default: "15" },
    calls: { type: "string", default: "2000" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const NOTES = Number(flags.notes);
const CONNECTIONS = Number(flags.connections);
const ROUNDS = Number(flags.rounds);
const ROTATIONS = Number(flags.rotations);
const CALLS = Number(flags.calls);
const STATIC_TOKEN = "bench-static-token-0123456789abcdef";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One timed recall with `token`; milliseconds. */
async function timedCall(url: string, token: string, body: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { ...SESSION_HEADERS, authorization: `Bearer ${token}` },
    body,
  });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`the call answered ${response.status}`);
  return ms;
}

/**
 * In this process, the same recall through `createFrameworkMemoMcpHandler`
 * with the static token and with OAuth, rounds alternating: CPU µs per call
 * (`process.cpuUsage`), which a loaded machine disturbs much less than a
 * throughput.
 */
async function inProcess(
  project: string,
  issuer: string,
  resource: string,
  jwt: string,
  bodies: string[],
): Promise<{ static: number[]; oauth: number[] }> {
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir: project });
  const handlers = {
    static: createFrameworkMemoMcpHandler({ runtime, auth: { bearerToken: STATIC_TOKEN } }),
    oauth: createFrameworkMemoMcpHandler({ runtime, auth: { oauth: { issuer, resource } } }),
  };
  const tokens = { static: STATIC_TOKEN, oauth: jwt };
  const call = async (name: "static" | "oauth", i: number) => {
    const response = await handlers[name](
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...SESSION_HEADERS, authorization: `Bearer ${tokens[name]}` },
        body: bodies[i % bodies.length],
      }),
    );
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
  };
  const out = { static: [] as number[], oauth: [] as number[] };
  try {
    for (const name of ["static", "oauth"] as const) {
      for (let i = 0; i < 200; i++) await call(name, i); // warm-up: index, keys, caches
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 ? ["oauth", "static"] as const : ["static", "oauth"] as const) {
        const before = process.cpuUsage();
        for (let i = 0; i < CALLS; i++) await call(name, i);
        const used = process.cpuUsage(before);
        out[name].push((used.user + used.system) / CALLS);
      }
    }
  } finally {
    await runtime.close();
  }
  return out;
}

/** CPU time a process has used so far (user + system), in ms, from /proc. */
function cpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Stops a target: SIGTERM, then SIGKILL after 3 s (under wrk, `deno serve`
 * does not always exit on SIGTERM on a loaded machine; main's http.ts too).
 */
async function stop(target: Target): Promise<void> {
  const timer = setTimeout(() => {
    try {
      Deno.kill(target.pid, "SIGKILL");
    } catch { /* gone */ }
  }, 3000);
  await target.stop();
  clearTimeout(timer);
}

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  log(`seeding ${NOTES} notes`);
  const { drafts, queries } = corpus(NOTES);
  const project = await seedProject(NOTES, drafts);
  // The audience tokens carry; memo checks its path against the MCP path, not
  // its host, so the port can be chosen just before each start.
  const resource = "http://localhost/mcp";
  const as = await startAuthServer({ resources: [{ url: resource }] });
  const jwt = await as.clientCredentials(resource, "memo:read memo:write");
  const recall = queries.map((query) =>
    rpc("tools/call", { name: "recall", arguments: { query, limit: 10 } })
  );
  const scripts = {
    static: await luaScript(recall, {
      ...SESSION_HEADERS,
      Authorization: `Bearer ${STATIC_TOKEN}`,
    }),
    oauth: await luaScript(recall, { ...SESSION_HEADERS, Authorization: `Bearer ${jwt}` }),
  };
  const start = (name: "static" | "oauth", port: number): Promise<Target> =>
    startTarget(
      `memo-${name}`,
      denoServeArgs(port),
      name === "static"
        ? { MEMO_ROOT_DIR: project, MEMO_UI: "false", MEMO_MCP_BEARER_TOKEN: STATIC_TOKEN }
        : {
          MEMO_ROOT_DIR: project,
          MEMO_UI: "false",
          MEMO_OAUTH_ISSUER: as.issuer,
          MEMO_OAUTH_RESOURCE: resource,
        },
      port,
    );

  const rows: (WrkResult & {
    round: number;
    target: string;
    loadavg: string;
    cpuMsPerRequest: number;
  })[] = [];
  try {
    // Both run for the whole comparison, and short runs alternate: a machine
    // whose load drifts weighs on both alike.
    const targets = {
      static: await start("static", freePort()),
      oauth: await start("oauth", freePort()),
    };
    try {
      for (const name of ["static", "oauth"] as const) {
        await wrk(targets[name].url, scripts[name], WARMUP, CONNECTIONS);
      }
      for (let round = 1; round <= ROUNDS; round++) {
        const order = round % 2 ? ["static", "oauth"] as const : ["oauth", "static"] as const;
        for (const name of order) {
          const before = loadAvg();
          const cpuBefore = cpuMs(targets[name].pid);
          const r = await wrk(targets[name].url, scripts[name], DURATION, CONNECTIONS);
          const cpuMsPerRequest = (cpuMs(targets[name].pid) - cpuBefore) / r.requests;
          if (r.errors) throw new Error(`memo-${name}: ${r.errors} errors under load`);
          rows.push({ round, target: `memo-${name}`, loadavg: before, cpuMsPerRequest, ...r });
          log(
            `round ${round} memo-${name}: ${r.rps.toFixed(0)} req/s, p50 ${
              r.p50ms.toFixed(2)
            } ms, p99 ${r.p99ms.toFixed(2)} ms, ${
              cpuMsPerRequest.toFixed(3)
            } CPU ms/request (load ${before})`,
          );
        }
      }
    } finally {
      await stop(targets.static);
      await stop(targets.oauth);
    }

    log(`in process: ${ROUNDS} rounds of ${CALLS} calls`);
    const cpu = await inProcess(project, as.issuer, resource, jwt, recall);

    log(`key rotation: ${ROTATIONS} rotations`);
    const target = await start("oauth", freePort());
    const first: number[] = [];
    const next: number[] = [];
    let coldFirst = NaN;
    try {
      const body = recall[0];
      coldFirst = await timedCall(target.url, jwt, body); // keys fetched at the first token
      for (let i = 0; i < 20; i++) await timedCall(target.url, jwt, body);
      for (let i = 0; i < ROTATIONS; i++) {
        await as.rotateKeys();
        const token = await as.clientCredentials(resource, "memo:read");
        first.push(await timedCall(target.url, token, body));
        next.push(await timedCall(target.url, token, body));
      }
    } finally {
      await stop(target);
    }

    const mean = (name: string) => {
      const list = rows.filter((r) => r.target === name).map((r) => r.rps);
      return list.reduce((a, b) => a + b, 0) / list.length;
    };
    const ratios = [...new Set(rows.map((r) => r.round))].map((round) => {
      const of = (name: string) => rows.find((r) => r.round === round && r.target === name)!.rps;
      return of("memo-oauth") / of("memo-static");
    });
    const rotation = {
      rotations: ROTATIONS,
      firstAfterRotationMedianMs: median(first),
      firstAfterRotationMaxMs: Math.max(...first),
      nextRequestMedianMs: median(next),
      firstRequestAfterStartMs: coldFirst,
    };
    const machine = cpuModel();
    console.log(
      `\nmachine: ${machine}, ${navigator.hardwareConcurrency} cores; wrk -t2 -c${CONNECTIONS} -d${DURATION}s; ` +
        `tools/call recall over ${NOTES} notes\n`,
    );
    console.log(
      "| round | target | req/s | p50 ms | p99 ms | CPU ms/request | errors | load avg |",
    );
    console.log("|---|---|---:|---:|---:|---:|---:|---|");
    for (const r of rows) {
      console.log(
        `| ${r.round} | ${r.target} | ${fmt(r.rps)} | ${fmt(r.p50ms, 2)} | ${fmt(r.p99ms, 2)} | ${
          r.cpuMsPerRequest.toFixed(3)
        } | ${r.errors} | ${r.loadavg} |`,
      );
    }
    const cpuOf = (name: string) =>
      median(rows.filter((r) => r.target === name).map((r) => r.cpuMsPerRequest));
    console.log(
      `\nOAuth / static throughput: median of the rounds ${median(ratios).toFixed(2)}×, ` +
        `of the means ${(mean("memo-oauth") / mean("memo-static")).toFixed(2)}× ` +
        `(per round: ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
    );
    console.log(
      `CPU per request (median): OAuth ${cpuOf("memo-oauth").toFixed(3)} ms, static ${
        cpuOf("memo-static").toFixed(3)
      } ms: OAuth serves ${(cpuOf("memo-static") / cpuOf("memo-oauth")).toFixed(2)}× the ` +
        "static token's requests per CPU second",
    );
    console.log(
      `in process, CPU µs per recall call (median of ${ROUNDS} rounds of ${CALLS}): OAuth ${
        median(cpu.oauth).toFixed(0)
      }, static ${median(cpu.static).toFixed(0)}: OAuth serves ${
        (median(cpu.static) / median(cpu.oauth)).toFixed(2)
      }× the static token's calls per CPU second`,
    );
    console.log(
      `first request after a key rotation: median ${
        fmt(rotation.firstAfterRotationMedianMs, 2)
      } ms ` +
        `(max ${fmt(rotation.firstAfterRotationMaxMs, 2)} ms) vs the next one ${
          fmt(rotation.nextRequestMedianMs, 2)
        } ms, over ${ROTATIONS} rotations; first request after start ${fmt(coldFirst, 2)} ms`,
    );
    if (flags.json) {
      await Deno.writeTextFile(
        flags.json,
        JSON.stringify(
          {
            date: new Date().toISOString(),
            cpu: machine,
            inProcessCpuUs: cpu,
            rows,
            ratios,
            cpuMsPerRequest: { oauth: cpuOf("memo-oauth"), static: cpuOf("memo-static") },
            rotation,
          },
          null,
          2,
        ),
      );
    }
  } finally {
    await as.close();
    await Deno.remove(project, { recursive: true }).catch(() => {});
    for (const file of Object.values(scripts)) await Deno.remove(file).catch(() => {});
  }
}
