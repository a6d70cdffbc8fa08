/**
 * OAuth benchmark of the hosted endpoint, in one run:
 *
 * - throughput: `tools/call recall` over HTTP on a project of 10,000 notes,
 *   memo with OAuth (JWT access tokens, RS256, verified with `jose` against
 *   the cached keys of a real authorization server, `npm:oidc-provider`)
 *   beside memo with the static bearer token, rounds alternating, wrk with 32
 *   connections; the goal is ≥ 0.9× the static token's throughput;
 * - the first request after a key rotation: the authorization server rotates
 *   its key, a token signed by the new key arrives, and memo fetches the keys
 *   again before it answers; its latency beside the next request's (the same
 *   token, keys cached), over several rotations.
 *
 * Run: deno run -A bench/oauth_bench.ts [--duration 10] [--warmup 3] [--notes 10000] [--rounds 3] [--rotations 15] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  corpus,
  cpuModel,
  fmt,
  freePort,
  LEGACY_HEADERS,
  loadAvg,
  log,
  luaScript,
  requireWrk,
  rpc,
  seedProject,
  startTarget,
  type Target,
  wrk,
  type WrkResult,
} from "./_http_kit.ts";
import { startAuthServer } from "../tests/_oidc_provider.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    notes: { type: "string", default: "10000" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
    rotations: { type: "string", default: "15" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const NOTES = Number(flags.notes);
const CONNECTIONS = Number(flags.connections);
const ROUNDS = Number(flags.rounds);
const ROTATIONS = Number(flags.rotations);
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
    headers: { ...LEGACY_HEADERS, authorization: `Bearer ${token}` },
    body,
  });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`the call answered ${response.status}`);
  return ms;
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
    static: await luaScript(recall, { ...LEGACY_HEADERS, Authorization: `Bearer ${STATIC_TOKEN}` }),
    oauth: await luaScript(recall, { ...LEGACY_HEADERS, Authorization: `Bearer ${jwt}` }),
  };
  const start = (name: "static" | "oauth", port: number): Promise<Target> =>
    startTarget(
      `memo-${name}`,
      ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "http.ts"],
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

  const rows: (WrkResult & { round: number; target: string; loadavg: string })[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? ["static", "oauth"] as const : ["oauth", "static"] as const;
      for (const name of order) {
        const target = await start(name, freePort());
        try {
          await wrk(target.url, scripts[name], WARMUP, CONNECTIONS);
          const before = loadAvg();
          const r = await wrk(target.url, scripts[name], DURATION, CONNECTIONS);
          if (r.errors) {
            const probe = await fetch(target.url, {
              method: "POST",
              headers: {
                ...LEGACY_HEADERS,
                authorization: `Bearer ${name === "oauth" ? jwt : STATIC_TOKEN}`,
              },
              body: recall[0],
            });
            const text = (await probe.text()).slice(0, 300);
            throw new Error(
              `memo-${name}: ${r.errors} errors under load; now ${probe.status} ${text}`,
            );
          }
          rows.push({ round, target: `memo-${name}`, loadavg: before, ...r });
          log(
            `round ${round} memo-${name}: ${r.rps.toFixed(0)} req/s, p50 ${
              r.p50ms.toFixed(2)
            } ms, p99 ${r.p99ms.toFixed(2)} ms (load ${before})`,
          );
        } finally {
          await stop(target);
        }
      }
    }

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
    const cpu = cpuModel();
    console.log(
      `\nmachine: ${cpu}, ${navigator.hardwareConcurrency} cores; wrk -t2 -c${CONNECTIONS} -d${DURATION}s; ` +
        `tools/call recall over ${NOTES} notes\n`,
    );
    console.log("| round | target | req/s | p50 ms | p99 ms | errors | load avg |");
    console.log("|---|---|---:|---:|---:|---:|---|");
    for (const r of rows) {
      console.log(
        `| ${r.round} | ${r.target} | ${fmt(r.rps)} | ${fmt(r.p50ms, 2)} | ${
          fmt(r.p99ms, 2)
        } | ${r.errors} | ${r.loadavg} |`,
      );
    }
    console.log(
      `\nOAuth / static throughput: ${(mean("memo-oauth") / mean("memo-static")).toFixed(2)}× ` +
        `(per round: ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
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
          { date: new Date().toISOString(), cpu, rows, ratios, rotation },
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
