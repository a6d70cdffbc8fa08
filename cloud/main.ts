/**
 * The reference Cloud API server as a `deno serve` module. Configured by the `MEMO_CLOUD_*`
 * variables (`MEMO_CLOUD_API_KEYS` is required); the file store in `MEMO_CLOUD_DATA_DIR` (default
 * `./memo-cloud-data`), or PostgreSQL when `MEMO_CLOUD_DATABASE_URL` is set. It prints `memo: cloud
 * API listening on http://HOST:PORT/v1` and one line per request on stderr.
 *
 * @example Serve on the default address
 * ```sh
 * MEMO_CLOUD_API_KEYS=change-me:team deno serve -A --host 127.0.0.1 --port 8788 cloud/main.ts
 * ```
 *
 * @module
 */

import {
  cwd,
  envObject,
  exit,
  onShutdownSignal,
  stderrIsTerminal,
  writeStderr,
} from "../platform/mod.ts";
import { createMemoCloudServerFromEnv, type MemoCloudServer } from "./from_env.ts";

let written: Promise<void> = Promise.resolve();
/** Writes a line to stderr after the lines before it. */
function printLine(line: string): void {
  written = written.then(() => writeStderr(`${line}\n`)).catch(() => {});
}

let started: Promise<MemoCloudServer> | undefined;
function start(): Promise<MemoCloudServer> {
  // MEMO_LOG_LEVEL unset: `warn` on a terminal, `info` otherwise (as `memo serve`).
  const env = { MEMO_LOG_LEVEL: stderrIsTerminal() ? "warn" : "info", ...envObject() };
  started ??= createMemoCloudServerFromEnv(env, { cwd: cwd(), log: printLine });
  return started;
}

if (import.meta.main) {
  // Under `deno serve`: refuse to start, with one line, when the configuration cannot work.
  let server: MemoCloudServer | undefined;
  try {
    server = await start();
  } catch (e) {
    await writeStderr(`memo: ${e instanceof Error ? e.message : String(e)}\n`);
    exit(1);
  }
  // `deno serve` stops listening on SIGTERM/SIGINT, but the process only exits once nothing
  // is left open: close the store (PostgreSQL's pool keeps its connections otherwise).
  const removeSignal = onShutdownSignal(() => {
    removeSignal();
    server?.close().catch(() => {});
  });
}

/** Formats a listening address as a URL host. */
function hostOf(hostname: string): string {
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/**
 * The server for `deno serve` (and any host that takes `{ fetch }`). The server starts at the first
 * request when this module is imported rather than served.
 *
 * @example Health answers without a key
 * ```ts
 * import assert from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * Deno.env.set("MEMO_CLOUD_API_KEYS", "k-team:team");
 * Deno.env.set("MEMO_CLOUD_DATA_DIR", dataDir);
 * Deno.env.set("MEMO_LOG_LEVEL", "error"); // keep the example quiet
 * const { default: server } = await import("./main.ts");
 * const response = await server.fetch(new Request("http://127.0.0.1:8788/v1/health"));
 * assert.equal((await response.json()).status, "ok");
 * Deno.env.delete("MEMO_CLOUD_API_KEYS");
 * Deno.env.delete("MEMO_CLOUD_DATA_DIR");
 * Deno.env.delete("MEMO_LOG_LEVEL");
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
const server: {
  fetch(request: Request): Promise<Response>;
  onListen(addr: { hostname: string; port: number }): void;
} = {
  async fetch(request: Request): Promise<Response> {
    return await (await start()).handler(request);
  },
  onListen({ hostname, port }) {
    printLine(`memo: cloud API listening on http://${hostOf(hostname)}:${port}/v1`);
  },
};

export default server;
