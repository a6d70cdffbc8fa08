/**
 * `memo serve`: the hosted MCP endpoint (stateless Streamable HTTP) on
 * 127.0.0.1:8787/mcp by default, and memo's web page on `/` (`--ui-path`
 * moves it, `--no-ui` turns it off), for the project in `--dir`. It runs under
 * Deno and, after the npm build, under Node (`CliIO.serve`).
 *
 * @module
 */

import {
  createHttpEndpoint,
  defaultLogLevel,
  isLoopbackHost,
  type LogLevel,
  type MemoMcpHttpOptions,
  type MemoMcpOAuthOptions,
  type ProjectOAuthConfig,
  readProjectOAuthConfig,
  withRequestLog,
} from "../../server/http/mod.ts";
import {
  readProjectConfigFile,
  readRuntimeEnv,
  runtimeFactoryFromEnv,
} from "../../runtimes/start/mod.ts";
import {
  boolFlag,
  choiceFlag,
  intFlag,
  parseArgs,
  type ParsedArgs,
  stringFlag,
  UsageError,
} from "../args.ts";
import { readEnv } from "../../env.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { LIMIT_FLAGS, limitFlags } from "./limit_flags.ts";
import { jsonDocument, orderedWriter } from "../output.ts";
import { findProjectRoot } from "../project.ts";
import { shutdownOnSignal } from "./_shutdown.ts";

/**
 * Default interface of `memo serve`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SERVE_HOST, serveConfig } from "./serve.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const config = await serveConfig(["--dir", rootDir], { env: {}, cwd: "/" });
 * assert.equal(config.hostname, DEFAULT_SERVE_HOST);
 * assert.equal(DEFAULT_SERVE_HOST, "127.0.0.1"); // loopback: nothing else can connect
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const DEFAULT_SERVE_HOST = "127.0.0.1";
/**
 * Default port of `memo serve`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SERVE_PORT, serveConfig } from "./serve.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const config = await serveConfig(["--dir", rootDir], { env: {}, cwd: "/" });
 * assert.equal(config.port, DEFAULT_SERVE_PORT);
 * assert.equal(DEFAULT_SERVE_PORT, 8787);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const DEFAULT_SERVE_PORT = 8787;

/** The OAuth flags and the `auth.oauth` fields they set (the client secret has no flag). */
const OAUTH_FLAGS = {
  "oauth-issuer": "issuer",
  "oauth-resource": "resource",
  "oauth-jwks-uri": "jwksUri",
  "oauth-page-client-id": "pageClientId",
} as const;

const SPEC = {
  string: [
    "dir",
    "host",
    "port",
    "allowed-origins",
    "ui-path",
    "secrets",
    ...LIMIT_FLAGS,
    ...Object.keys(OAUTH_FLAGS),
    "oauth-scopes",
    "oauth-introspection-url",
    "oauth-introspection-client-id",
  ],
  boolean: ["json", "read-only", "no-auth", "no-ui"],
};

/**
 * What `memo serve` runs with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ServeConfig, serveConfig } from "./serve.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const config: ServeConfig = await serveConfig(
 *   ["--host", "0.0.0.0", "--no-auth", "--dir", rootDir],
 *   { env: {}, cwd: "/" },
 * );
 * assert.deepEqual(config.options, { auth: { requireAuth: false } });
 * assert.match(config.warning!, /only requests whose Host is loopback are answered/);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface ServeConfig {
  /** Interface to bind. */
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** The project the local runtime serves. */
  rootDir: string;
  /** The endpoint options the flags set (they win over the `MEMO_MCP_*` variables). */
  options: MemoMcpHttpOptions;
  /** `--no-ui` (false); unset, `MEMO_UI` decides (default on). */
  ui?: boolean;
  /** `--ui-path`; unset, `MEMO_UI_PATH` decides (default `/`). */
  uiPath?: string;
  /** A warning to print before serving. */
  warning?: string;
  /** The `oauth` block of the project's `.memo/config.json`, if any. */
  projectOAuth?: ProjectOAuthConfig;
  /**
   * Which request lines are printed (`MEMO_LOG_LEVEL`); default `warn` when
   * stderr is a terminal, `info` when it is not.
   */
  logLevel: LogLevel;
}

/**
 * The configuration `memo serve` runs with: the flags as endpoint options,
 * over the `MEMO_*` variables. Throws `UsageError` for bad flags and for a
 * non-loopback host without a token (unless `--no-auth`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveConfig } from "./serve.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const c = await serveConfig(["--port", "0", "--read-only"], { env: {}, cwd: rootDir });
 * assert.equal(c.hostname, "127.0.0.1");
 * assert.equal(c.port, 0);
 * assert.equal(c.rootDir, rootDir);
 * assert.equal(c.options.readOnly, true);
 * const ui = await serveConfig(["--ui-path", "/ui"], { env: {}, cwd: rootDir });
 * assert.equal(ui.uiPath, "/ui");
 * assert.equal((await serveConfig(["--no-ui"], { env: {}, cwd: rootDir })).ui, false);
 * assert.equal(c.logLevel, "info"); // stderr is not a terminal: every request is logged
 * const quiet = await serveConfig([], { env: { MEMO_LOG_LEVEL: "error" }, cwd: rootDir });
 * assert.equal(quiet.logLevel, "error");
 * await assert.rejects(
 *   serveConfig(["--host", "0.0.0.0"], { env: {}, cwd: rootDir }),
 *   /refusing to listen on 0.0.0.0 without authentication/,
 * );
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function serveConfig(
  argv: readonly string[],
  io: Pick<CliIO, "env" | "cwd"> & Partial<Pick<CliIO, "stderrIsTerminal">>,
): Promise<ServeConfig> {
  const p: ParsedArgs = parseArgs(argv, SPEC);
  if (p.positional.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(p.positional[0])}`);
  }
  const rootDir = await findProjectRoot(
    stringFlag(p, "dir") ?? readRuntimeEnv(io.env).rootDir,
    io.cwd,
  );
  const options: MemoMcpHttpOptions = { ...limitFlags(p) };
  if (boolFlag(p, "read-only")) options.readOnly = true;
  const origins = stringFlag(p, "allowed-origins");
  if (origins !== undefined) {
    options.allowedOrigins = origins.split(",").map((o) => o.trim()).filter((o) => o !== "");
  }
  const uiPath = stringFlag(p, "ui-path");
  const noUi = boolFlag(p, "no-ui");
  if (uiPath !== undefined && noUi) {
    throw new UsageError("flags --ui-path and --no-ui cannot be used together");
  }
  if (uiPath !== undefined && !uiPath.startsWith("/")) {
    throw new UsageError("flag --ui-path needs a path that starts with /");
  }
  const noAuth = boolFlag(p, "no-auth");
  if (noAuth) options.auth = { requireAuth: false };
  const oauth = oauthFlags(p);
  if (oauth !== undefined) options.auth = { ...options.auth, oauth: oauth as MemoMcpOAuthOptions };
  const projectOAuth = readProjectOAuthConfig(await readProjectConfigFile(rootDir));
  const oauthOn = oauth !== undefined || projectOAuth !== undefined ||
    Object.keys(readEnv(io.env, "oauth")).length > 0;
  if (oauthOn && noAuth) {
    throw new UsageError("flag --no-auth cannot be used with OAuth (MEMO_OAUTH_ISSUER, --oauth-*)");
  }
  const hostname = stringFlag(p, "host") ?? DEFAULT_SERVE_HOST;
  if (hostname === "") throw new UsageError("flag --host needs a value");
  const port = intFlag(p, "port", 0, 65535) ?? DEFAULT_SERVE_PORT;
  const hasToken = readEnv(io.env, "http").bearerToken !== undefined || oauthOn;
  const loopback = isLoopbackHost(hostname.includes(":") ? `[${hostname}]` : hostname);
  let warning: string | undefined;
  if (!loopback && !hasToken) {
    if (!noAuth) {
      throw new UsageError(
        `refusing to listen on ${hostname} without authentication: ` +
          "set MEMO_MCP_BEARER_TOKEN or OAuth (MEMO_OAUTH_ISSUER), or pass --no-auth",
      );
    }
    warning = "without authentication only requests whose Host is loopback are answered " +
      "(DNS-rebinding protection); set MEMO_MCP_BEARER_TOKEN to serve other machines";
  }
  let logLevel: LogLevel;
  try {
    logLevel = readEnv(io.env, "log").level ?? defaultLogLevel(io.stderrIsTerminal ?? false);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const config: ServeConfig = { hostname, port, rootDir, options, warning, logLevel };
  if (projectOAuth !== undefined) config.projectOAuth = projectOAuth;
  if (noUi) config.ui = false;
  if (uiPath !== undefined) config.uiPath = uiPath;
  return config;
}

/** The `--oauth-*` flags as `auth.oauth` fields; undefined when none is given. */
function oauthFlags(p: ParsedArgs): Partial<MemoMcpOAuthOptions> | undefined {
  const out: Partial<MemoMcpOAuthOptions> = {};
  for (const [flag, field] of Object.entries(OAUTH_FLAGS)) {
    const value = stringFlag(p, flag);
    if (value !== undefined) out[field] = value;
  }
  const scopes = stringFlag(p, "oauth-scopes");
  if (scopes !== undefined) {
    const [read, write, ...rest] = scopes.split(",").map((s) => s.trim());
    if (!read || !write || rest.length) {
      throw new UsageError(
        "flag --oauth-scopes needs the read scope and the write scope: READ,WRITE",
      );
    }
    out.scopes = { read, write };
  }
  const url = stringFlag(p, "oauth-introspection-url");
  const clientId = stringFlag(p, "oauth-introspection-client-id");
  if (url !== undefined || clientId !== undefined) {
    // The secret has no flag: it comes only from MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET.
    out.introspection = { url, clientId } as MemoMcpOAuthOptions["introspection"];
  }
  return Object.keys(out).length ? out : undefined;
}

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
  const endpoint = createHttpEndpoint(config.options, io.env, {
    routed: true,
    runtime: runtimeFactoryFromEnv({
      env: io.env,
      rootDir: config.rootDir,
      secrets: choiceFlag(parseArgs(argv, SPEC), "secrets", ["redact", "refuse", "allow"] as const),
    }),
    ui: config.ui,
    uiPath: config.uiPath,
    projectOAuth: config.projectOAuth,
  });
  try {
    await endpoint.server(); // fail before listening when the runtime cannot start
    await endpoint.ready(); // … or when the OAuth issuer cannot be reached
  } catch (e) {
    await endpoint.close();
    throw e;
  }
  // Request lines follow the banner (a request may come before it is all printed).
  let bannerPrinted!: () => void; // not Promise.withResolvers: Node 20 lacks it
  const banner = new Promise<void>((resolve) => (bannerPrinted = resolve));
  const handle = withRequestLog(endpoint.handle, {
    level: config.logLevel,
    log: (line) => void banner.then(() => print(`${line}\n`)),
  });
  const stopped = new AbortController();
  // A signal ends the listen streams (each with its completion result), then stops
  // accepting connections; what is still in flight gets at most a second. The server
  // stops STREAM_FLUSH_MS after the streams end: stopping it at once would cut the
  // streams before their last event is written.
  const shutdown = shutdownOnSignal(io, () => endpoint.closeStreams(), STREAM_FLUSH_MS);
  let server;
  try {
    server = await serve(handle, {
      hostname: config.hostname,
      port: config.port,
      signal: stopped.signal,
    });
  } catch (e) {
    shutdown.remove();
    await endpoint.close();
    const reason = (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));
    throw new Error(`Cannot listen on ${config.hostname}:${config.port}: ${reason}`);
  }
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
  bannerPrinted();
  if (json) {
    await io.stdout(
      jsonDocument({ url, authRequired: endpoint.authRequired, ui, oauth: endpoint.oauth ?? null }),
    );
  }
  await shutdown.wait(server, () => stopped.abort());
  shutdown.remove();
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
