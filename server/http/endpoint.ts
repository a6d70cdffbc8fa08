/**
 * Turns {@linkcode MemoMcpHttpOptions} plus an environment into one endpoint:
 * the compiled request handler and the protocol server and runtime behind it,
 * built once, at the first request that needs them (never per request).
 * Options win over `MEMO_*` variables; defaults are applied here and in
 * `resolveMemoMcpOptions`, nowhere else.
 *
 * @module
 */

import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";
import { MEMO_MCP_DEFAULTS, type MemoMcpOptions } from "../options.ts";
import { MEMO_MCP_LIMITS } from "../limits.ts";
import type { MemoMcpProtocolServer } from "../types.ts";
import { type MemoMcpHttpEnv, readHttpEnv } from "./env.ts";
import { createAuthenticator } from "./auth.ts";
import { createHttpHandler } from "./handler.ts";
import { DEFAULT_ALLOWED_ORIGINS } from "./origin.ts";
import type { MemoMcpHttpOptions } from "./options.ts";

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

/**
 * Where an endpoint gets its runtime: a runtime, or a function that builds
 * one at the first request (and again after a failure).
 */
export type RuntimeSource = MemoMcpRuntime | (() => MemoMcpRuntime);

/** How {@linkcode createHttpEndpoint} builds its endpoint. */
export interface HttpEndpointOptions {
  /** Answer only on `MEMO_MCP_PATH` (default `/mcp`), 404 elsewhere. */
  routed?: boolean;
  /**
   * The runtime when `options.runtime` is missing. The endpoint closes a
   * runtime it built from a function, never one it was given.
   */
  runtime?: RuntimeSource;
}

/**
 * Builds an endpoint. Throws a "Cannot …" error for a configuration that
 * cannot work (a malformed variable, an invalid origin, `requireAuth` without
 * a token); a runtime that cannot start fails its requests instead (500).
 *
 * @example
 * ```ts
 * import { createHttpEndpoint } from "./endpoint.ts";
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
  };
  for (const limit of MEMO_MCP_LIMITS) {
    protocolOptions[limit.option] = options[limit.option] ?? fromEnv[limit.option];
  }
  const source = givenRuntime ?? how.runtime;
  if (source === undefined) {
    throw new Error("Cannot configure the MCP endpoint: no runtime was given");
  }
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
    const built = typeof source === "function";
    const runtime = built ? source() : source;
    try {
      server = createMemoMcpProtocolServer({ ...protocolOptions, runtime });
    } catch (e) {
      if (built) void runtime.close().catch(() => {});
      throw e;
    }
    if (built) ownRuntime = runtime;
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
