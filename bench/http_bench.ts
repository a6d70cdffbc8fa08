/**
 * HTTP benchmark of the hosted endpoint, in one run against its peers:
 *
 * - memo: `deno serve http.ts` on a project of 10,000 notes;
 * - memo-no-engine: the same endpoint whose recall answers hits computed
 *   beforehand (bench/peers/memo_fixed_engine.ts): what memo costs without
 *   its engine, so that the two rows tell the engine's share;
 * - sdk: the official SDK's stateless Streamable HTTP server as its README
 *   builds it, under Node (bench/peers/sdk_stateless.mjs, one `echo` tool);
 * - sdk-deno: the same file and packages run under Deno,
 *   which is much faster than under Node here, for a fair second view;
 * - bare: a bare `Deno.serve` answering a constant JSON-RPC result
 *   (bench/peers/bare.ts);
 * - bare-list: the ceiling of `tools/list`, a bare `Deno.serve` answering what memo
 *   answered to it, status, headers and body (captured on the wire at the start;
 *   bench/peers/bare_answers.mjs). The report ends with memo's share of it;
 *   `bench/http_ceiling.ts` measures that share in both eras and on both hosts.
 *
 * Load comes from wrk (Debian's `wrk`: `apt-get install -y wrk`), 32
 * connections POSTing JSON-RPC: `tools/list`, and `tools/call` (memo: `recall`
 * over the 10,000 notes; sdk: `echo`; bare: the constant). Then a soak: memo
 * under 32 connections for 60 s (recall and tools/list mixed), zero errors
 * and RSS within 10% of its level after warm-up.
 *
 * Run: deno run -A bench/http_bench.ts [--duration 10] [--soak 60] [--notes 10000] [--rounds 1] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  contentHeaders,
  corpus,
  cpuModel,
  DENO,
  denoServeArgs,
  distinctRecallScript,
  fmt,
  freePort,
  installNodePeer,
  loadAvg,
  log,
  luaScript,
  rawPost,
  requireWrk,
  rpc,
  rssKiB,
  seedProject,
  SESSION_HEADERS,
  startTarget,
  wrk as runWrk,
  type WrkResult,
} from "./_http_kit.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    soak: { type: "string", default: "60" },
    notes: { type: "string", default: "10000" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "1" },
    only: { type: "string" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const SOAK = Number(flags.soak);
const NOTES = Number(flags.notes);
const CONNECTIONS = Number(flags.connections);
const ROUNDS = Number(flags.rounds);

const wrk = (url: string, script: string, seconds: number) =>
  runWrk(url, script, seconds, CONNECTIONS);

// ---------------------------------------------------------------- run

if (import.meta.main) await main();

async function main() {
  await requireWrk();

  const wantsMemo = !flags.only ||
    flags.only.split(",").some((name) =>
      name === "memo" || name === "memo-no-engine" || name === "bare-list"
    );
  if (wantsMemo) log(`seeding ${NOTES} notes`);
  const { drafts, queries, queryWords } = corpus(NOTES);
  const project = wantsMemo ? await seedProject(NOTES, drafts) : "";
  const cpuInfo = cpuModel();
  const load = loadAvg;

  const bodies = {
    list: rpc("tools/list"),
    echoCall: rpc("tools/call", {
      name: "echo",
      arguments: { message: "staging database migration" },
    }),
  };
  const queriesFile = await Deno.makeTempFile({ suffix: ".json" });
  const answersFile = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(queriesFile, JSON.stringify(queries));
  const scripts = {
    list: await luaScript([bodies.list]),
    memoCall: await luaScript(
      queries.map((query) =>
        rpc("tools/call", { name: "recall", arguments: { query, limit: 10 } })
      ),
    ),
    echoCall: await luaScript([bodies.echoCall]),
    memoDistinct: await distinctRecallScript(queryWords),
  };

  const rows: Record<string, unknown>[] = [];
  const targets = [
    {
      name: "memo",
      start: (p: number) =>
        startTarget(
          "memo",
          denoServeArgs(p),
          {
            MEMO_ROOT_DIR: project,
          },
          p,
        ),
      call: scripts.memoCall,
      callName: `tools/call recall (${NOTES} notes)`,
    },
    {
      name: "memo-no-engine",
      start: (p: number) =>
        startTarget(
          "memo-no-engine",
          ["run", "-A", "bench/peers/memo_fixed_engine.ts", String(p), project, queriesFile],
          {},
          p,
        ),
      call: scripts.memoCall,
      callName: `tools/call recall (${NOTES} notes)`,
    },
    {
      name: "sdk",
      start: async (p: number) =>
        startTarget(
          "sdk",
          ["sdk_stateless.mjs", String(p)],
          {},
          p,
          "node",
          await installNodePeer(),
        ),
      call: scripts.echoCall,
      callName: "tools/call echo",
    },
    {
      name: "sdk-deno",
      start: async (p: number) =>
        startTarget(
          "sdk-deno",
          ["run", "-A", "sdk_stateless.mjs", String(p)],
          {},
          p,
          DENO,
          await installNodePeer(),
        ),
      call: scripts.echoCall,
      callName: "tools/call echo",
    },
    {
      name: "bare",
      start: (p: number) =>
        startTarget("bare", ["run", "-A", "bench/peers/bare.ts", String(p)], {}, p),
      call: scripts.list,
      callName: "constant result",
    },
    {
      // The ceiling of memo's tools/list: the same status, headers and body (bare_answers.mjs).
      name: "bare-list",
      start: (p: number) =>
        startTarget(
          "bare-list",
          ["run", "-A", "bench/peers/bare_answers.mjs", String(p), answersFile],
          {},
          p,
        ),
      call: undefined,
      callName: "",
    },
  ].filter((t) => !flags.only || flags.only.split(",").includes(t.name));

  // memo's tools/list answer on the wire, for bare-list.
  if (targets.some((t) => t.name === "bare-list")) {
    const port = freePort();
    const memo = await startTarget("memo", denoServeArgs(port), { MEMO_ROOT_DIR: project }, port);
    try {
      const answer = await rawPost(memo.url, SESSION_HEADERS, bodies.list);
      await Deno.writeTextFile(
        answersFile,
        JSON.stringify({
          answers: [{
            version: SESSION_HEADERS["MCP-Protocol-Version"],
            method: "tools/list",
            status: answer.status,
            headers: contentHeaders(answer),
            body: answer.body,
          }],
        }),
      );
    } finally {
      await memo.stop();
    }
  }

  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      const target = await t.start(freePort());
      try {
        const workloads: [string, string][] = [["tools/list", scripts.list]];
        if (t.call !== undefined) workloads.push([t.callName, t.call]);
        if (t.name === "memo") {
          workloads.push([
            `tools/call recall, every query new (${NOTES} notes)`,
            scripts.memoDistinct,
          ]);
        }
        for (const [label, script] of workloads) {
          await wrk(target.url, script, WARMUP);
          const before = load();
          const r = await wrk(target.url, script, DURATION);
          const row = { round, target: t.name, workload: label, ...r, loadavg: before };
          rows.push(row);
          log(
            `${t.name} ${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50ms.toFixed(2)} ms, p99 ${
              r.p99ms.toFixed(2)
            } ms, errors ${r.errors} (load ${before})`,
          );
        }
      } finally {
        await target.stop();
      }
    }
  }

  let soak: Record<string, unknown> | undefined;
  if (SOAK > 0 && targets.some((t) => t.name === "memo")) {
    log(`soak: memo, ${CONNECTIONS} connections for ${SOAK} s`);
    const target = await targets.find((t) => t.name === "memo")!.start(freePort());
    try {
      const script = await luaScript([
        ...queries.slice(0, 10).map((query) =>
          rpc("tools/call", { name: "recall", arguments: { query, limit: 10 } })
        ),
        bodies.list,
        rpc("tools/call", { name: "list_notes", arguments: { limit: 25 } }),
        rpc("resources/read", { uri: "memo://stats" }),
      ]);
      await wrk(target.url, script, 15); // warm-up
      const warm = rssKiB(target.pid);
      const samples: number[] = [];
      const sampler = setInterval(() => samples.push(rssKiB(target.pid)), 5000);
      const r = await wrk(target.url, script, SOAK);
      clearInterval(sampler);
      const end = rssKiB(target.pid);
      const max = Math.max(end, ...samples);
      soak = {
        ...r,
        rssWarmKiB: warm,
        rssEndKiB: end,
        rssMaxKiB: max,
        growthPct: ((end - warm) / warm) * 100,
        maxGrowthPct: ((max - warm) / warm) * 100,
      };
      log(
        `soak: ${r.requests} requests, ${r.errors} errors, ${r.rps.toFixed(0)} req/s, p99 ${
          r.p99ms.toFixed(2)
        } ms; RSS ${(warm / 1024).toFixed(1)} → ${(end / 1024).toFixed(1)} MiB (max ${
          (max / 1024).toFixed(1)
        })`,
      );
    } finally {
      await target.stop();
    }
  }

  if (project) await Deno.remove(project, { recursive: true }).catch(() => {});
  await Deno.remove(queriesFile).catch(() => {});
  await Deno.remove(answersFile).catch(() => {});

  console.log(
    `\nmachine: ${cpuInfo}, ${navigator.hardwareConcurrency} cores; wrk -t2 -c${CONNECTIONS} -d${DURATION}s\n`,
  );
  console.log("| round | target | workload | req/s | p50 ms | p99 ms | errors | load avg |");
  console.log("|---|---|---|---:|---:|---:|---:|---|");
  for (
    const r of rows as unknown as (WrkResult & {
      round: number;
      target: string;
      workload: string;
      loadavg: string;
    })[]
  ) {
    console.log(
      `| ${r.round} | ${r.target} | ${r.workload} | ${fmt(r.rps)} | ${fmt(r.p50ms, 2)} | ${
        fmt(r.p99ms, 2)
      } | ${r.errors} | ${r.loadavg} |`,
    );
  }
  const listRps = (target: string) =>
    (rows as { target: string; workload: string; rps: number }[])
      .filter((r) => r.target === target && r.workload === "tools/list").map((r) => r.rps);
  const memoList = listRps("memo");
  const ceiling = listRps("bare-list");
  if (memoList.length && ceiling.length) {
    const shares = memoList.map((rps, i) => rps / ceiling[Math.min(i, ceiling.length - 1)]);
    console.log(
      `\ntools/list, share of the ceiling (bare-list, memo's bytes), per round: ${
        shares.map((v) => `${(v * 100).toFixed(0)}%`).join(", ")
      }`,
    );
  }
  if (soak) console.log(`\nsoak: ${JSON.stringify(soak)}`);
  if (flags.json) {
    await Deno.writeTextFile(
      flags.json,
      JSON.stringify({ date: new Date().toISOString(), cpu: cpuInfo, rows, soak }, null, 2),
    );
  }
  for (const file of Object.values(scripts)) await Deno.remove(file).catch(() => {});
}
