/**
 * The handlers a host mounts, over an endpoint that `http.ts` composes with a runtime
 * ({@linkcode ComposeEndpoint}): one request at a time, an edge worker's fetch and a web
 * framework's route handler ({@linkcode createHostHandlers}), and the default export's server
 * ({@linkcode createDefaultServer}). Each builds its endpoint once; a configuration that cannot
 * work answers 500 ({@linkcode runEndpoint}).
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import { envObject, exit, writeStderr } from "../../platform/mod.ts";
import type { HttpEndpoint } from "./endpoint.ts";
import type { MemoMcpHttpEnv } from "./options.ts";
import type { MemoMcpHttpOptions } from "./options.ts";
import type { ProjectOAuthConfig } from "./oauth/mod.ts";
import { httpErrorResponse } from "./responses.ts";
import { toSafeError } from "../errors.ts";

/**
 * A web-standard request handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { handleMemoMcpRequest, type MemoMcpRequestHandler } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const options = { runtime: createMemoMcpRuntimeFromConfig({ rootDir }) };
 * const handler: MemoMcpRequestHandler = (request) => handleMemoMcpRequest(request, options);
 * // The endpoint is stateless: there is no SSE stream to GET.
 * const response = await handler(new Request("http://127.0.0.1:8787/mcp"));
 * assert.equal(response.status, 405);
 * assert.equal(response.headers.get("allow"), "POST, OPTIONS");
 * await response.body?.cancel();
 * await options.runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoMcpRequestHandler = (request: Request) => Promise<Response>;

/**
 * An edge-worker fetch handler (Cloudflare Workers and the like): its `env` argument's string
 * values are laid over `options.env` as `MEMO_*` configuration; `ctx` is not used.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createMemoMcpFetchHandler, type MemoMcpFetchHandler } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const fetch: MemoMcpFetchHandler = createMemoMcpFetchHandler({ runtime });
 * export default { fetch };
 *
 * // A worker's bindings configure the endpoint: this one requires a bearer token.
 * const env = { MEMO_MCP_BEARER_TOKEN: "s3cret" };
 * const response = await fetch(new Request("https://memo.example.com/mcp", { method: "POST" }), env);
 * assert.equal(response.status, 401);
 * await response.body?.cancel();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoMcpFetchHandler = (
  request: Request,
  env?: unknown,
  ctx?: unknown,
) => Promise<Response>;

/**
 * A route handler for web frameworks: call it with a `Request`, or export its `GET`, `POST`,
 * `OPTIONS` and `DELETE` (all the same handler).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import {
 *   createFrameworkMemoMcpHandler,
 *   type MemoMcpFrameworkHandler,
 * } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler: MemoMcpFrameworkHandler = createFrameworkMemoMcpHandler({ runtime });
 * const { DELETE } = handler;
 * // There are no sessions to end.
 * const response = await DELETE(new Request("http://127.0.0.1:8787/mcp", { method: "DELETE" }));
 * assert.equal(response.status, 405);
 * await response.body?.cancel();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
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

/**
 * Composes one endpoint from the options and the `MEMO_*` configuration: `http.ts` gives it the
 * runtime (`options.runtime`, else the one the variables select). `routed` serves the web page and
 * the liveness check beside the MCP path; `projectOAuth` is the `oauth` block of
 * `.memo/config.json`. Throws for a configuration that cannot work.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint } from "./endpoint.ts";
 * import type { ComposeEndpoint } from "./host_handlers.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const compose: ComposeEndpoint = (options, env, routed) =>
 *   createHttpEndpoint({ runtime, ...options }, env, { routed });
 * assert.equal(compose({}, {}, true).path, "/mcp");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type ComposeEndpoint = (
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  routed?: boolean,
  projectOAuth?: ProjectOAuthConfig,
) => HttpEndpoint;

/**
 * The handlers {@linkcode createHostHandlers} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHostHandlers, type HostHandlers } from "./host_handlers.ts";
 *
 * const hosted: HostHandlers = createHostHandlers(() => {
 *   throw new Error("Cannot read MEMO_MCP_READ_ONLY: it must be true or false");
 * });
 * const response = await hosted.handle(new Request("http://127.0.0.1/mcp"), {});
 * assert.equal(response.status, 500);
 * await response.body?.cancel();
 * assert.throws(() => hosted.frameworkHandler({}), /Cannot read MEMO_MCP_READ_ONLY/);
 * ```
 */
export interface HostHandlers {
  /**
   * Answers one request; the endpoint is built once per `options` object, at its first request
   * (`handleMemoMcpRequest`).
   */
  handle(request: Request, options: MemoMcpHttpOptions): Promise<Response>;
  /**
   * An edge worker's fetch: the string `MEMO_*` values of its `env` are laid over `options.env`
   * (else the process environment); one endpoint per distinct configuration
   * (`createMemoMcpFetchHandler`).
   */
  fetchHandler(options: MemoMcpHttpOptions): MemoMcpFetchHandler;
  /**
   * A route handler whose configuration is checked at once (`createFrameworkMemoMcpHandler`).
   */
  frameworkHandler(options: MemoMcpHttpOptions): MemoMcpFrameworkHandler;
}

/**
 * Creates the handlers a host mounts over the endpoints `compose` builds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createHttpEndpoint } from "./endpoint.ts";
 * import { createHostHandlers } from "./host_handlers.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const hosted = createHostHandlers((options, env, routed) =>
 *   createHttpEndpoint(options, env, { routed })
 * );
 * const ping = () =>
 *   new Request("http://127.0.0.1:8787/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", accept: "application/json" },
 *     body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 *   });
 * const options = { runtime, env: {} };
 * const answered = await hosted.handle(ping(), options);
 * assert.deepEqual(await answered.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * const worker = hosted.fetchHandler(options);
 * const refused = await worker(ping(), { MEMO_MCP_BEARER_TOKEN: "s3cret" });
 * assert.equal(refused.status, 401);
 * await refused.body?.cancel();
 * const route = hosted.frameworkHandler(options);
 * const routed = await route.POST(ping());
 * assert.equal(routed.status, 200);
 * await routed.body?.cancel();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createHostHandlers(compose: ComposeEndpoint): HostHandlers {
  const endpoints = new WeakMap<object, HttpEndpoint | Error>();

  function endpointOf(options: MemoMcpHttpOptions, env: MemoMcpHttpEnv, routed = false) {
    try {
      return compose(options, env, routed);
    } catch (e) {
      return asError(e);
    }
  }

  return {
    handle(request, options) {
      let endpoint = endpoints.get(options);
      if (endpoint === undefined) {
        endpoint = endpointOf(options, options.env ?? envObject());
        endpoints.set(options, endpoint);
      }
      return runEndpoint(endpoint, request);
    },
    fetchHandler(options) {
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
        return runEndpoint(endpoint, request);
      };
    },
    frameworkHandler(options) {
      const endpoint = compose(options, options.env ?? envObject());
      const handle: MemoMcpRequestHandler = (request) => endpoint.handle(request);
      return Object.assign(handle, { GET: handle, POST: handle, OPTIONS: handle, DELETE: handle });
    },
  };
}

/**
 * An `Error` for whatever was thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { asError } from "./host_handlers.ts";
 *
 * const error = new Error("Cannot start");
 * assert.equal(asError(error), error);
 * assert.equal(asError("Cannot start").message, "Cannot start");
 * ```
 */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

function configFailure(error: Error): Response {
  const data = toSafeError(error);
  return httpErrorResponse(500, JSON_RPC_CODES.internalError, data.message, null, [], data);
}

/**
 * Answers `request` with the endpoint, or, when its configuration could not work, with a 500 that
 * carries the "Cannot …" JSON-RPC error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runEndpoint } from "./host_handlers.ts";
 *
 * const failure = new Error("Cannot read MEMO_MCP_READ_ONLY: it must be true or false");
 * const response = await runEndpoint(failure, new Request("http://127.0.0.1/mcp"));
 * assert.equal(response.status, 500);
 * assert.match((await response.json()).error.message, /Cannot read MEMO_MCP_READ_ONLY/);
 * ```
 */
export function runEndpoint(endpoint: HttpEndpoint | Error, request: Request): Promise<Response> {
  return endpoint instanceof Error
    ? Promise.resolve(configFailure(endpoint))
    : endpoint.handle(request);
}

/**
 * The `{ fetch }` of `deno serve http.ts`, and its endpoint: `build` runs once, at the first
 * request or the first `endpoint()`; an endpoint that cannot be built answers every request with
 * its error (500).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createDefaultServer } from "./host_handlers.ts";
 *
 * let builds = 0;
 * const server = createDefaultServer(() => {
 *   builds++;
 *   return Promise.reject(new Error("Cannot read MEMO_RUNTIME: unknown runtime"));
 * });
 * const response = await server.fetch(new Request("http://127.0.0.1:8787/mcp", { method: "POST" }));
 * assert.equal(response.status, 500);
 * assert.ok((await server.endpoint()) instanceof Error);
 * assert.equal(builds, 1);
 * ```
 */
export function createDefaultServer(build: () => Promise<HttpEndpoint>): {
  fetch(request: Request): Promise<Response>;
  endpoint(): Promise<HttpEndpoint | Error>;
} {
  let built: HttpEndpoint | Error | undefined;
  let building: Promise<HttpEndpoint | Error> | undefined;
  const endpoint = () => building ??= build().catch(asError).then((endpoint) => (built = endpoint));
  return {
    fetch(request) {
      if (built !== undefined) return runEndpoint(built, request);
      return endpoint().then((endpoint) => runEndpoint(endpoint, request));
    },
    endpoint,
  };
}

/**
 * At the start of `deno serve http.ts`: an endpoint that cannot be built, or not made ready (with
 * OAuth on, an issuer that cannot be reached), is refused with one line on stderr and exit code 1.
 *
 * @example
 * ```ts
 * import { exitIfUnworkable } from "./host_handlers.ts";
 *
 * const endpoint = { ready: () => Promise.resolve() };
 * await exitIfUnworkable(endpoint as never); // ready: nothing happens
 * ```
 */
export async function exitIfUnworkable(endpoint: HttpEndpoint | Error): Promise<void> {
  let failure = endpoint instanceof Error ? endpoint : undefined;
  if (failure === undefined) {
    try {
      await (endpoint as HttpEndpoint).ready();
    } catch (e) {
      failure = asError(e);
    }
  }
  if (failure !== undefined) {
    await writeStderr(`memo: ${toSafeError(failure).message}\n`);
    exit(1);
  }
}

function memoStrings(env: object | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (env === undefined) return out;
  for (const [k, v] of Object.entries(env)) {
    if (typeof v === "string" && (k.startsWith("MEMO_") || k.endsWith("_TOKEN"))) out[k] = v;
  }
  return out;
}
