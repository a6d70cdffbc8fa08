/**
 * What `memo serve` runs with: its flags as endpoint options, over the
 * `MEMO_*` variables, and the checks that refuse an unsafe setup.
 *
 * @module
 */

import {
  defaultLogLevel,
  isLoopbackHost,
  type LogLevel,
  type MemoMcpHttpOptions,
  type MemoMcpOAuthOptions,
  type ProjectOAuthConfig,
  readProjectOAuthConfig,
} from "../../server/http/mod.ts";
import { readProjectConfigFile, readRuntimeEnv } from "../../runtimes/start/mod.ts";
import { memoHomeOf, readEnv } from "../../env.ts";
import {
  boolFlag,
  choiceFlag,
  intFlag,
  parseArgs,
  type ParsedArgs,
  stringFlag,
  UsageError,
} from "../args.ts";
import type { CliIO } from "../context.ts";
import { LIMIT_FLAGS, limitFlags } from "./limit_flags.ts";
import { findProjectRoot } from "../project.ts";

/**
 * Default interface of `memo serve`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SERVE_HOST, serveConfig } from "./serve_config.ts";
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
 * import { DEFAULT_SERVE_PORT, serveConfig } from "./serve_config.ts";
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
 * import { type ServeConfig, serveConfig } from "./serve_config.ts";
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
  /** `--secrets`; unset, `MEMO_SECRETS` decides. */
  secrets?: "redact" | "refuse" | "allow";
  warning?: string;
  /**
   * Why the endpoint serves the project scope alone: set when it is hosted (it requires auth, or
   * listens beyond loopback); unset, it serves every scope.
   */
  hosted?: string;
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
 * import { serveConfig } from "./serve_config.ts";
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
    memoHomeOf(io.env),
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
  // Hosted (auth required, or beyond loopback): the project's notes alone are served.
  if (!loopback) {
    config.hosted =
      `this endpoint is hosted (it listens on ${hostname}): it serves the project scope only`;
  } else if (hasToken && !noAuth) {
    config.hosted = "this endpoint is hosted (it requires auth): it serves the project scope only";
  }
  if (projectOAuth !== undefined) config.projectOAuth = projectOAuth;
  if (noUi) config.ui = false;
  if (uiPath !== undefined) config.uiPath = uiPath;
  const secrets = choiceFlag(p, "secrets", ["redact", "refuse", "allow"] as const);
  if (secrets !== undefined) config.secrets = secrets;
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
