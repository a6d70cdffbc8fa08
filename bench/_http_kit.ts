/**
 * What the HTTP benchmarks share (`bench/http_bench.ts`, the session era,
 * `bench/http_stateless.ts`, MCP 2026-07-28, and `bench/http_gzip.ts`): the
 * English-like corpus and its seeding, starting a server process and waiting
 * for it, the requests of both eras, and wrk with its Lua scripts.
 *
 * @module
 */

import { rng } from "./_rng.ts";

/** The repository's root folder, with a trailing slash. */
export const ROOT: string = new URL("..", import.meta.url).pathname;
/** The Deno that runs the benchmark, for the processes it starts. */
export const DENO: string = Deno.execPath();

/** A progress line on stderr (stdout carries the report). */
export function log(line: string): void {
  console.error(`bench: ${line}`);
}

/** A TCP port that was free a moment ago. */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * The arguments of `deno serve http.ts` (memo's hosted endpoint) on `127.0.0.1:<port>`, for
 * {@linkcode startTarget}.
 */
export function denoServeArgs(port: number): string[] {
  return ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "http.ts"];
}

/** A server process under load. */
export interface Target {
  /** Its name in the report. */
  name: string;
  /** Its MCP endpoint. */
  url: string;
  /** Its process id (for its RSS). */
  pid: number;
  /** Stops the process and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts a server process and waits until its endpoint at
 * `http://127.0.0.1:<port>/mcp` answers a POST (whatever the answer).
 */
export async function startTarget(
  name: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  command: string = DENO,
  cwd: string = ROOT,
): Promise<Target> {
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
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`${name} did not start`);
      }
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
  };
}

const STOP = (
  "the of and to a in is that it for was on with as be at by this not are but from or " +
  "have an they which you were there we all been one their if has would will what so when can"
).split(" ");
const SYLLABLES = (
  "ka ri to na me lo se ta de po ni ru la mi ko sa te vo bi du fa ge hi jo ku le mo nu pe " +
  "ro su ti ve wa xe yo zu ar en in on un er al el il ol st tr pl gr br cl dr fr pr sk sp"
).split(" ");

/** A note to seed. */
export interface Draft {
  text: string;
  title: string;
  labels: string[];
}

/**
 * English-like synthetic notes: a 4,000-word vocabulary drawn with Zipf(1.07),
 * stop words at their usual rate, about 80 words a note; and queries of two or
 * three mid-frequency words (ranks 20 to 400), as people ask.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corpus } from "./_http_kit.ts";
 *
 * const { drafts, queries, queryWords } = corpus(3);
 * assert.equal(drafts.length, 3);
 * assert.equal(queries.length, 50);
 * assert.equal(queryWords.length, 380);
 * assert.deepEqual(corpus(3).drafts, drafts); // seeded: the same every run
 * ```
 */
export function corpus(
  notes: number,
): { drafts: Draft[]; queries: string[]; queryWords: string[] } {
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
  const drafts: Draft[] = [];
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

/** A new temporary project holding the first `notes` drafts. */
export async function seedProject(notes: number, drafts: Draft[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-bench-" });
  const { openMemo } = await import("../memory/mod.ts");
  const memo = await openMemo({ rootDir: dir });
  await memo.rememberMany(drafts.slice(0, notes));
  await memo.close();
  return dir;
}

/** A JSON-RPC request with id 1. */
export function rpc(method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) });
}

/**
 * A string as a Lua literal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { luaString } from "./_http_kit.ts";
 *
 * assert.equal(luaString('say "hi"'), '"say \\"hi\\""');
 * ```
 */
export function luaString(s: string): string {
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The headers of a JSON-RPC POST as a 2025-06-18 MCP client sends it. */
export const SESSION_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "application/json",
  "Accept": "application/json, text/event-stream",
  "MCP-Protocol-Version": "2025-06-18",
};

/** The revision under test. */
export const STATELESS_VERSION = "2026-07-28";

/** The `_meta` every stateless request carries. */
export const STATELESS_META: Readonly<Record<string, unknown>> = {
  "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "memo-bench", version: "1.0.0" },
};

/**
 * A stateless JSON-RPC request (id 1) and the headers that go with it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statelessRequest } from "./_http_kit.ts";
 *
 * const { body, headers } = statelessRequest("tools/call", { name: "recall", arguments: {} });
 * assert.equal(headers["Mcp-Method"], "tools/call");
 * assert.equal(headers["Mcp-Name"], "recall");
 * assert.equal(headers["MCP-Protocol-Version"], "2026-07-28");
 * assert.equal(
 *   JSON.parse(body).params._meta["io.modelcontextprotocol/protocolVersion"],
 *   "2026-07-28",
 * );
 * ```
 */
export function statelessRequest(
  method: string,
  params: Record<string, unknown> = {},
): { body: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    ...SESSION_HEADERS,
    "MCP-Protocol-Version": STATELESS_VERSION,
    "Mcp-Method": method,
  };
  if (typeof params.name === "string") headers["Mcp-Name"] = params.name;
  return { body: rpc(method, { ...params, _meta: STATELESS_META }), headers };
}

/** The session era's version the HTTP benchmarks load. */
export const SESSION_VERSION = "2025-11-25";

/** One request the HTTP benchmarks send under load. */
export interface Workload {
  /** `session/list`, `session/ping`, `session/recall`, `stateless/list`, `stateless/discover` or `stateless/recall`. */
  key: string;
  era: "session" | "stateless";
  method: string;
  /** The era's version and the method, for the report. */
  label: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The HTTP benchmarks' workloads, each era with its own headers: `tools/list`, `ping` (the
 * 2026-07-28 era has `server/discover` instead) and `tools/call recall` of `query`, 10 hits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { httpWorkloads } from "./_http_kit.ts";
 *
 * const list = httpWorkloads("deploy");
 * assert.deepEqual(list.map((w) => w.key), [
 *   "session/list", "session/ping", "session/recall",
 *   "stateless/list", "stateless/discover", "stateless/recall",
 * ]);
 * assert.equal(list[2].label, "2025-11-25 tools/call recall");
 * assert.equal(list[5].headers["Mcp-Name"], "recall");
 * ```
 */
export function httpWorkloads(query: string): Workload[] {
  const session = { ...SESSION_HEADERS, "MCP-Protocol-Version": SESSION_VERSION };
  const recallArgs = { name: "recall", arguments: { query, limit: 10 } };
  return [
    { key: "session/list", method: "tools/list", body: rpc("tools/list"), headers: session },
    { key: "session/ping", method: "ping", body: rpc("ping"), headers: session },
    {
      key: "session/recall",
      method: "tools/call",
      body: rpc("tools/call", recallArgs),
      headers: session,
    },
    { key: "stateless/list", method: "tools/list", ...statelessRequest("tools/list") },
    {
      key: "stateless/discover",
      method: "server/discover",
      ...statelessRequest("server/discover"),
    },
    {
      key: "stateless/recall",
      method: "tools/call",
      ...statelessRequest("tools/call", recallArgs),
    },
  ].map((w) => {
    const era = w.key.startsWith("session") ? "session" as const : "stateless" as const;
    const version = era === "session" ? SESSION_VERSION : STATELESS_VERSION;
    const what = w.method === "tools/call" ? `${w.method} recall` : w.method;
    return { ...w, era, label: `${version} ${what}` };
  });
}

/** The start of a wrk script: a POST with these headers. */
function wrkPost(headers: Readonly<Record<string, string>>): string {
  return `wrk.method = "POST"\n` +
    Object.entries(headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}\n`)
      .join("");
}

/** A wrk script that POSTs `bodies` in turn, with `headers`. */
export async function luaScript(
  bodies: string[],
  headers: Readonly<Record<string, string>> = SESSION_HEADERS,
): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    file,
    `${wrkPost(headers)}local bodies = { ${bodies.map(luaString).join(", ")} }
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
 * Each wrk thread seeds its own generator. `extraParams` is spliced into
 * `params` after `arguments` (for a stateless request: `,"_meta":{…}`).
 */
export async function distinctRecallScript(
  words: string[],
  headers: Readonly<Record<string, string>> = SESSION_HEADERS,
  extraParams = "",
): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(
    file,
    `${wrkPost(headers)}local words = { ${words.map(luaString).join(", ")} }
local extra = ${luaString(extraParams)}
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
    '","limit":10}' .. extra .. '}}')
end
`,
  );
  return file;
}

/**
 * The targets `--only` names (all of `names` without it); throws on a name
 * that is not one of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { onlyTargets } from "./_http_kit.ts";
 *
 * assert.deepEqual([...onlyTargets("memo,bare", ["memo", "sdk", "bare"])], ["memo", "bare"]);
 * assert.equal(onlyTargets(undefined, ["memo", "sdk"]).size, 2);
 * assert.throws(() => onlyTargets("nope", ["memo"]), /--only: unknown target nope/);
 * ```
 */
export function onlyTargets(flag: string | undefined, names: readonly string[]): Set<string> {
  const only = new Set(flag?.split(",") ?? names);
  for (const name of only) {
    if (!names.includes(name)) {
      throw new Error(`--only: unknown target ${name}; use ${names.join(", ")}`);
    }
  }
  return only;
}

/** What wrk reports of one run. */
export interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  /** Non-2xx answers and socket errors. */
  errors: number;
  /** Bytes read per second, headers included (wrk's `Transfer/sec`). */
  bytesPerSec?: number;
}

function toMs(v: string, unit: string): number {
  const n = Number(v);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60000 : n;
}

/**
 * `wrk -t<threads> -c<connections> -d<seconds>s --latency -s <script> <url>`,
 * parsed; `threads` defaults to 2.
 */
export async function wrk(
  url: string,
  script: string,
  seconds: number,
  connections: number,
  threads = 2,
): Promise<WrkResult> {
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${threads}`,
      `-c${connections}`,
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
  const transfer = text.match(/Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/);
  const unit = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[transfer?.[2] ?? "B"] ?? 1;
  const bytesPerSec = transfer ? Number(transfer[1]) * unit : NaN;
  return { rps, p50ms: pct("50"), p99ms: pct("99"), requests, errors, bytesPerSec };
}

/** Exits with a hint when wrk is not installed. */
export async function requireWrk(): Promise<void> {
  // A missing program makes output() throw at once, not reject.
  const ok = await Promise.resolve()
    .then(() =>
      new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" }).output()
    )
    .catch(() => undefined);
  if (!ok) {
    console.error("bench: wrk is missing; install it with: apt-get install -y wrk");
    Deno.exit(1);
  }
}

/** A process's resident set size in KiB (NaN once it is gone). */
export function rssKiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** The CPU's model name. */
export function cpuModel(): string {
  return Deno.readTextFileSync("/proc/cpuinfo").match(/model name\s*:\s*(.+)/)?.[1] ?? "?";
}

/** The 1, 5 and 15 minute load averages. */
export function loadAvg(): string {
  return Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
}

/** A number for a table: fixed decimals, "-" when not finite. */
export function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "-";
}

/**
 * Waits up to 60 s until a Cloud API server answers `GET /v1/health` with
 * 200; otherwise kills `child` and throws `failure()`.
 */
export async function waitForCloudHealth(
  baseUrl: string,
  child: Deno.ChildProcess,
  failure: () => string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (true) {
    try {
      const res = await fetch(`${baseUrl}/v1/health`, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(failure());
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An HTTP answer as it came on the wire: its status, its headers in order, its body. */
export interface RawAnswer {
  status: number;
  /** Every header line, names lower-cased, in the order sent. */
  headers: [string, string][];
  body: string;
}

/**
 * POSTs `body` over a plain TCP connection and reads the answer as it comes on the wire (`fetch`
 * would merge repeated headers such as two `Vary` lines). The answer must carry `Content-Length`
 * or be chunked; the connection is closed after it.
 */
export async function rawPost(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
): Promise<RawAnswer> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const bytes = new TextEncoder().encode(body);
  const head = `POST ${pathname} HTTP/1.1\r\nhost: ${hostname}:${port}\r\n` +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") +
    `content-length: ${bytes.length}\r\nconnection: close\r\n\r\n`;
  const w = conn.writable.getWriter();
  await w.write(new TextEncoder().encode(head));
  await w.write(bytes);
  w.releaseLock();
  const text = await new Response(conn.readable).text();
  const split = text.indexOf("\r\n\r\n");
  const lines = text.slice(0, split).split("\r\n");
  const status = Number(lines[0].split(" ")[1]);
  const all = lines.slice(1).map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  });
  let rest = text.slice(split + 4);
  if (all.some(([k, v]) => k === "transfer-encoding" && v === "chunked")) {
    let out = "";
    while (true) {
      const eol = rest.indexOf("\r\n");
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      // Sizes count bytes: the answers here are ASCII JSON, where bytes are characters.
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    rest = out;
  }
  return { status, headers: all, body: rest };
}

/** Headers of the framing and the clock (each server writes its own), left out of comparisons. */
const FRAMING = new Set([
  "date",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
]);

/** The headers of an answer without those of the framing and the clock. */
export function contentHeaders(answer: RawAnswer): [string, string][] {
  return answer.headers.filter(([k]) => !FRAMING.has(k));
}

/** Installs the Node peer (bench/peers/sdk_peer_package.json) in a temporary folder, once. */
export async function installNodePeer(): Promise<string> {
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/memo-bench-peers`;
  await Deno.mkdir(dir, { recursive: true });
  const pkg = await Deno.readTextFile(`${ROOT}bench/peers/sdk_peer_package.json`);
  let installed = "";
  try {
    installed = await Deno.readTextFile(`${dir}/package.json`);
  } catch { /* first run */ }
  for (const peer of ["sdk_stateless.mjs", "sdk_v2_node.mjs"]) {
    await Deno.copyFile(`${ROOT}bench/peers/${peer}`, `${dir}/${peer}`);
  }
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

/** A process's CPU time (user + system) in milliseconds, from `/proc` (NaN once it is gone). */
export function cpuMs(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second here).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
