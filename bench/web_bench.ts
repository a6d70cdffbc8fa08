/**
 * Benchmark of memo's web page (issue 14), in Debian's headless Chromium
 * driven by playwright-core (`tests/_browser.ts`: the system's Chromium with
 * the closed-network flags), against MCP Inspector's web UI in the same run:
 *
 * - transfer: the page and every asset it loads, as the browser's resource
 *   timing reports them (`encodedBodySize`: the bytes of the body on the wire,
 *   gzip when the server sends it; `decodedBodySize`: raw), each checked by a
 *   raw HTTP client (`node:http`, which never decompresses) asking once with
 *   `Accept-Encoding: gzip` and once with `identity`; the same for the
 *   Inspector's page;
 * - time to first search result: `memo serve` on a project of 10,000
 *   English-like notes (the corpus of `bench/http_bench.ts`); Chromium opens
 *   `/?q=<query>&engine=lexical` and the time is taken in the page, from
 *   navigation start (`performance.now()`) to the first moment the list named
 *   "Results" holds a result (a `MutationObserver` in an init script). The
 *   cold run is the first navigation after the server started, in a fresh
 *   browser context; then `--runs` navigations each in a new page of one
 *   context (HTTP cache warm, every query new), and `--runs` each in a new
 *   context (HTTP cache empty);
 * - for scale: the same lexical recall over MCP from this process (HTTP POST
 *   `tools/call recall` with the page's arguments: lexical, limit 20,
 *   explain; every query new, and one query repeated);
 * - the peer: MCP Inspector 2.12.0 (`npm:@modelcontextprotocol/inspector`, its
 *   web client and proxy under Node, installed with npm in a temporary folder
 *   unless `--inspector-dir` names an installed one), pointed at the same
 *   server's Streamable HTTP endpoint; each run opens the Inspector's page,
 *   connects, opens Tools, picks `recall`, types the query, sets what
 *   memo's page asks (`lexical`, limit 20, explain) and executes; the time
 *   runs from navigation start to the moment the result's JSON is in the
 *   page, with the page ready, connected and the click on "Execute Tool"
 *   given apart.
 *
 * Afterwards each search's first hit is checked against the same recall
 * over MCP (memo's page: the first result's title; the Inspector: its JSON
 * holds the first hit's id).
 *
 * Each search uses its own query (none asked before in the run), so no figure
 * comes from memo's recall cache unless it says "repeated".
 *
 * The server runs with `MEMO_LOCAL_EMBEDDINGS=false` unless `--embeddings`:
 * otherwise it embeds every note in the background (minutes for 10,000 notes
 * on 2 cores) while the figures are taken.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/web_bench.ts [--notes 10000] [--runs 10] [--only memo,inspector] [--inspector-dir DIR] [--embeddings] [--json out.json]
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { get } from "node:http";
import { parseArgs } from "node:util";
import { join } from "node:path";
import { type BrowserContext, launchBrowser, type Page } from "../tests/_browser.ts";
import {
  corpus,
  cpuModel,
  DENO,
  fmt,
  freePort,
  loadAvg,
  log,
  ROOT,
  seedProject,
} from "./_http_kit.ts";
import { percentile } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    notes: { type: "string", default: "10000" },
    runs: { type: "string", default: "10" },
    only: { type: "string" },
    "inspector-dir": { type: "string" },
    json: { type: "string" },
    embeddings: { type: "boolean", default: false },
  },
});
const NOTES = Number(flags.notes);
const RUNS = Number(flags.runs);
const ONLY = new Set((flags.only ?? "memo,inspector").split(","));
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

/** What a page load sent over the wire, per resource. */
interface Transfer {
  url: string;
  kind: string;
  /** Body bytes on the wire, as the browser saw them (gzip when sent so). */
  wire: number;
  /** Body bytes once decoded. */
  raw: number;
  /** A raw client's count with `Accept-Encoding: gzip`, and its content-encoding. */
  checkGzip: number;
  checkEncoding: string;
  /** A raw client's count with `Accept-Encoding: identity`. */
  checkRaw: number;
  /** The raw body gzipped here (`CompressionStream`), served so or not. */
  gzipped: number;
}

/** Timings of one browser search, ms from navigation start. */
interface Run {
  query: string;
  /** The first result in the page. */
  result: number;
  /** HTML received (navigation `responseEnd`). */
  html: number;
  /** `DOMContentLoaded` ended. */
  dom: number;
  /** The Inspector: the click on "Execute Tool". */
  execute?: number;
  /** The Inspector: its server switch shown. */
  ready?: number;
  /** The Inspector: connected to memo. */
  connected?: number;
}

// An init script: records, in `window.__bench`, the time (performance.now(),
// from navigation start) at which each check first holds (checks are the
// sources of functions; `result` is the one waited for), and the click on a
// button whose text is "Execute Tool" (`execute`).
function observerScript(checks: Record<string, string>): string {
  return `(() => {
  const b = (window.__bench = {});
  const checks = { ${Object.entries(checks).map(([k, v]) => `${k}: ${v}`).join(", ")} };
  const look = () => {
    for (const [name, check] of Object.entries(checks)) {
      if (b[name] !== undefined) continue;
      try { if (check()) b[name] = performance.now(); } catch {}
    }
    if (Object.keys(checks).every((name) => b[name] !== undefined)) observer.disconnect();
  };
  const observer = new MutationObserver(look);
  const start = () => { observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true }); look(); };
  if (document.documentElement) start(); else document.addEventListener("readystatechange", start, { once: true });
  document.addEventListener("click", (e) => {
    const button = e.target instanceof Element ? e.target.closest("button") : null;
    if (button && button.textContent.trim() === "Execute Tool" && b.execute === undefined) b.execute = performance.now();
  }, true);
})();`;
}

// memo's page: a list named "Results" (aria-label, or aria-labelledby) with a
// button inside (each result's title is one).
const MEMO_CHECK = `() => {
  for (const el of document.querySelectorAll('[role="list"], ul, ol')) {
    const by = el.getAttribute("aria-labelledby");
    const name = el.getAttribute("aria-label") ??
      (by ? by.split(/\\s+/).map((id) => document.getElementById(id)?.textContent ?? "").join(" ").trim() : "");
    if (name === "Results" && el.querySelector("button")) return true;
  }
  return false;
}`;

// The Inspector: its page shows the server's switch (ready), the switch is on
// (connected), its result panel's JSON (an Ace editor) shows the tool's
// answer (result).
const INSPECTOR_READY = `() => document.querySelector('[role="switch"]') !== null`;
const INSPECTOR_CONNECTED = `() => document.querySelector('[role="switch"]')?.checked === true &&
  [...document.querySelectorAll("p")].some((p) => p.textContent.trim() === "Connected")`;
const INSPECTOR_CHECK =
  `() => [...document.querySelectorAll("h3")].some((h) => h.textContent.trim() === "Results") &&
  [...document.querySelectorAll(".ace_content")].some((c) => c.textContent.includes('"hits"'))`;

async function waitForResult(page: Page, timeout = 60_000): Promise<Run & { query: "" }> {
  await page.waitForFunction(
    () => (globalThis as { __bench?: { result?: number } }).__bench?.result !== undefined,
    undefined,
    {
      timeout,
      polling: 50,
    },
  );
  return await page.evaluate(() => {
    const b = (globalThis as unknown as {
      __bench: { result: number; execute?: number; ready?: number; connected?: number };
    }).__bench;
    const nav = performance.getEntriesByType("navigation")[0] as unknown as {
      responseEnd: number;
      domContentLoadedEventEnd: number;
    };
    return {
      query: "" as const,
      result: b.result,
      execute: b.execute,
      ready: b.ready,
      connected: b.connected,
      html: nav.responseEnd,
      dom: nav.domContentLoadedEventEnd,
    };
  });
}

/** The body a raw HTTP/1.1 client receives (no decompression). */
function rawGet(
  url: string,
  acceptEncoding: string,
): Promise<{ body: Uint8Array; encoding: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          body: new Uint8Array(Buffer.concat(chunks)),
          encoding: String(res.headers["content-encoding"] ?? "none"),
        }));
      res.on("error", reject);
    }).on("error", reject);
  });
}

/** The size of `bytes` gzipped by `CompressionStream` (what memo's server uses). */
async function gzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** Loads `url` in a fresh context and lists what came from `origin`. */
async function measureTransfer(
  context: BrowserContext,
  url: string,
  origin: string,
  settle: (page: Page) => Promise<void>,
): Promise<Transfer[]> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: "load" });
  await settle(page);
  const entries = await page.evaluate(() =>
    [
      ...performance.getEntriesByType("navigation"),
      ...performance.getEntriesByType("resource"),
    ].map((e) => {
      const r = e as unknown as {
        name: string;
        initiatorType: string;
        encodedBodySize: number;
        decodedBodySize: number;
      };
      return {
        url: r.name,
        kind: r.initiatorType,
        wire: r.encodedBodySize,
        raw: r.decodedBodySize,
      };
    })
  );
  await page.close();
  const out: Transfer[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    // Another origin (the Inspector's web fonts, unreachable here), or a file
    // the page names twice (served from the memory cache the second time).
    if (!e.url.startsWith(origin)) continue;
    if (e.kind === "fetch" || e.kind === "xmlhttprequest" || e.kind === "other" && e.raw === 0) {
      // Data calls (MCP), not the page's files; listed apart.
      out.push({ ...e, checkGzip: NaN, checkEncoding: "-", checkRaw: NaN, gzipped: NaN });
      continue;
    }
    if (seen.has(e.url)) continue;
    seen.add(e.url);
    const gz = await rawGet(e.url, "gzip");
    const plain = await rawGet(e.url, "identity");
    out.push({
      ...e,
      checkGzip: gz.body.length,
      checkEncoding: gz.encoding,
      checkRaw: plain.body.length,
      gzipped: await gzipSize(plain.body),
    });
  }
  return out;
}

function summarize(xs: number[]): { p50: number; p95: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 0.5), p95: percentile(s, 0.95), min: s[0], max: s[s.length - 1] };
}

function ms(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? "-" : fmt(n, 0);
}

/** `memo serve` on `project`; resolves once it printed its listening line. */
async function startMemoServe(project: string): Promise<{ origin: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", "cli.ts", "serve", "--port", String(port), "--dir", project],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      // Off unless --embeddings: `memo serve` would otherwise embed the 10,000
      // notes in the background (minutes on 2 cores) under every figure.
      ...(flags.embeddings ? {} : { MEMO_LOCAL_EMBEDDINGS: "false" }),
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/memo: listening on/.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`Cannot start memo serve: it exited; it printed:\n${text}`);
    text += value;
  }
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** One lexical recall over MCP: its time and first hit. */
async function mcpRecall(
  endpoint: string,
  query: string,
): Promise<{ ms: number; first?: { id: string; title: string }; hits: number }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    // What the page asks for a search.
    params: { name: "recall", arguments: { query, engine: "lexical", limit: 20, explain: true } },
  });
  const t0 = performance.now();
  const res = await fetch(endpoint, { method: "POST", headers: MCP_HEADERS, body });
  const answer = await res.json();
  const took = performance.now() - t0;
  const hits = answer.result?.structuredContent?.hits ?? [];
  if (!res.ok || answer.error || answer.result?.isError) {
    throw new Error(`Cannot recall over MCP: ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return {
    ms: took,
    hits: hits.length,
    first: hits[0] ? { id: hits[0].note.id, title: hits[0].note.title } : undefined,
  };
}

/** The Inspector, installed (or found) and running against `serverUrl`. */
async function startInspector(
  serverUrl: string,
): Promise<{ url: string; origin: string; version: string; stop(): Promise<void> }> {
  const dir = flags["inspector-dir"] ?? await Deno.makeTempDir({ prefix: "memo-bench-inspector-" });
  const entry = join(
    dir,
    "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
  );
  if (!await Deno.stat(entry).then(() => true, () => false)) {
    log(`installing ${INSPECTOR} with npm in ${dir}`);
    await Deno.writeTextFile(
      join(dir, "package.json"),
      '{"name":"inspector-bench","private":true}',
    );
    const install = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--loglevel=error", INSPECTOR],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!install.success) {
      throw new Error(
        `Cannot install ${INSPECTOR}: ${new TextDecoder().decode(install.stderr).slice(-1500)}`,
      );
    }
  }
  const home = await Deno.makeTempDir({ prefix: "memo-bench-inspector-home-" });
  const port = freePort();
  const token = crypto.randomUUID().replaceAll("-", "");
  const child = new Deno.Command("node", {
    args: [entry, "--web", "--transport", "http", "--server-url", serverUrl],
    cwd: dir,
    env: {
      HOME: home,
      CLIENT_PORT: String(port),
      MCP_SANDBOX_PORT: String(freePort()),
      MCP_AUTO_OPEN_ENABLED: "false",
      MCP_INSPECTOR_API_TOKEN: token,
      MCP_INSPECTOR_SECRET_STORE: "memory",
      MCP_STORAGE_DIR: join(home, "storage"),
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const errors = child.stderr.pipeThrough(new TextDecoderStream());
  let errText = "";
  (async () => {
    for await (const chunk of errors) errText += chunk;
  })();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (!/is up and running/.test(text)) {
    const { done, value } = await reader.read();
    if (done || Date.now() > deadline) {
      try {
        child.kill("SIGKILL");
      } catch { /* gone */ }
      await child.status;
      throw new Error(`Cannot start the Inspector: ${text}\n${errText}`.slice(-2000));
    }
    text += value;
  }
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  const version = new TextDecoder().decode(
    (await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output()).stdout,
  ).trim();
  return {
    origin: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/?MCP_INSPECTOR_API_TOKEN=${token}`,
    version,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      if (!flags["inspector-dir"]) await Deno.remove(dir, { recursive: true }).catch(() => {});
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** One recall through the Inspector's UI, in a new page of `context`. */
async function inspectorRun(
  context: BrowserContext,
  url: string,
  query: string,
): Promise<Run & { shown: string }> {
  const page = await context.newPage();
  await page.addInitScript(observerScript({
    ready: INSPECTOR_READY,
    connected: INSPECTOR_CONNECTED,
    result: INSPECTOR_CHECK,
  }));
  await page.goto(url, { waitUntil: "commit" });
  // Mantine draws its switch and segmented control over the inputs, so
  // these are checked through the input (force) or clicked on their label.
  await page.getByRole("switch").check({ force: true });
  await page.locator('label[for$="-Tools"]').click();
  await page.getByRole("button", { name: "Recall recall" }).click();
  await page.getByRole("textbox", { name: "query", exact: true }).fill(query);
  // The request memo's page sends: limit 20, explain.
  await page.getByRole("textbox", { name: "limit", exact: true }).fill("20");
  await page.getByRole("checkbox", { name: "explain" }).check({ force: true });
  await page.getByRole("textbox", { name: "engine", exact: true }).click();
  await page.getByRole("option", { name: "lexical" }).click();
  await page.getByRole("button", { name: "Execute Tool" }).click();
  const run = await waitForResult(page);
  const shown = (await page.locator(".ace_content").allTextContents()).join("\n");
  await page.close();
  return { ...run, query, shown };
}

/** One deep-linked search on memo's page, in a new page of `context`. */
async function memoRun(
  context: BrowserContext,
  origin: string,
  query: string,
): Promise<Run & { shown: string }> {
  const page = await context.newPage();
  await page.addInitScript(observerScript({ result: MEMO_CHECK }));
  await page.goto(`${origin}/?q=${encodeURIComponent(query)}&engine=lexical`, {
    waitUntil: "commit",
  });
  const run = await waitForResult(page);
  const shown = await page.getByRole("list", { name: "Results" }).getByRole("button").first()
    .innerText();
  await page.close();
  return { ...run, query, shown };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  return [
    line(rows[0]),
    `| ${widths.map((w, i) => (i === 0 ? "-".repeat(w) : "-".repeat(w - 1) + ":")).join(" | ")} |`,
    ...rows.slice(1).map(line),
  ].join("\n");
}

function transferRows(list: Transfer[], origin: string): string[][] {
  const rows = [[
    "resource",
    "wire B",
    "raw B",
    "check gzip B",
    "check raw B",
    "encoding",
    "if gzipped B",
  ]];
  let wire = 0;
  let raw = 0;
  let gzipped = 0;
  for (const t of list) {
    if (Number.isNaN(t.checkGzip)) continue;
    wire += t.wire;
    raw += t.raw;
    gzipped += t.gzipped;
    rows.push([
      t.url.slice(origin.length).replace(/\?.*/, "") || "/",
      fmt(t.wire),
      fmt(t.raw),
      fmt(t.checkGzip),
      fmt(t.checkRaw),
      t.checkEncoding,
      fmt(t.gzipped),
    ]);
  }
  rows.push(["total", fmt(wire), fmt(raw), "", "", "", fmt(gzipped)]);
  return rows;
}

async function main() {
  const { drafts, queries } = corpus(NOTES);
  // Query sets that never overlap: memo's page, the Inspector, MCP.
  const memoQueries = queries.slice(0, 1 + 2 * RUNS);
  const inspectorQueries = queries.slice(1 + 2 * RUNS, 3 + 3 * RUNS);
  const mcpQueries = queries.slice(3 + 3 * RUNS);
  if (mcpQueries.length < 5) {
    throw new Error("Cannot run: --runs leaves too few of the 50 queries for MCP");
  }
  log(`seeding ${NOTES} notes`);
  const project = await seedProject(NOTES, drafts);
  const server = await startMemoServe(project);
  const endpoint = `${server.origin}/mcp`;
  const browser = await launchBrowser();
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpuModel(),
      cores: navigator.hardwareConcurrency,
      deno: Deno.version.deno,
      chromium: browser.version(),
    },
    notes: NOTES,
    runs: RUNS,
    embeddings: flags.embeddings,
  };
  console.log(
    `# Web page bench, ${NOTES} notes, background embedding ${flags.embeddings ? "on" : "off"}, ${
      new Date().toISOString()
    }`,
  );
  console.log(
    `machine: ${cpuModel()}, ${navigator.hardwareConcurrency} cores; Deno ${Deno.version.deno}; Chromium ${browser.version()}; load ${loadAvg()}`,
  );
  try {
    if (ONLY.has("memo")) {
      // The cold run first: the server has answered nothing yet.
      const coldContext = await browser.newContext();
      const cold = await memoRun(coldContext, server.origin, memoQueries[0]);
      await coldContext.close();

      const transferContext = await browser.newContext();
      const transfer = await measureTransfer(
        transferContext,
        `${server.origin}/`,
        server.origin,
        async (page) => {
          // The live subscription stays open, so no "network idle": the
          // list, then a second for the rest.
          await page.getByRole("list", { name: "Notes" }).waitFor({ timeout: 30_000 });
          await page.waitForTimeout(1000);
        },
      );
      await transferContext.close();

      const warmContext = await browser.newContext();
      await memoRun(warmContext, server.origin, memoQueries[0]); // fills the HTTP cache
      const warm: (Run & { shown: string })[] = [];
      for (let i = 1; i <= RUNS; i++) {
        warm.push(await memoRun(warmContext, server.origin, memoQueries[i]));
      }
      await warmContext.close();
      const fresh: (Run & { shown: string })[] = [];
      for (let i = RUNS + 1; i <= 2 * RUNS; i++) {
        const context = await browser.newContext();
        fresh.push(await memoRun(context, server.origin, memoQueries[i]));
        await context.close();
      }
      const mcpNew: number[] = [];
      for (const q of mcpQueries) mcpNew.push((await mcpRecall(endpoint, q)).ms);
      const mcpRepeated: number[] = [];
      for (let i = 0; i < 20; i++) mcpRepeated.push((await mcpRecall(endpoint, mcpQueries[0])).ms);
      // The page ran the same search as MCP: its first result has the title
      // of MCP's first hit (asked only now, so the runs above were all new).
      for (const run of [cold, ...warm, ...fresh]) {
        const first = (await mcpRecall(endpoint, run.query)).first;
        if (!first || !run.shown.includes(first.title)) {
          throw new Error(
            `memo's page showed "${run.shown}" first for "${run.query}"; MCP gives "${first?.title}"`,
          );
        }
      }

      console.log("\n## memo: transfer of the page (/, resource timing; checked with node:http)\n");
      console.log(table(transferRows(transfer, server.origin)));
      const calls = transfer.filter((t) => Number.isNaN(t.checkGzip));
      console.log(
        `\nMCP calls while loading /: ${calls.length}, ${
          fmt(calls.reduce((s, t) => s + t.wire, 0))
        } B on the wire, ${fmt(calls.reduce((s, t) => s + t.raw, 0))} B raw`,
      );
      const w = summarize(warm.map((r) => r.result));
      const f = summarize(fresh.map((r) => r.result));
      const n = summarize(mcpNew);
      const rep = summarize(mcpRepeated);
      console.log(
        `\n## memo: time to first search result, ${NOTES} notes (ms from navigation start)\n`,
      );
      console.log(table([
        ["run", "first result p50", "p95", "min", "max", "HTML p50", "DOMContentLoaded p50"],
        [
          "cold (first after server start)",
          ms(cold.result),
          "",
          "",
          "",
          ms(cold.html),
          ms(cold.dom),
        ],
        [
          `new page, cache warm (${RUNS})`,
          ms(w.p50),
          ms(w.p95),
          ms(w.min),
          ms(w.max),
          ms(summarize(warm.map((r) => r.html)).p50),
          ms(summarize(warm.map((r) => r.dom)).p50),
        ],
        [
          `new context, cache empty (${RUNS})`,
          ms(f.p50),
          ms(f.p95),
          ms(f.min),
          ms(f.max),
          ms(summarize(fresh.map((r) => r.html)).p50),
          ms(summarize(fresh.map((r) => r.dom)).p50),
        ],
      ]));
      console.log(
        `\nlexical recall over MCP from the bench process: every query new p50 ${
          fmt(n.p50, 2)
        } ms, p95 ${fmt(n.p95, 2)} ms (${mcpNew.length}); repeated p50 ${fmt(rep.p50, 2)} ms`,
      );
      report.memo = { transfer, cold, warm, fresh, mcpNew, mcpRepeated };
    }

    if (ONLY.has("inspector")) {
      let inspector;
      try {
        inspector = await startInspector(endpoint);
      } catch (e) {
        console.log(`\n## MCP Inspector: could not run: ${(e as Error).message}`);
        report.inspector = { error: (e as Error).message };
      }
      if (inspector) {
        try {
          const transferContext = await browser.newContext();
          const transfer = await measureTransfer(
            transferContext,
            inspector.url,
            inspector.origin,
            async (page) => {
              // Its proxy keeps an event stream open: its switch, then a second.
              await page.getByRole("switch").waitFor({ timeout: 30_000 });
              await page.waitForTimeout(1000);
            },
          );
          await transferContext.close();
          const coldContext = await browser.newContext();
          const cold = await inspectorRun(coldContext, inspector.url, inspectorQueries[0]);
          await coldContext.close();
          const context = await browser.newContext();
          await inspectorRun(context, inspector.url, inspectorQueries[0]); // fills the HTTP cache
          const warm: (Run & { shown: string })[] = [];
          for (let i = 1; i <= RUNS; i++) {
            warm.push(await inspectorRun(context, inspector.url, inspectorQueries[i]));
          }
          await context.close();
          // Each run showed the answer to its own query: MCP's first hit's id.
          for (const run of [cold, ...warm]) {
            const first = (await mcpRecall(endpoint, run.query)).first;
            if (!first || !run.shown.includes(first.id)) {
              throw new Error(
                `the Inspector's answer for "${run.query}" lacks MCP's first hit ${first?.id}`,
              );
            }
          }
          console.log(
            `\n## MCP Inspector 2.12.0 (Node ${inspector.version}): transfer of its page\n`,
          );
          console.log(table(transferRows(transfer, inspector.origin)));
          const s = summarize(warm.map((r) => r.result));
          const x = summarize(warm.map((r) => r.result - (r.execute ?? NaN)));
          const p50 = (f: (r: Run) => number | undefined) =>
            ms(summarize(warm.map((r) => f(r) ?? NaN)).p50);
          console.log(
            `\n## MCP Inspector: recall through its UI, ${NOTES} notes (ms from navigation start)\n`,
          );
          console.log(table([
            [
              "run",
              "result shown p50",
              "p95",
              "min",
              "max",
              "page ready",
              "connected",
              "Execute clicked",
              "Execute → result p50",
              "p95",
            ],
            [
              "cold (fresh context)",
              ms(cold.result),
              "",
              "",
              "",
              ms(cold.ready),
              ms(cold.connected),
              ms(cold.execute),
              ms(cold.result - (cold.execute ?? NaN)),
              "",
            ],
            [
              `new page, cache warm (${RUNS})`,
              ms(s.p50),
              ms(s.p95),
              ms(s.min),
              ms(s.max),
              p50((r) => r.ready),
              p50((r) => r.connected),
              p50((r) => r.execute),
              ms(x.p50),
              ms(x.p95),
            ],
          ]));
          report.inspector = { transfer, cold, warm, node: inspector.version };
        } finally {
          await inspector.stop();
        }
      }
    }
  } finally {
    await browser.close();
    await server.stop();
    await Deno.remove(project, { recursive: true }).catch(() => {});
  }
  if (flags.json) await Deno.writeTextFile(flags.json, JSON.stringify(report, null, 2));
}

if (import.meta.main) await main();
