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
 * - bare: a bare `Deno.serve` answering a constant JSON-RPC result, the ceiling
 *   (bench/peers/bare.ts).
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
import { rng } from "./_rng.ts";

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
const ROOT = new URL("..", import.meta.url).pathname;
const DENO = Deno.execPath();

function log(line: string) {
  console.error(`bench: ${line}`);
}

// ---------------------------------------------------------------- helpers

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function startTarget(
  name: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  command = DENO,
  cwd = ROOT,
) {
  const child = new Deno.Command(command, {
    args,
    cwd,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 60_000;
  while (true) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: '{"jsonrpc":"2.0","id":0,"method":"ping"}',
      });
      await res.body?.cancel();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${name} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    name,
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  } satisfies Target;
}

const STOP = (
  "the of and to a in is that it for was on with as be at by this not are but from or " +
  "have an they which you were there we all been one their if has would will what so when can"
).split(" ");
const SYLLABLES = (
  "ka ri to na me lo se ta de po ni ru la mi ko sa te vo bi du fa ge hi jo ku le mo nu pe " +
  "ro su ti ve wa xe yo zu ar en in on un er al el il ol st tr pl gr br cl dr fr pr sk sp"
).split(" ");

/**
 * English-like synthetic notes: a 4,000-word vocabulary drawn with Zipf(1.07),
 * stop words at their usual rate, about 80 words a note; and queries of two or
 * three mid-frequency words (ranks 20 to 400), as people ask.
 */
function corpus(notes: number) {
  const rand = rng(42);
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < 4000) {
    let w = "";
    const n = 1 + Math.floor(rand() * 3.2);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (w.length < 3 || seen.has(w) || STOP.includes(w)) continue;
    seen.add(w);
    words.push(w);
  }
  const cdf = new Float64Array(words.length);
  let sum = 0;
  for (let r = 0; r < words.length; r++) cdf[r] = sum += 1 / Math.pow(r + 1, 1.07);
  const zipf = (u: number) => {
    const target = u * sum;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  const drafts = [];
  for (let i = 0; i < notes; i++) {
    const r = rng(1000 + i);
    const body = Array.from(
      { length: 70 + Math.floor(r() * 20) },
      () => r() < 0.4 ? STOP[Math.floor(r() * STOP.length)] : zipf(r()),
    ).join(" ");
    const title = Array.from({ length: 4 }, () => zipf(r())).join(" ");
    drafts.push({ text: `${body}.`, title, labels: [`topic-${i % 20}`] });
  }
  const q = rng(7);
  const queries = Array.from(
    { length: 50 },
    () =>
      Array.from({ length: 2 + Math.floor(q() * 2) }, () => words[20 + Math.floor(q() * 380)])
        .join(" "),
  );
  return { drafts, queries, queryWords: words.slice(20, 400) };
}

async function seedProject(notes: number, drafts: { text: string }[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-bench-" });
  const { openMemo } = await import("../memory/mod.ts");
  const memo = await openMemo({ rootDir: dir });
  await memo.rememberMany(drafts.slice(0, notes));
  await memo.close();
  return dir;
}

/** Installs the Node peer (bench/peers/sdk_peer_package.json) in a temporary folder, once. */
async function installNodePeer(): Promise<string> {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/memo-bench-peers`;
  await Deno.mkdir(dir, { recursive: true });
  const pkg = await Deno.readTextFile(`${ROOT}bench/peers/sdk_peer_package.json`);
  let installed = "";
  try {
    installed = await Deno.readTextFile(`${dir}/package.json`);
  } catch { /* first run */ }
  await Deno.copyFile(`${ROOT}bench/peers/sdk_stateless.mjs`, `${dir}/sdk_stateless.mjs`);
  if (installed !== pkg) {
    log("installing the SDK peer for Node (npm install)");
    await Deno.writeTextFile(`${dir}/package.json`, pkg);
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-package-lock", "--no-audit", "--no-fund", "--silent"],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`npm install failed: ${new TextDecoder().decode(out.stderr)}`);
    }
  }
  return dir;
}

function rpc(method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) });
}

function luaString(s: string): string {
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The start of every wrk script: a JSON-RPC POST as an MCP client sends it. */
const WRK_POST = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
`;

async function luaScript(bodies: string[]): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    file,
    `${WRK_POST}local bodies = { ${bodies.map(luaString).join(", ")} }
local i = 0
request = function()
  i = i + 1
  return wrk.format(nil, nil, nil, bodies[(i % #bodies) + 1])
end
`,
  );
  return file;
}

/**
 * A wrk script whose every request is a `recall` of a fresh random query (two
 * or three of `words`), so that no answer can come from memo's recall cache.
 * Each wrk thread seeds its own generator.
 */
async function distinctRecallScript(words: string[]): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    file,
    `${WRK_POST}local words = { ${words.map(luaString).join(", ")} }
local i = 0
init = function(args)
  math.randomseed(os.time() + tonumber(string.sub(tostring({}), 8), 16) % 1000003)
end
request = function()
  i = i + 1
  local n = 2 + math.random(0, 1)
  local q = words[math.random(#words)]
  for k = 2, n do q = q .. " " .. words[math.random(#words)] end
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. i ..
    ',"method":"tools/call","params":{"name":"recall","arguments":{"query":"' .. q ..
    '","limit":10}}}')
end
`,
  );
  return file;
}

interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  errors: number;
}

function toMs(v: string, unit: string): number {
  const n = Number(v);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60000 : n;
}

async function wrk(url: string, script: string, seconds: number): Promise<WrkResult> {
  const out = await new Deno.Command("wrk", {
    args: [
      "-t2",
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      "--latency",
      "--timeout",
      "10s",
      "-s",
      script,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const pct = (p: string) => {
    const m = text.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s|m)`));
    return m ? toMs(m[1], m[2]) : NaN;
  };
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN);
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? 0);
  const non2xx = Number(text.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  const sock = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const errors = non2xx + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, p50ms: pct("50"), p99ms: pct("99"), requests, errors };
}

function rssKiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------- run

const wrkCheck = await new Deno.Command("wrk", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().catch(() => undefined);
if (!wrkCheck) {
  console.error("bench: wrk is missing; install it with: apt-get install -y wrk");
  Deno.exit(1);
}

const wantsMemo = !flags.only ||
  flags.only.split(",").some((name) => name === "memo" || name === "memo-no-engine");
if (wantsMemo) log(`seeding ${NOTES} notes`);
const { drafts, queries, queryWords } = corpus(NOTES);
const project = wantsMemo ? await seedProject(NOTES, drafts) : "";
const cpuInfo = Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.+)/)?.[1] ?? "?";
const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

const bodies = {
  list: rpc("tools/list"),
  echoCall: rpc("tools/call", {
    name: "echo",
    arguments: { message: "staging database migration" },
  }),
};
const queriesFile = await Deno.makeTempFile({ suffix: ".json" });
await Deno.writeTextFile(queriesFile, JSON.stringify(queries));
const scripts = {
  list: await luaScript([bodies.list]),
  memoCall: await luaScript(
    queries.map((query) => rpc("tools/call", { name: "recall", arguments: { query, limit: 10 } })),
  ),
  echoCall: await luaScript([bodies.echoCall]),
  memoDistinct: await distinctRecallScript(queryWords),
};

const rows: Record<string, unknown>[] = [];
const targets = [
  {
    name: "memo",
    start: (p: number) =>
      startTarget("memo", ["serve", "-A", "--host", "127.0.0.1", "--port", String(p), "http.ts"], {
        MEMO_ROOT_DIR: project,
      }, p),
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
      startTarget("sdk", ["sdk_stateless.mjs", String(p)], {}, p, "node", await installNodePeer()),
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
].filter((t) => !flags.only || flags.only.split(",").includes(t.name));

for (let round = 1; round <= ROUNDS; round++) {
  for (const t of targets) {
    const target = await t.start(freePort());
    try {
      const workloads: [string, string][] = [["tools/list", scripts.list], [t.callName, t.call]];
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

const fmt = (n: number, d = 0) => Number.isFinite(n) ? n.toFixed(d) : "-";
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
if (soak) console.log(`\nsoak: ${JSON.stringify(soak)}`);
if (flags.json) {
  await Deno.writeTextFile(
    flags.json,
    JSON.stringify({ date: new Date().toISOString(), cpu: cpuInfo, rows, soak }, null, 2),
  );
}
for (const file of Object.values(scripts)) await Deno.remove(file).catch(() => {});
