/**
 * `@memo/mcp-server/http`: memo's MCP server over stateless Streamable HTTP, as web-standard
 * `Request → Response` handlers that run under `deno serve`, on edge workers and inside web
 * frameworks.
 *
 * Each request goes through, in order: the origin check, CORS, bearer authentication, header
 * validation and JSON-RPC dispatch. A JSON-RPC answer is HTTP 200, errors included, except: 400 for
 * a body that is not JSON and for the 2026-07-28 header checks; 404 for an unknown method of a
 * 2026-07-28 request; 403 `insufficient_scope` for a request refused only for its OAuth scope; 503
 * (with `Retry-After`) for a `subscriptions/listen` past the stream limit; 500 when the handler
 * cannot be built from its configuration. Notifications only get 202. The transport refuses with
 * 401, 403 (origin or host), 404 (another path), 405, 406, 413 and 415 (see `docs/http.md`).
 *
 * With OAuth on (`auth.oauth`, or `MEMO_OAUTH_ISSUER` and `MEMO_OAUTH_RESOURCE`) the endpoint is an
 * OAuth 2.1 protected resource (see `docs/oauth.md`). Configuration comes from the options, else
 * from the `MEMO_*` variables (see `docs/configuration.md`).
 *
 * @example Serve the notes of the current directory on http://127.0.0.1:8000/mcp (and the web page on /)
 * ```sh
 * deno serve -A --host 127.0.0.1 http.ts
 * ```
 *
 * @example Mount it in a Hono app
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hono } from "npm:hono@4.13.19";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 *
 * // Without `runtime`, the MEMO_* variables choose it (local on the current directory).
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler = createFrameworkMemoMcpHandler({ runtime, auth: { bearerToken: "change-me" } });
 * const app = new Hono();
 * app.all("/mcp", (c) => handler(c.req.raw));
 * export default app; // for `deno serve`
 *
 * const response = await app.request("https://memo.example.com/mcp", {
 *   method: "POST",
 *   headers: {
 *     authorization: "Bearer change-me",
 *     "content-type": "application/json",
 *     accept: "application/json, text/event-stream",
 *   },
 *   body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
 * });
 * assert.equal(response.status, 200);
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @module
 */

import { cwd as platformCwd, envObject } from "./platform/mod.ts";
import {
  createDefaultServer,
  createHostHandlers,
  createHttpEndpoint,
  exitIfUnworkable,
  type HttpEndpoint,
  type MemoMcpFetchHandler,
  type MemoMcpFrameworkHandler,
  type MemoMcpHttpEnv,
  type MemoMcpHttpOptions,
  type MemoMcpRequestHandler,
  type ProjectOAuthConfig,
  readProjectOAuthConfig,
} from "./server/http/mod.ts";
import { MEMO_MCP_INSTRUCTIONS } from "./server/mod.ts";
import {
  readProjectConfigFile,
  readRuntimeEnv,
  runtimeFactoryFromEnv,
} from "./runtimes/start/mod.ts";

export {
  DEFAULT_ALLOWED_ORIGINS,
  type MemoMcpFetchHandler,
  type MemoMcpFrameworkHandler,
  type MemoMcpHttpAuthOptions,
  type MemoMcpHttpEnv,
  type MemoMcpHttpOptions,
  type MemoMcpOAuthIntrospection,
  type MemoMcpOAuthOptions,
  type MemoMcpOAuthScopes,
  type MemoMcpRequestHandler,
} from "./server/http/mod.ts";
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
  MemoCloudBatchResult,
  MemoCloudCallOptions,
  MemoCloudChange,
  MemoCloudChangesOptions,
  MemoCloudChangesPage,
  MemoCloudClient,
  MemoCloudClientOptions,
  MemoCloudConditionalOptions,
  MemoCloudDeleteResult,
  MemoCloudDeleteSelector,
  MemoCloudDraft,
  MemoCloudHealth,
  MemoCloudListOptions,
  MemoCloudListResult,
  MemoCloudMcpRuntimeOptions,
  MemoCloudNote,
  MemoCloudOptions,
  MemoCloudRecallHit,
  MemoCloudRecallOptions,
  MemoCloudRememberResult,
  MemoCloudRetryOptions,
  MemoCloudStats,
  MemoCloudWriteOptions,
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
  RuntimeChange,
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

const DEFAULT_OPTIONS: MemoMcpHttpOptions = Object.freeze({});
/** What `deno serve http.ts` serves with: memo's own instructions, as `memo serve` sends them. */
const SERVED_OPTIONS: MemoMcpHttpOptions = Object.freeze({ instructions: MEMO_MCP_INSTRUCTIONS });

/**
 * Composes one endpoint: the runtime is `options.runtime`, else the one the `MEMO_*` variables
 * select (checked now, built at the first request). Throws for a configuration that cannot work.
 */
function composeEndpoint(
  options: MemoMcpHttpOptions,
  env: MemoMcpHttpEnv,
  routed = false,
  projectOAuth?: ProjectOAuthConfig,
): HttpEndpoint {
  const runtime = options.runtime ??
    runtimeFactoryFromEnv({
      env: { ...env },
      cloud: options.cloud,
      cwd: safeCwd(),
      // A deployed endpoint is hosted: it serves the project's notes alone.
      hosted: "this endpoint is hosted (deno serve http.ts): it serves the project scope only",
    });
  return createHttpEndpoint(options, env, { routed, runtime, projectOAuth });
}

function safeCwd(): string | undefined {
  try {
    return platformCwd();
  } catch {
    return undefined; // an edge worker has no working directory
  }
}

const hosted = createHostHandlers(composeEndpoint);

/**
 * Answers one request to the MCP endpoint. The protocol server and runtime are built once per
 * `options` object, at its first request, and reused; a configuration that cannot work answers 500
 * with a "Cannot …" JSON-RPC error. It answers whatever path the host routes to it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { handleMemoMcpRequest } from "@memo/mcp-server/http";
 *
 * // One options object for every request: its endpoint is built once and reused.
 * const rootDir = await Deno.makeTempDir();
 * const options = { runtime: createMemoMcpRuntimeFromConfig({ rootDir }), readOnly: true };
 * const server = Deno.serve(
 *   { hostname: "127.0.0.1", port: 0, onListen() {} },
 *   (request) => handleMemoMcpRequest(request, options),
 * );
 *
 * const response = await fetch(`http://127.0.0.1:${server.addr.port}/mcp`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
 *   body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
 * });
 * assert.equal(response.status, 200);
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * await server.shutdown();
 * await options.runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function handleMemoMcpRequest(
  request: Request,
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): Promise<Response> {
  return hosted.handle(request, options);
}

/**
 * Creates an edge-worker fetch handler `(request, env, ctx)`. The string values of `env` (the
 * worker's bindings) are laid over `options.env` (else the process environment) and read as
 * `MEMO_*` configuration; one endpoint is built per distinct configuration and reused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createMemoMcpFetchHandler } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const worker = { fetch: createMemoMcpFetchHandler({ runtime, readOnly: true }) };
 * export default worker;
 *
 * const call = {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "remember", arguments: { text: "Deploys run with make deploy" } },
 * };
 * const response = await worker.fetch(
 *   new Request("http://127.0.0.1:8787/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", accept: "application/json" },
 *     body: JSON.stringify(call),
 *   }),
 *   {}, // the worker's bindings (env)
 * );
 * const { error } = await response.json(); // still HTTP 200: a JSON-RPC error
 * assert.equal(error.message, "Cannot call remember: the server is read-only");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpFetchHandler(
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): MemoMcpFetchHandler {
  return hosted.fetchHandler(options);
}

/**
 * Creates one route handler for web frameworks. Configuration (options, else the process
 * environment) is checked at once, so a bad one throws here; the runtime starts at the first
 * request.
 *
 * @example Next.js App Router (`app/mcp/route.ts`)
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler = createFrameworkMemoMcpHandler({ runtime, auth: { bearerToken: "change-me" } });
 * export const { GET, POST, OPTIONS, DELETE } = handler;
 *
 * // What Next.js does with a POST to /mcp:
 * const response = await POST(
 *   new Request("https://app.example.com/mcp", {
 *     method: "POST",
 *     headers: {
 *       authorization: "Bearer change-me",
 *       "content-type": "application/json",
 *       accept: "application/json, text/event-stream",
 *     },
 *     body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
 *   }),
 * );
 * assert.deepEqual(await response.json(), { jsonrpc: "2.0", id: 7, result: {} });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @example Hono
 * ```ts
 * import assert from "node:assert/strict";
 * import { Hono } from "npm:hono@4.13.19";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler = createFrameworkMemoMcpHandler({ runtime });
 * const app = new Hono().all("/mcp", (c) => handler(c.req.raw));
 *
 * const response = await app.fetch(
 *   new Request("http://127.0.0.1:8787/mcp", {
 *     method: "POST",
 *     headers: { "content-type": "application/json", accept: "application/json" },
 *     body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
 *   }),
 * );
 * const { result } = await response.json();
 * assert.ok(result.tools.some((tool: { name: string }) => tool.name === "recall"));
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @example A configuration that cannot work throws at once
 * ```ts
 * import assert from "node:assert/strict";
 * import { createFrameworkMemoMcpHandler } from "@memo/mcp-server/http";
 *
 * assert.throws(
 *   () => createFrameworkMemoMcpHandler({ env: { MEMO_MCP_READ_ONLY: "maybe" } }),
 *   /Cannot read MEMO_MCP_READ_ONLY/,
 * );
 * ```
 */
export function createFrameworkMemoMcpHandler(
  options: MemoMcpHttpOptions = DEFAULT_OPTIONS,
): MemoMcpFrameworkHandler {
  return hosted.frameworkHandler(options);
}

const defaults = createDefaultServer(async () => {
  const env = envObject();
  const rootDir = readRuntimeEnv(env).rootDir ?? safeCwd();
  const file = rootDir === undefined ? undefined : await readProjectConfigFile(rootDir);
  return composeEndpoint(SERVED_OPTIONS, env, true, readProjectOAuthConfig(file));
});

/**
 * The endpoint configured from the environment, for `deno serve http.ts` (and any host that takes a
 * `{ fetch }` object). It answers MCP only on `MEMO_MCP_PATH` (default `/mcp`), serves memo's web
 * page on `/` (`MEMO_UI_PATH`; `MEMO_UI=false` turns it off) with its assets under
 * `/_memo/assets/`, and gives 404 elsewhere. The page needs no token; its calls to the MCP path do
 * when the endpoint requires one.
 *
 * @example
 * ```sh
 * MEMO_ROOT_DIR=~/notes deno serve -A --host 127.0.0.1 --port 8787 http.ts
 * # MCP on http://127.0.0.1:8787/mcp, the web page on http://127.0.0.1:8787/
 * ```
 *
 * @example The web page on `/`
 * ```ts
 * import assert from "node:assert/strict";
 * import server from "@memo/mcp-server/http";
 *
 * const response = await server.fetch(new Request("http://127.0.0.1:8787/"));
 * assert.equal(response.status, 200);
 * assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
 * assert.match(await response.text(), /<title>memo<\/title>/);
 * ```
 *
 * @example Only the endpoint's path answers
 * ```ts
 * import assert from "node:assert/strict";
 * import server from "@memo/mcp-server/http";
 *
 * const response = await server.fetch(new Request("http://127.0.0.1:8787/favicon.ico"));
 * assert.equal(response.status, 404);
 * await response.body?.cancel();
 * ```
 */
const server: { fetch: MemoMcpRequestHandler } = { fetch: defaults.fetch };

export default server;

if (import.meta.main) await exitIfUnworkable(await defaults.endpoint());
