/**
 * `memo serve`: the hosted MCP endpoint (stateless Streamable HTTP) on 127.0.0.1:8787/mcp by
 * default, and memo's web page on `/` (`--ui-path` moves it, `--no-ui` turns it off), for the
 * project in `--dir`. It runs under Deno and, after the npm build, under Node (`CliIO.serve`).
 *
 * @module
 */

import { createHttpEndpoint, withRequestLog } from "../../server/http/mod.ts";
import { MEMO_MCP_INSTRUCTIONS } from "../../server/mod.ts";
import { runtimeFactoryFromEnv } from "../../runtimes/start/mod.ts";
import type { MemoMcpRuntime } from "../../runtimes/mod.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { jsonDocument, orderedWriter } from "../output.ts";
import { listen, shutdownOnSignal } from "./_shutdown.ts";
import { warnMissingDriver, withGitStats } from "../git/warning.ts";
import { serveConfig } from "./serve_config.ts";

/** Milliseconds between ending the listen streams and stopping the server. */
const STREAM_FLUSH_MS = 50;

function urlOf(hostname: string, port: number, path: string): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}${path}`;
}

function hint(url: string, auth: boolean, oauth?: { issuer: string }): string {
  if (oauth !== undefined) {
    return [
      `memo: connect an MCP client with the Streamable HTTP transport to ${url}; ` +
      `it signs in with OAuth at ${oauth.issuer}`,
      `memo:   e.g. claude mcp add --transport http memo ${url}`,
      "memo: press Ctrl+C to stop",
    ].join("\n") + "\n";
  }
  const authHeader = auth ? ' -H "Authorization: Bearer $MEMO_MCP_BEARER_TOKEN"' : "";
  return [
    `memo: connect an MCP client with the Streamable HTTP transport to ${url}` +
    (auth ? " (header Authorization: Bearer <MEMO_MCP_BEARER_TOKEN>)" : ""),
    `memo:   e.g. claude mcp add --transport http memo ${url}${authHeader}`,
    `memo:   or: curl -s${authHeader} -H 'Content-Type: application/json' ` +
    `-d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' ${url}`,
    "memo: press Ctrl+C to stop",
  ].join("\n") + "\n";
}

async function runServe(argv: string[], io: CliIO): Promise<number> {
  const config = await serveConfig(argv, io);
  const serve = io.serve;
  if (!serve) throw new Error("Cannot serve HTTP: this platform gives memo no server");
  const json = argv.includes("--json");
  const print = orderedWriter(io.stderr);
  const runtimeFactory = runtimeFactoryFromEnv({
    env: io.env,
    rootDir: config.rootDir,
    secrets: config.secrets,
    hosted: config.hosted,
  });
  let built: MemoMcpRuntime | undefined;
  // memo's own instructions for the model, as `memo mcp` sends them.
  const options = { instructions: MEMO_MCP_INSTRUCTIONS, ...config.options };
  const endpoint = createHttpEndpoint(options, io.env, {
    routed: true,
    runtime: (dir?: string) =>
      built = withGitStats(
        runtimeFactory(dir),
        dir ?? config.rootDir,
        io.runProgram,
      ),
    ui: config.ui,
    uiPath: config.uiPath,
    projectOAuth: config.projectOAuth,
  });
  try {
    await endpoint.server(); // fail before listening when the runtime cannot start
    // … or when the project's .memo/config.json makes it unworkable (read when the runtime opens)
    await built?.recallProfile?.();
    await endpoint.ready(); // … or when the OAuth issuer cannot be reached
  } catch (e) {
    await endpoint.close();
    throw e;
  }
  // Request lines follow the banner (a request may come before it is all printed).
  let bannerPrinted!: () => void; // not Promise.withResolvers: Node 20 lacks it
  const banner = new Promise<void>((resolve) => (bannerPrinted = resolve));
  // Request lines go out in batches: those of the requests answered in one turn of the event
  // loop make one write (under load, one write per request costs more than the request).
  let lines: string[] = [];
  const flushLines = () => {
    if (lines.length === 0) return;
    const text = lines.join("");
    lines = [];
    void print(text);
  };
  const handle = withRequestLog(endpoint.handle, {
    level: config.logLevel,
    log: (line) => {
      if (lines.push(`${line}\n`) === 1) void banner.then(() => setTimeout(flushLines, 0));
    },
  });
  const stopped = new AbortController();
  // A signal ends the listen streams (each with its completion result), then stops
  // accepting connections; what is still in flight gets at most a second. The server
  // stops STREAM_FLUSH_MS after the streams end: stopping it at once would cut the
  // streams before their last event is written.
  const shutdown = shutdownOnSignal(io, () => endpoint.closeStreams(), STREAM_FLUSH_MS);
  const server = await listen(serve, handle, config, stopped.signal, async () => {
    shutdown.remove();
    await endpoint.close();
  });
  const url = urlOf(config.hostname, server.port, endpoint.path ?? "/mcp");
  const ui = endpoint.uiPath === undefined
    ? null
    : urlOf(config.hostname, server.port, endpoint.uiPath);
  await print(`memo: listening on ${url}\n`);
  if (ui !== null) await print(`memo: web page at ${ui}\n`);
  if (config.warning) await print(`memo: warning: ${config.warning}\n`);
  if (endpoint.oauth) {
    await print(
      `memo: OAuth: tokens from ${endpoint.oauth.issuer} for ${endpoint.oauth.resource}\n`,
    );
  }
  await print(hint(url, endpoint.authRequired, endpoint.oauth));
  // A clone without the notes' merge driver says so, with the fix.
  await warnMissingDriver(config.rootDir, io, print);
  bannerPrinted();
  if (json) {
    await io.stdout(
      jsonDocument({ url, authRequired: endpoint.authRequired, ui, oauth: endpoint.oauth ?? null }),
    );
  }
  await shutdown.wait(server, () => stopped.abort());
  shutdown.remove();
  flushLines();
  // The hybrid runtime pushes its outbox here, within what is left of the second.
  await endpoint.close({ drainMs: shutdown.remaining() });
  await print("memo: stopped\n");
  return 0;
}

/**
 * The `memo serve` subcommand. It serves until a shutdown signal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serve } from "../../platform/mod.ts";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { serveCommand } from "./serve.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * let stop = () => {};
 * let listening!: (url: string) => void;
 * const url = new Promise<string>((resolve) => (listening = resolve));
 * const io = {
 *   ...recordingIO(rootDir),
 *   stderr: (text: string) => {
 *     const m = /listening on (\S+)/.exec(text);
 *     if (m) listening(m[1]);
 *     return Promise.resolve();
 *   },
 *   serve,
 *   onShutdownSignal: (callback: () => void) => {
 *     stop = callback; // what Ctrl+C calls
 *     return () => {};
 *   },
 * };
 * const exit = serveCommand.run(["--port", "0"], io);
 * const response = await fetch(await url, {
 *   method: "POST",
 *   headers: { "content-type": "application/json", accept: "application/json" },
 *   body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 * });
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * stop();
 * assert.equal(await exit, 0);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const serveCommand: CliCommand = {
  ...COMMAND_INFO.serve,
  run: runServe,
};
