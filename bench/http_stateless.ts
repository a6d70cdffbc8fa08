/**
 * HTTP benchmark of the hosted endpoint speaking MCP 2026-07-28 (the stateless
 * revision), in one run against its peers:
 *
 * - memo: `deno serve http.ts` on a project of 10,000 English-like notes (the
 *   corpus of `bench/http_bench.ts`), sent stateless requests: `tools/list` and
 *   `tools/call recall` (50 queries in turn, and every query new); and, for
 *   reference, the session `tools/list` of `bench/http_bench.ts`;
 * - sdk-v2: the official SDK v2's stateless handler as its documentation
 *   builds it (`createMcpHandler(() => new McpServer(…))` under `Deno.serve`,
 *   one `echo` tool; bench/peers/sdk_v2_http.ts), sent the same stateless
 *   `tools/list` and a stateless `tools/call echo`;
 * - bare: a bare `Deno.serve` that parses the body and answers what memo
 *   answered to the stateless `tools/list`, status, headers and body (captured
 *   from memo on the wire at the start of the run; bench/peers/bare_answers.mjs),
 *   the ceiling. `bench/http_ceiling.ts` measures the share of it for both eras
 *   and both hosts.
 *
 * Every stateless request carries what the revision requires: `_meta` with
 * `io.modelcontextprotocol/protocolVersion` and `clientCapabilities` (and
 * `clientInfo`) in the body, and the headers `MCP-Protocol-Version`,
 * `Mcp-Method` and, for `tools/call`, `Mcp-Name`. Each workload is checked
 * once before the load (HTTP 200, a `complete` result, no tool error). Load
 * comes from wrk (`apt-get install -y wrk`): 2 threads, 32 connections.
 * Rounds (3 by default) run the targets in turn, so that background load hits
 * them alike; the report gives each workload's median over the rounds.
 *
 * Run: deno run -A bench/http_stateless.ts [--duration 10] [--warmup 3] [--notes 10000] [--rounds 3] [--only memo,sdk-v2,bare] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  contentHeaders,
  corpus,
  cpuModel,
  denoServeArgs,
  distinctRecallScript,
  fmt,
  freePort,
  loadAvg,
  log,
  luaScript,
  onlyTargets,
  type RawAnswer,
  rawPost,
  requireWrk,
  rpc,
  seedProject,
  SESSION_HEADERS,
  startTarget,
  STATELESS_META,
  STATELESS_VERSION,
  statelessRequest,
  type Target,
  wrk,
  type WrkResult,
} from "./_http_kit.ts";
import { checkGoals, type Goal, median } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    notes: { type: "string", default: "10000" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
    only: { type: "string" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const NOTES = Number(flags.notes);
const CONNECTIONS = Number(flags.connections);
const ROUNDS = Number(flags.rounds);

export { STATELESS_META, STATELESS_VERSION, statelessRequest } from "./_http_kit.ts";

/** One kind of request sent under load. */
interface Workload {
  /** Key of the row in the summary. */
  key: string;
  /** Label in the report. */
  label: string;
  headers: Record<string, string>;
  /** The bodies sent in turn (the first one is checked before the load). */
  bodies: string[];
  /** A wrk script of its own (every query new), else one is written from `bodies`. */
  script?: string;
}

/** POSTs `body` once and checks the answer: 200, a `complete` result, no tool error. */
async function check(url: string, w: Workload): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: w.headers, body: w.bodies[0] });
  const text = await res.text();
  const answer = JSON.parse(text);
  const session = w.headers["MCP-Protocol-Version"] !== STATELESS_VERSION;
  if (
    res.status !== 200 || !answer.result || answer.result.isError ||
    (!session && answer.result.resultType !== "complete")
  ) {
    throw new Error(`${url} ${w.key}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
  }
  return text;
}

/** Target names, in the order of a round. */
const NAMES = ["memo", "sdk-v2", "bare"] as const;

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  const only = onlyTargets(flags.only, NAMES);
  const { drafts, queries, queryWords } = corpus(NOTES);
  const needsMemo = only.has("memo") || only.has("bare");
  if (needsMemo) log(`seeding ${NOTES} notes`);
  const project = needsMemo ? await seedProject(NOTES, drafts) : "";

  const list = statelessRequest("tools/list");
  const recalls = queries.map((query) =>
    statelessRequest("tools/call", { name: "recall", arguments: { query, limit: 10 } })
  );
  const echo = statelessRequest("tools/call", {
    name: "echo",
    arguments: { message: "staging database migration" },
  });
  const metaJson = `,"_meta":${JSON.stringify(STATELESS_META)}`;
  const workloads: Record<string, Workload[]> = {
    memo: [
      { key: "list", label: "tools/list", headers: list.headers, bodies: [list.body] },
      {
        key: "recall",
        label: `tools/call recall, 50 queries in turn (${NOTES} notes)`,
        headers: recalls[0].headers,
        bodies: recalls.map((r) => r.body),
      },
      {
        key: "recall-new",
        label: `tools/call recall, every query new (${NOTES} notes)`,
        headers: recalls[0].headers,
        bodies: [recalls[0].body],
        script: await distinctRecallScript(queryWords, recalls[0].headers, metaJson),
      },
      {
        key: "list-session",
        label: "tools/list, session 2025-06-18 (reference)",
        headers: { ...SESSION_HEADERS },
        bodies: [rpc("tools/list")],
      },
    ],
    "sdk-v2": [
      { key: "list", label: "tools/list", headers: list.headers, bodies: [list.body] },
      { key: "echo", label: "tools/call echo", headers: echo.headers, bodies: [echo.body] },
    ],
    bare: [
      {
        key: "list",
        label: "memo's stateless tools/list bytes",
        headers: list.headers,
        bodies: [list.body],
      },
    ],
  };
  const scripts: string[] = [];
  for (const w of Object.values(workloads).flat()) {
    w.script ??= await luaScript(w.bodies, w.headers);
    scripts.push(w.script);
  }

  const startMemo = (port: number) =>
    startTarget("memo", denoServeArgs(port), {
      MEMO_ROOT_DIR: project,
    }, port);

  // memo's answer to the stateless tools/list on the wire (status, headers, body), for the ceiling.
  const answerFile = await Deno.makeTempFile({ suffix: ".json" });
  let captured: RawAnswer | undefined;
  if (needsMemo) {
    const memo = await startMemo(freePort());
    try {
      await check(memo.url, workloads.memo[0]);
      captured = await rawPost(memo.url, list.headers, list.body);
      await Deno.writeTextFile(
        answerFile,
        JSON.stringify({
          answers: [{
            version: STATELESS_VERSION,
            method: "tools/list",
            status: captured.status,
            headers: contentHeaders(captured),
            body: captured.body,
          }],
        }),
      );
      log(`captured memo's stateless tools/list answer: ${captured.body.length} bytes`);
    } finally {
      await memo.stop();
    }
  }

  const starters: Record<string, (port: number) => Promise<Target>> = {
    memo: startMemo,
    "sdk-v2": (p) =>
      startTarget(
        "sdk-v2",
        ["run", "-A", "--lock=deno.dev.lock", "bench/peers/sdk_v2_http.ts", String(p)],
        {},
        p,
      ),
    bare: async (p) => {
      const bare = await startTarget(
        "bare",
        ["run", "-A", "bench/peers/bare_answers.mjs", String(p), answerFile],
        {},
        p,
      );
      const answer = await rawPost(bare.url, list.headers, list.body);
      if (
        captured === undefined || answer.body !== captured.body ||
        JSON.stringify(contentHeaders(answer)) !== JSON.stringify(contentHeaders(captured))
      ) {
        await bare.stop();
        throw new Error("bare: its answer is not memo's bytes");
      }
      return bare;
    },
  };

  interface Row extends WrkResult {
    round: number;
    target: string;
    key: string;
    workload: string;
    loadavg: string;
  }
  const rows: Row[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const name of NAMES.filter((n) => only.has(n))) {
        const target = await starters[name](freePort());
        try {
          for (const w of workloads[name]) {
            await check(target.url, w);
            await wrk(target.url, w.script!, WARMUP, CONNECTIONS);
            const loadavg = loadAvg();
            const r = await wrk(target.url, w.script!, DURATION, CONNECTIONS);
            rows.push({ round, target: name, key: w.key, workload: w.label, ...r, loadavg });
            log(
              `${name} ${w.label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50ms.toFixed(2)} ms, ` +
                `p99 ${r.p99ms.toFixed(2)} ms, errors ${r.errors} (load ${loadavg})`,
            );
          }
        } finally {
          await target.stop();
        }
      }
    }
  } finally {
    if (project) await Deno.remove(project, { recursive: true }).catch(() => {});
    for (const file of [...scripts, answerFile]) await Deno.remove(file).catch(() => {});
  }

  // Medians over the rounds, per target and workload.
  const summary = new Map<string, WrkResult & { workload: string }>();
  for (const r of rows) {
    const id = `${r.target}/${r.key}`;
    if (summary.has(id)) continue;
    const same = rows.filter((s) => s.target === r.target && s.key === r.key);
    summary.set(id, {
      workload: r.workload,
      rps: median(same.map((s) => s.rps)),
      p50ms: median(same.map((s) => s.p50ms)),
      p99ms: median(same.map((s) => s.p99ms)),
      requests: same.reduce((a, s) => a + s.requests, 0),
      errors: same.reduce((a, s) => a + s.errors, 0),
    });
  }
  const rps = (id: string) => summary.get(id)?.rps ?? NaN;
  const goals: Goal[] = [
    {
      goal: "stateless tools/list ≥ 80% of the ceiling (bare, same bytes)",
      value: rps("memo/list") / rps("bare/list"),
      min: 0.8,
      shown: (v) => `${(v * 100).toFixed(0)}%`,
    },
    {
      goal: "stateless tools/list ≥ 10× SDK v2",
      value: rps("memo/list") / rps("sdk-v2/list"),
      min: 10,
      shown: (v) => `${v.toFixed(1)}×`,
    },
    {
      goal: "stateless tools/list p99 < 5 ms",
      value: summary.get("memo/list")?.p99ms ?? NaN,
      below: 5,
      shown: (v) => `${v.toFixed(2)} ms`,
    },
    {
      goal: `stateless recall (${NOTES} notes, 50 queries in turn) ≥ 10× SDK v2 echo`,
      value: rps("memo/recall") / rps("sdk-v2/echo"),
      min: 10,
      shown: (v) => `${v.toFixed(1)}×`,
    },
    {
      goal: `stateless recall (${NOTES} notes, every query new) ≥ 10× SDK v2 echo`,
      value: rps("memo/recall-new") / rps("sdk-v2/echo"),
      min: 10,
      shown: (v) => `${v.toFixed(1)}×`,
    },
  ];
  const checked = checkGoals(goals);

  console.log(
    `\nmachine: ${cpuModel()}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
      `wrk -t2 -c${CONNECTIONS} -d${DURATION}s; ${ROUNDS} round(s), medians\n`,
  );
  console.log("| target | workload | req/s | p50 ms | p99 ms | errors |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const [id, s] of summary) {
    console.log(
      `| ${id.split("/")[0]} | ${s.workload} | ${fmt(s.rps)} | ${fmt(s.p50ms, 2)} | ` +
        `${fmt(s.p99ms, 2)} | ${s.errors} |`,
    );
  }
  console.log("\n| goal | measured | met |\n|---|---:|---|");
  for (const g of checked) console.log(`| ${g.goal} | ${g.measured} | ${g.met} |`);
  if (flags.json) {
    await Deno.writeTextFile(
      flags.json,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          cpu: cpuModel(),
          cores: navigator.hardwareConcurrency,
          notes: NOTES,
          rows,
          summary: Object.fromEntries(summary),
          goals: checked,
        },
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
