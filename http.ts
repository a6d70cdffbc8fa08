/**
 * `@memo/mcp-server/http`: memo's MCP server over stateless Streamable HTTP,
 * as web-standard `Request → Response` handlers that run under `deno serve`,
 * on edge workers and inside web frameworks.
 *
 * Each request goes through, in order: the origin check (browser origins
 * against `allowedOrigins`, loopback by default; without authentication a
 * non-loopback `Host` is refused), CORS, bearer authentication, header
 * validation (`Accept`, `Content-Type`, `MCP-Protocol-Version`) and JSON-RPC
 * dispatch. Every JSON-RPC answer, errors included, is HTTP 200; only the
 * transport refuses with 4xx.
 *
 * Configuration comes from the options, else from the `MEMO_*` variables
 * (`MEMO_ROOT_DIR`, `MEMO_RUNTIME`, `MEMO_MCP_PATH`, `MEMO_MCP_BEARER_TOKEN`,
 * `MEMO_MCP_REQUIRE_AUTH`, `MEMO_MCP_ALLOWED_ORIGINS`, `MEMO_MCP_READ_ONLY` and
 * the limits `MEMO_MCP_REQUEST_TIMEOUT_MS`, `MEMO_MCP_MAX_INPUT_BYTES`,
 * `MEMO_MCP_MAX_OUTPUT_BYTES`, `MEMO_MCP_DEFAULT_PAGE_SIZE`,
 * `MEMO_MCP_MAX_PAGE_SIZE`).
 *
 * @example Serve the notes of the current directory on http://127.0.0.1:8000/mcp
 * ```sh
 * deno serve -A --host 127.0.0.1 http.ts
 * ```
 *
 * @example Mount it in a Hono app
 * ```ts
 * import { Hono } from "npm:hono@4";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 * const handler = createFrameworkMemoMcpHandler({ auth: { bearerToken: "change-me" } });
 * const app = new Hono();
 * app.all("/mcp", (c) => handler(c.req.raw));
 * export default app;
 * ```
 *
 * @module
 */

import { cwd as platformCwd, envObject } from "./_platform.ts";
import {
  createHttpEndpoint,
  type HttpEndpoint,
  httpErrorResponse,
  type MemoMcpHttpEnv,
  type MemoMcpHttpOptions,
} from "./server/http/mod.ts";
import { toSafeError } from "./server/mod.ts";
import { runtimeFactoryFromEnv } from "./runtimes/mod.ts";

export {
  DEFAULT_ALLOWED_ORIGINS,
  type MemoMcpHttpAuthOptions,
  type MemoMcpHttpEnv,
  type MemoMcpHttpOptions,
} from "./server/http/mod.ts";
// The types the options reference, so that this entry point documents itself.
export type {
  AuthorizationContext,
  MemoMcpAuthInfo,
  MemoMcpLogger,
  MemoMcpLogLevel,
  MemoMcpLogRecord,
  MemoMcpOptions,
  MemoMcpTimer,
  MemoMcpTransportKind,
  ResolvedMemoMcpOptions,
} from "./server/mod.ts";
export type {
  CommitBatch,
  CommitResult,
  ListResult,
  MemoCloudClient,
  MemoCloudMcpRuntimeOptions,
  MemoCloudOptions,
  MemoCloudRetryOptions,
  MemoLike,
  MemoMcpRuntime,
  MemoryStore,
  MemoStats,
  Note,
  NoteDraft,
  NotePage,
  NotePatch,
  RecallEngine,
  RecallHit,
  RuntimeCallOptions,
  RuntimeCompletion,
  RuntimeConnectorFailure,
  RuntimeConnectorSummary,
  RuntimeListOptions,
  RuntimeNotePatch,
  RuntimeRecallOptions,
  RuntimeRememberInput,
  RuntimeRememberResult,
  RuntimeSyncOptions,
  RuntimeSyncProgress,
  RuntimeSyncResult,
  ScoreContribution,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
} from "./runtimes/mod.ts";

/**
 * A web-standard request handler.
 *
 * @example
 * ```ts
 * import type { MemoMcpRequestHandler } from "@memo/mcp-server/http";
 * import { handleMemoMcpRequest } from "@memo/mcp-server/http";
 * const handler: MemoMcpRequestHandler = (request) => handleMemoMcpRequest(request);
 * ```
 */
export type MemoMcpRequestHandler = (request: Request) => Promise<Response>;

/**
 * An edge-worker fetch handler (Cloudflare Workers and the like): its `env`
 * argument's string values are laid over `options.env` as `MEMO_*`
 * configuration; `ctx` is not used.
 *
 * @example
 * ```ts
 * import { createMemoMcpFetchHandler, type MemoMcpFetchHandler } from "@memo/mcp-server/http";
 * const fetch: MemoMcpFetchHandler = createMemoMcpFetchHandler();
 * export default { fetch };
 * ```
 */
export type MemoMcpFetchHandler = (
  request: Request,
  env?: unknown,
  ctx?: unknown,
) => Promise<Response>;

/**
 * A route handler for web frameworks: call it with a `Request`, or export its
 * `GET`, `POST`, `OPTIONS` and `DELETE` (all the same handler).
 *
 * @example
 * ```ts
 * import { createFrameworkMemoMcpHandler, type MemoMcpFrameworkHandler } from "@memo/mcp-server/http";
 * const handler: MemoMcpFrameworkHandler = createFrameworkMemoMcpHandler();
 * export const { GET, POST, OPTIONS, DELETE } = handler;
 * ```
 */
export interface MemoMcpFrameworkHandler extends MemoMcpRequestHandler {
  /** Answers 405 (`Allow: POST, OPTIONS`): the endpoint is stateless. */
  readonly GET: MemoMcpRequestHandler;
  /** Answers JSON-RPC. */
  readonly POST: MemoMcpRequestHandler;
  /** Answers CORS preflights. */
  readonly OPTIONS: MemoMcpRequestHandler;
  /** Answers 405 (`Allow: POST, OPTIONS`): there are no sessions to end. */
  readonly DELETE: MemoMcpRequestHandler;
}

const DEFAULT_OPTIONS: MemoMcpHttpOptions = Object.freeze({});
const endpoints = new WeakMap<object, HttpEndpoint | Error>();

/**
 * Composes one endpoint: the runtime is `options.runtime`, else the one the
 * `MEMO_*` variables select (checked now, built at the first request).
 * Throws for a configuration that cannot work.
 */
function composeEndpoint(
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  routed = false,
): HttpEndpoint {
  const runtime = options.runtime ??
    runtimeFactoryFromEnv({ env: { ...env }, cloud: options.cloud, cwd: safeCwd() });
  return createHttpEndpoint(options, env, { routed, runtime });
}

function endpointOf(options: MemoMcpHttpOptions, env: MemoMcpHttpEnv, routed = false) {
  try {
    return composeEndpoint(options, env, routed);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function safeCwd(): string | undefined {
  try {
    return platformCwd();
  } catch {
    return undefined; // an edge worker has no working directory
  }
}

function configFailure(error: Error): Response {
  const data = toSafeError(error);
  return httpErrorResponse(500, -32603, data.message, null, [], data);
}

function run(endpoint: HttpEndpoint | Error, request: Request): Promise<Response> {
  return endpoint instanceof Error
    ? Promise.resolve(configFailure(endpoint))
    : endpoint.handle(request);
}

/**
 * Answers one request to the MCP endpoint. The protocol server and runtime are
 * built once per `options` object, at its first request, and reused; a
 * configuration that cannot work answers 500 with a "Cannot …" JSON-RPC
 * error. It answers whatever path the host routes to it.
 *
 * @example
 * ```ts
 * import { handleMemoMcpRequest } from "@memo/mcp-server/http";
 * const options = { env: { MEMO_ROOT_DIR: "." } };
 * Deno.serve({ hostname: "127.0.0.1" }, (request) => handleMemoMcpRequest(request, options));
 * ```
 */
export function handleMemoMcpRequest(
  request: Request,
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): Promise<Response> {
  let endpoint = endpoints.get(options);
  if (endpoint === undefined) {
    endpoint = endpointOf(options, options.env ?? envObject());
    endpoints.set(options, endpoint);
  }
  return run(endpoint, request);
}

/**
 * Creates an edge-worker fetch handler `(request, env, ctx)`. The string
 * values of `env` (the worker's bindings) are laid over `options.env` (else
 * the process environment) and read as `MEMO_*` configuration; one endpoint
 * is built per distinct configuration and reused.
 *
 * @example
 * ```ts
 * import { createMemoMcpFetchHandler } from "@memo/mcp-server/http";
 * export default { fetch: createMemoMcpFetchHandler({ readOnly: true }) };
 * ```
 */
export function createMemoMcpFetchHandler(
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): MemoMcpFetchHandler {
  const byObject = new WeakMap<object, HttpEndpoint | Error>();
  const byConfig = new Map<string, HttpEndpoint | Error>();
  let base: MemoMcpHttpEnv | undefined;
  return (request: Request, env?: unknown): Promise<Response> => {
    const key = typeof env === "object" && env !== null ? env : undefined;
    let endpoint = key === undefined ? byConfig.get("") : byObject.get(key);
    if (endpoint === undefined) {
      base ??= options.env ?? envObject();
      const overlay = memoStrings(key);
      const fingerprint = JSON.stringify(overlay);
      endpoint = byConfig.get(fingerprint === "{}" ? "" : fingerprint);
      if (endpoint === undefined) {
        endpoint = endpointOf(options, { ...base, ...overlay });
        byConfig.set(fingerprint === "{}" ? "" : fingerprint, endpoint);
      }
      if (key !== undefined) byObject.set(key, endpoint);
    }
    return run(endpoint, request);
  };
}

function memoStrings(env: object | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (env === undefined) return out;
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === "string" && (k.startsWith("MEMO_") || k.endsWith("_TOKEN"))) out[k] = v;
  }
  return out;
}

/**
 * Creates one route handler for web frameworks. Configuration (options, else
 * the process environment) is checked at once, so a bad one throws here; the
 * runtime starts at the first request.
 *
 * @example Next.js App Router (`app/mcp/route.ts`)
 * ```ts
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 * const handler = createFrameworkMemoMcpHandler({ auth: { bearerToken: "change-me" } });
 * export const { GET, POST, OPTIONS, DELETE } = handler;
 * ```
 *
 * @example Hono
 * ```ts
 * import { Hono } from "npm:hono@4";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 * const handler = createFrameworkMemoMcpHandler();
 * const app = new Hono().all("/mcp", (c) => handler(c.req.raw));
 * ```
 */
export function createFrameworkMemoMcpHandler(
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): MemoMcpFrameworkHandler {
  const endpoint = composeEndpoint(options, options.env ?? envObject());
  const handle: MemoMcpRequestHandler = (request) => endpoint.handle(request);
  return Object.assign(handle, { GET: handle, POST: handle, OPTIONS: handle, DELETE: handle });
}

let defaultEndpoint: HttpEndpoint | Error | undefined;

/**
 * The endpoint configured from the environment, for `deno serve http.ts`
 * (and any host that takes a `{ fetch }` object). It answers only on
 * `MEMO_MCP_PATH` (default `/mcp`) and gives 404 elsewhere.
 *
 * @example
 * ```sh
 * MEMO_ROOT_DIR=~/notes deno serve -A --host 127.0.0.1 --port 8787 http.ts
 * ```
 */
const server: { fetch: MemoMcpRequestHandler } = {
  fetch(request: Request): Promise<Response> {
    defaultEndpoint ??= endpointOf(DEFAULT_OPTIONS, envObject(), true);
    return run(defaultEndpoint, request);
  },
};

export default server;
