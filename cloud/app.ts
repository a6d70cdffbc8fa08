/**
 * The reference Cloud API server's HTTP side: {@linkcode createMemoCloudHandler} turns a
 * {@linkcode CloudStore} and a table of API keys into a web-standard `Request → Response` handler
 * for the Memo Cloud API v1 (`docs/cloud-api.md`).
 *
 * `HEAD` is answered wherever `GET` is: the same status and headers, no body.
 *
 * Each request goes through, in order: the route (404) → the API key (401) → the workspace and
 * project ids (400) → the key's workspace (403) → the rate limit (429) → the body limit (413) →
 * JSON and its fields (400) → the `Idempotency-Key` of a write → the store. Every answer counted by
 * the rate limit carries `RateLimit-Policy` and `RateLimit` (IETF draft), a 429 `Retry-After` too.
 *
 * Outside the API: `GET /healthz` (liveness), `GET /readyz` (readiness: the store can serve and the
 * instance is not draining) and, for operator keys, `GET /v1/stats` (`_instance.ts`).
 *
 * @module
 */

import { VERSION } from "../version.ts";
import {
  ApiKeyTable,
  type Caller,
  CLOUD_ID_PATTERN,
  CLOUD_ID_RULE,
  OperatorKeyTable,
} from "./_auth.ts";
import { parseJsonObject, readBody } from "./_body.ts";
import {
  CloudApiError,
  errorResponse,
  errorText,
  INTERNAL_MESSAGE,
  jsonResponse,
  jsonTextResponse,
} from "./errors.ts";
import { idempotencyKeyOf } from "./fields/headers.ts";
import { noQuery } from "./fields/query.ts";
import { DEFAULT_IDEMPOTENCY_WAIT_MS, fingerprintOf, runIdempotent } from "./_idempotency.ts";
import {
  failureLine,
  healthzResponse,
  type LogLevel,
  logsRequest,
  requestLine,
} from "../platform/mod.ts";
import { instanceStats, readyzResponse } from "./_instance.ts";
import { answerOfError, prepareWrite, readOperation } from "./_operations.ts";
import { MemoryRateLimiter, type RateLimiter, rateLimitHeaders } from "./rate_limit.ts";
import { type CloudRoute, matchRoute } from "./_routes.ts";
import { CLOUD_OPENAPI_DOCUMENT } from "./openapi/document.ts";
import type { ApiKeyEntry } from "./_auth.ts";
import type { CloudStore } from "./store.ts";
import type { SecretsPolicy } from "@memo/memory";

export type { ApiKeyEntry } from "./_auth.ts";
/**
 * How much the server logs: one line a request (the prefix `memo-cloud`, the format `memo serve`
 * uses) and, at every level, the failures a 500 hides.
 */
export type CloudLogLevel = LogLevel;

/**
 * Default requests per second per API key, across every instance.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_RATE_LIMIT } from "./app.ts";
 *
 * assert.equal(DEFAULT_RATE_LIMIT, 100);
 * ```
 */
export const DEFAULT_RATE_LIMIT = 100;

/**
 * Default body limit in bytes (1 MiB).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_BODY_BYTES } from "./app.ts";
 *
 * assert.equal(DEFAULT_MAX_BODY_BYTES, 1024 * 1024);
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * Body limit of `POST notes:batch` in bytes (16 MiB), whatever the general limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BATCH_MAX_BODY_BYTES } from "./app.ts";
 *
 * assert.equal(BATCH_MAX_BODY_BYTES, 16 * 1024 * 1024);
 * ```
 */
export const BATCH_MAX_BODY_BYTES = 16_777_216;

/** The prefix of the server's log lines. */
const LOG_PREFIX = "memo-cloud";

/**
 * Options of {@linkcode createMemoCloudHandler}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudHandlerOptions } from "./app.ts";
 * import type { CloudStore } from "./store.ts";
 *
 * function options(store: CloudStore): MemoCloudHandlerOptions {
 *   return { store, apiKeys: [{ key: "k-team", workspaceId: "team" }], rateLimit: 0 };
 * }
 * assert.equal(typeof options, "function");
 * ```
 */
export interface MemoCloudHandlerOptions {
  /** Where projects and idempotency keys are kept. */
  store: CloudStore;
  /**
   * The API keys: `key → workspaceId`, or a list of pairs. At least one; each workspace id matches
   * `[0-9a-z][0-9a-z_-]*` (at most 64 characters).
   */
  apiKeys: ReadonlyMap<string, string> | readonly ApiKeyEntry[];
  /**
   * Requests per second per API key; 0 turns the limit off. Counted by `rateLimiter`: across every
   * instance with the PostgreSQL store, in this process with the file store.
   * @default {100}
   */
  rateLimit?: number;
  /**
   * Where requests are counted.
   * @default {the store's (`CloudStore.rateLimiter`), else this process's}
   */
  rateLimiter?: RateLimiter;
  /**
   * Keys that read `GET /v1/stats` (`MEMO_CLOUD_OPERATOR_KEYS`) and nothing else; none may also be
   * an API key.
   * @default {[]}
   */
  operatorKeys?: readonly string[];
  /**
   * True once the instance drains before it stops: `GET /readyz` then answers 503 while requests
   * are still served.
   * @default {() => false}
   */
  draining?: () => boolean;
  /**
   * Body limit in bytes of every route but `notes:batch`.
   * @default {1048576}
   */
  maxBodyBytes?: number;
  /**
   * Body limit in bytes of `POST notes:batch`.
   * @default {16777216}
   */
  maxBatchBodyBytes?: number;
  /**
   * How long a repeated write waits for the first one with the same `Idempotency-Key` before
   * answering 409, in ms.
   * @default {10000}
   */
  idempotencyWaitMs?: number;
  /**
   * The time, for the rate limit's windows and the log.
   * @default {() => new Date()}
   */
  clock?: () => Date;
  /** Receives each log line (without a newline). No secrets are ever passed. */
  log?: (line: string) => void;
  /**
   * What a write does with a detected secret in a note's title, text, labels or source
   * (`MEMO_CLOUD_SECRETS`): `redact` stores `[redacted:<rule-id>]` and says so in the answer
   * (`redacted`), `refuse` answers 400 `invalid_request`, `allow` turns the guard off.
   * @default {"redact"}
   */
  secrets?: SecretsPolicy;
  /**
   * Which lines reach `log`: `error` (5xx and failures), `warn` (also 4xx), `info` (every request),
   * `debug` (also stacks).
   * @default {"info"}
   */
  logLevel?: CloudLogLevel;
}

/**
 * A web-standard Cloud API handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudHandler } from "./app.ts";
 *
 * const handler: MemoCloudHandler = () => Promise.resolve(new Response(null, { status: 404 }));
 * assert.equal((await handler(new Request("http://x/"))).status, 404);
 * ```
 */
export type MemoCloudHandler = (request: Request) => Promise<Response>;

function checkNumberOption(value: number | undefined, name: string, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new Error(
      `Cannot create the cloud handler: ${name} must be an integer of at least ${min}`,
    );
  }
}

/**
 * Creates the Cloud API v1 handler over a store. Throws at once for a configuration that cannot
 * work (no key, a bad workspace id, a bad limit), without echoing a key.
 *
 * @example Create a note, read it back, and see another workspace refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudHandler } from "./app.ts";
 * import { FileCloudStore } from "./file/store.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const store = new FileCloudStore({ dataDir });
 * const lines: string[] = [];
 * const handler = createMemoCloudHandler({
 *   store,
 *   apiKeys: new Map([["k-team", "team"]]),
 *   log: (line) => lines.push(line),
 * });
 * const base = "http://127.0.0.1:8788/v1/workspaces/team/projects/default";
 * const auth = { authorization: "Bearer k-team" };
 *
 * const created = await handler(new Request(`${base}/notes`, {
 *   method: "POST",
 *   headers: { ...auth, "content-type": "application/json", "idempotency-key": "write-1" },
 *   body: JSON.stringify({ text: "Deploys run with make deploy", labels: ["ops"] }),
 * }));
 * assert.equal(created.status, 201);
 * const { note, status } = await created.json();
 * assert.equal(status, "written");
 * assert.equal(typeof note.revision, "number");
 *
 * const got = await handler(new Request(`${base}/notes/${note.id}`, { headers: auth }));
 * assert.equal((await got.json()).note.body, "Deploys run with make deploy");
 *
 * const other = await handler(
 *   new Request("http://127.0.0.1:8788/v1/workspaces/other/projects/default/stats", {
 *     headers: auth,
 *   }),
 * );
 * assert.equal(other.status, 403);
 * assert.equal((await other.json()).error.code, "forbidden");
 * assert.match(lines[0], /^memo-cloud: \S+ POST \/v1\/workspaces\/team\/projects\/default\/notes 201 \d+ms$/);
 * assert.ok(lines.every((line) => !line.includes("k-team"))); // never the key
 *
 * await store.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export function createMemoCloudHandler(options: MemoCloudHandlerOptions): MemoCloudHandler {
  const { store } = options;
  checkNumberOption(options.rateLimit, "rateLimit", 0);
  checkNumberOption(options.maxBodyBytes, "maxBodyBytes", 1);
  checkNumberOption(options.maxBatchBodyBytes, "maxBatchBodyBytes", 1);
  checkNumberOption(options.idempotencyWaitMs, "idempotencyWaitMs", 0);
  const keys = new ApiKeyTable(options.apiKeys);
  const operators = new OperatorKeyTable(options.operatorKeys ?? [], keys);
  const clock = options.clock ?? (() => new Date());
  const rate = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const limiter = options.rateLimiter ?? store.rateLimiter ?? new MemoryRateLimiter(clock);
  // A handler given a clock names the rate limit's windows itself (tests); else the limiter does.
  const rateClock = options.clock && (() => options.clock!().getTime());
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBatchBody = options.maxBatchBodyBytes ?? BATCH_MAX_BODY_BYTES;
  const waitMs = options.idempotencyWaitMs ?? DEFAULT_IDEMPOTENCY_WAIT_MS;
  const secrets: SecretsPolicy = options.secrets ?? "redact";
  const draining = options.draining ?? (() => false);
  const startedAt = clock().getTime();
  const level = options.logLevel ?? "info";
  const sink = options.log;
  const log = (line: string) => {
    if (!sink) return;
    try {
      sink(operators.redact(keys.redact(line)));
    } catch {
      // A log sink that throws must not fail the request.
    }
  };
  const openApiText = JSON.stringify(CLOUD_OPENAPI_DOCUMENT);

  /**
   * Counts a request of `caller` and returns the rate limit's headers for its answer; throws 429
   * (with them) past the limit. A limiter that fails (the database is down) lets the request
   * through: it fails on its own if the store is down too.
   */
  async function limit(caller: Caller, fail: (e: unknown) => void): Promise<Headers> {
    const headers = new Headers();
    if (rate <= 0) return headers;
    let decision;
    try {
      decision = await limiter.take(caller.rateKey, rate, rateClock?.());
    } catch (e) {
      fail(e);
      return headers;
    }
    const fields = rateLimitHeaders(rate, decision);
    for (const [name, value] of Object.entries(fields)) headers.set(name, value);
    if (!decision.allowed) {
      throw new CloudApiError(
        "rate_limited",
        `Cannot answer the request: more than ${rate} requests per second with this API key; ` +
          `retry after ${decision.resetSeconds} s`,
        { headers: fields, details: { retryAfter: decision.resetSeconds } },
      );
    }
    return headers;
  }

  /** Handles a request the route table matched, after authentication. */
  async function authorized(
    request: Request,
    url: URL,
    route: CloudRoute,
    params: Record<string, string>,
    caller: Caller,
    answer: Headers,
    onFailure: (error: unknown) => void,
  ): Promise<Response> {
    const counted = async () => {
      for (const [name, value] of await limit(caller, onFailure)) answer.set(name, value);
    };
    if (route.operation === "whoami") {
      await counted();
      noQuery(url.searchParams, "tell who the key is");
      return jsonResponse(200, { workspaceId: caller.workspaceId });
    }
    const { workspaceId, projectId } = params;
    if (!CLOUD_ID_PATTERN.test(workspaceId)) {
      throw new CloudApiError(
        "invalid_request",
        `Cannot read the workspace id: it must be ${CLOUD_ID_RULE}`,
      );
    }
    if (!CLOUD_ID_PATTERN.test(projectId)) {
      throw new CloudApiError(
        "invalid_request",
        `Cannot read the project id: it must be ${CLOUD_ID_RULE}`,
      );
    }
    if (workspaceId !== caller.workspaceId) {
      throw new CloudApiError(
        "forbidden",
        `Cannot use workspace ${workspaceId}: the API key belongs to another workspace`,
      );
    }
    await counted();
    let bytes: Uint8Array = new Uint8Array(0);
    let body: Record<string, unknown> = {};
    if (route.body) {
      const batch = route.operation === "upsertNotes" || route.operation === "deleteNotes";
      bytes = await readBody(request, batch ? maxBatchBody : maxBody);
      body = parseJsonObject(bytes);
    }
    const project = () => store.project(workspaceId, projectId);
    const noteId = params.noteId;
    if (!route.write) {
      const answer = await readOperation(route, url, body, noteId, project);
      return jsonResponse(answer.status, answer.body);
    }
    const write = prepareWrite(route, url, body, noteId, request.headers, project, secrets);
    return await runIdempotent({
      store: store.idempotency,
      workspaceId,
      key: idempotencyKeyOf(request.headers, write.action),
      fingerprint: fingerprintOf(request.method, url.pathname, bytes, write.ifMatch),
      waitMs,
      signal: () => request.signal,
      onKeepError: onFailure,
    }, async () => {
      try {
        const answer = await write.run();
        return { status: answer.status, body: JSON.stringify(answer.body) };
      } catch (e) {
        const answer = answerOfError(e);
        if (answer === undefined) throw e;
        return answer;
      }
    });
  }

  /** `GET /v1/stats`: operator keys only (a workspace key is refused), no rate limit. */
  function operatorRoute(request: Request, url: URL): Response {
    const authorization = request.headers.get("authorization");
    if (!operators.authenticate(authorization)) {
      if (keys.authenticate(authorization)) {
        throw new CloudApiError(
          "forbidden",
          "Cannot read the instance's figures: this is a workspace key; use an operator key " +
            "(MEMO_CLOUD_OPERATOR_KEYS)",
        );
      }
      throw new CloudApiError(
        "unauthorized",
        operators.size === 0
          ? "Cannot authenticate: no operator key is configured (MEMO_CLOUD_OPERATOR_KEYS)"
          : "Cannot authenticate: send Authorization: Bearer <operator key>",
        { headers: { "www-authenticate": "Bearer" } },
      );
    }
    noQuery(url.searchParams, "report the instance's figures");
    return jsonResponse(
      200,
      instanceStats(store, startedAt, { limit: rate, limiter }, clock().getTime()),
    );
  }

  async function route(
    request: Request,
    url: URL,
    answer: Headers,
    onFailure: (e: unknown) => void,
  ) {
    // The liveness and readiness checks, outside the API (no key, no data).
    const health = healthzResponse(request) ?? await readyzResponse(request, store, draining);
    if (health) return health;
    // HEAD is GET without the body (the caller drops it).
    const match = matchRoute(request.method === "HEAD" ? "GET" : request.method, url.pathname);
    if (!match) {
      throw new CloudApiError(
        "not_found",
        `Cannot find ${request.method} ${url.pathname.slice(0, 200)}: no such route`,
      );
    }
    const { route, params } = match;
    if (route.public) {
      if (route.operation === "getHealth") {
        return jsonResponse(200, { status: "ok", version: VERSION, store: store.kind });
      }
      return jsonTextResponse(200, openApiText);
    }
    if (route.operator) return operatorRoute(request, url);
    const caller = keys.authenticate(request.headers.get("authorization"));
    if (!caller) {
      if (operators.authenticate(request.headers.get("authorization"))) {
        throw new CloudApiError(
          "forbidden",
          "Cannot use an operator key here: it reads GET /v1/stats only",
        );
      }
      const message = request.headers.has("authorization")
        ? "Cannot authenticate: the Authorization header holds no valid API key"
        : "Cannot authenticate: send Authorization: Bearer <API key>";
      throw new CloudApiError("unauthorized", message, {
        headers: { "www-authenticate": "Bearer" },
      });
    }
    return await authorized(request, url, route, params, caller, answer, onFailure);
  }

  return async (request: Request): Promise<Response> => {
    const start = clock();
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      url = new URL("http://invalid/");
    }
    const path = url.pathname;
    const fail = (error: unknown) =>
      log(failureLine(LOG_PREFIX, clock(), request.method, path, error, level));
    // Headers every answer of the request carries (the rate limit's), whatever it is.
    const answer = new Headers();
    let response: Response;
    try {
      response = await route(request, url, answer, fail);
    } catch (e) {
      if (e instanceof CloudApiError) response = errorResponse(e);
      else {
        const known = answerOfError(e);
        if (known) response = jsonTextResponse(known.status, known.body);
        else {
          fail(e);
          response = jsonTextResponse(500, errorText("internal", INTERNAL_MESSAGE));
        }
      }
    }
    if ([...answer.keys()].length) {
      const headers = new Headers(response.headers);
      for (const [name, value] of answer) if (!headers.has(name)) headers.set(name, value);
      response = new Response(response.body, { status: response.status, headers });
    }
    if (request.method === "HEAD" && response.body !== null) {
      // The Content-Length GET would send (a server would otherwise say 0).
      const length = (await response.arrayBuffer()).byteLength;
      const headers = new Headers(response.headers);
      headers.set("content-length", String(length));
      response = new Response(null, { status: response.status, headers });
    }
    const end = clock();
    if (logsRequest(level, response.status)) {
      const ms = end.getTime() - start.getTime();
      log(requestLine(LOG_PREFIX, end, request.method, path, response.status, ms));
    }
    return response;
  };
}
