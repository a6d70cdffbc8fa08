/**
 * Turns {@linkcode MemoMcpHttpOptions} plus an environment into one endpoint:
 * the compiled request handler and the protocol server and runtime behind it,
 * built once, at the first request that needs them (never per request).
 * Options win over `MEMO_*` variables; defaults are applied here and in
 * `resolveMemoMcpOptions`, nowhere else.
 *
 * @module
 */

import { createMemoCloudMcpRuntime } from "../runtimes/cloud.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "./protocol_server.ts";
import { MEMO_MCP_DEFAULTS, type MemoMcpOptions } from "./options.ts";
import { type HttpEnvConfig, type MemoMcpHttpEnv, readHttpEnv } from "./http_env.ts";
import { createAuthenticator } from "./http_auth.ts";
import { createHttpHandler } from "./http_handler.ts";
import { DEFAULT_ALLOWED_ORIGINS } from "./http_origin.ts";
import type { MemoMcpHttpOptions } from "./http_options.ts";
import type { MemoMcpProtocolServer } from "./types.ts";

/** One configured endpoint. */
export interface HttpEndpoint {
  /** Handles one request. */
  readonly handle: (request: Request) => Promise<Response>;
  /** Builds (once) and returns the protocol server; rejects when the runtime cannot start. */
  server(): Promise<MemoMcpProtocolServer>;
  /** Closes the runtime if this endpoint built it. */
  close(): Promise<void>;
  /** The endpoint path when it is routed (default export, `memo serve`). */
  readonly path: string | undefined;
  /** Whether requests must authenticate. */
  readonly authRequired: boolean;
}

/** How {@linkcode createHttpEndpoint} builds its endpoint. */
export interface HttpEndpointOptions {
  /** Answer only on `MEMO_MCP_PATH` (default `/mcp`), 404 elsewhere. */
  routed?: boolean;
  /** Directory for the local runtime when `MEMO_ROOT_DIR` is unset. */
  cwd?: string;
}

/**
 * Builds an endpoint. Throws a "Cannot …" error for a configuration that
 * cannot work (a malformed variable, an invalid origin, `requireAuth` without
 * a token); a runtime that cannot start fails its requests instead (500).
 *
 * @example
 * ```ts
 * import { createHttpEndpoint } from "./http_endpoint.ts";
 * const endpoint = createHttpEndpoint({}, { MEMO_ROOT_DIR: "." }, { routed: true });
 * console.log(endpoint.path); // "/mcp"
 * ```
 */
export function createHttpEndpoint(
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  how: HttpEndpointOptions = {},
): HttpEndpoint {
  const fromEnv = readHttpEnv(env);
  const {
    env: _env,
    cloud: _cloud,
    auth: _auth,
    allowedOrigins: _origins,
    runtime: givenRuntime,
    ...serverOptions
  } = options;
  const protocolOptions: Omit<MemoMcpOptions, "runtime"> = {
    ...serverOptions,
    readOnly: options.readOnly ?? fromEnv.readOnly,
    requestTimeoutMs: options.requestTimeoutMs ?? fromEnv.requestTimeoutMs,
    maxInputBytes: options.maxInputBytes ?? fromEnv.maxInputBytes,
    maxOutputBytes: options.maxOutputBytes ?? fromEnv.maxOutputBytes,
    defaultPageSize: options.defaultPageSize ?? fromEnv.defaultPageSize,
    maxPageSize: options.maxPageSize ?? fromEnv.maxPageSize,
  };
  const auth = {
    requireAuth: options.auth?.requireAuth ?? fromEnv.requireAuth,
    bearerToken: options.auth?.bearerToken ?? fromEnv.bearerToken,
    authenticate: options.auth?.authenticate,
  };
  const path = how.routed ? (fromEnv.path ?? "/mcp") : undefined;

  let server: MemoMcpProtocolServer | undefined;
  let ownRuntime: MemoMcpRuntime | undefined;
  // Built at the first request; a failure is not cached, so a later request tries again.
  const getServer = (): MemoMcpProtocolServer => {
    if (server !== undefined) return server;
    const runtime = givenRuntime ?? runtimeFromEnv(fromEnv, options, env, how.cwd);
    try {
      server = createMemoMcpProtocolServer({ ...protocolOptions, runtime });
    } catch (e) {
      if (runtime !== givenRuntime) void runtime.close().catch(() => {});
      throw e;
    }
    if (runtime !== givenRuntime) ownRuntime = runtime;
    return server;
  };

  const handle = createHttpHandler(
    {
      allowedOrigins: options.allowedOrigins ?? fromEnv.allowedOrigins ?? DEFAULT_ALLOWED_ORIGINS,
      auth,
      maxInputBytes: protocolOptions.maxInputBytes ?? MEMO_MCP_DEFAULTS.maxInputBytes,
      path,
    },
    getServer,
  );
  return {
    handle,
    server: () => Promise.resolve().then(getServer),
    path,
    authRequired: createAuthenticator(auth).required,
    async close() {
      const runtime = ownRuntime;
      ownRuntime = undefined;
      server = undefined;
      await runtime?.close();
    },
  };
}

function runtimeFromEnv(
  config: HttpEnvConfig,
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  cwd: string | undefined,
): MemoMcpRuntime {
  const cloud = {
    ...definedOnly(config.cloud),
    ...definedOnly(options.cloud ?? {}),
  };
  const mode = config.runtime ?? "local";
  if (mode === "cloud") return createMemoCloudMcpRuntime(cloud);
  return createMemoMcpRuntimeFromConfig({
    mode,
    rootDir: config.rootDir ?? cwd ?? ".",
    env: { ...env },
    ...(mode === "hybrid" ? { cloud } : {}),
  });
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
