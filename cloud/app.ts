/**
 * The reference Cloud API server's HTTP side: {@linkcode createMemoCloudHandler}
 * turns a {@linkcode CloudStore} and a table of API keys into a web-standard
 * `Request → Response` handler for the Memo Cloud API v1 (`docs/cloud-api.md`).
 *
 * `HEAD` is answered wherever `GET` is: the same status and headers, no body.
 *
 * Each request goes through, in order: the route (404) → the API key (401) →
 * the workspace and project ids (400) → the key's workspace (403) → the rate
 * limit (429) → the body limit (413) → JSON and its fields (400) → the
 * `Idempotency-Key` of a write → the store.
 *
 * @module
 */

import { VERSION } from "../version.ts";
import { ApiKeyTable, type Caller, CLOUD_ID_PATTERN, CLOUD_ID_RULE } from "./_auth.ts";
import { parseJsonObject, readBody } from "./_body.ts";
import {
  CloudApiError,
  errorResponse,
  errorText,
  INTERNAL_MESSAGE,
  jsonResponse,
  jsonTextResponse,
} from "./_errors.ts";
import {
  batchInput,
  changesQuery,
  createNoteInput,
  idempotencyKeyOf,
  ifMatchOf,
  listQuery,
  noQuery,
  patchInput,
  recallInput,
} from "./_fields.ts";
import { DEFAULT_IDEMPOTENCY_WAIT_MS, fingerprintOf, runIdempotent } from "./_idempotency.ts";
import { guardCloudDrafts, guardCloudPatch } from "./_secrets.ts";
import { correctInput, supersedeInput, tidyPlanInput } from "./_truth_fields.ts";
import { type CloudLogLevel, failureLine, logsRequest, requestLine } from "./_log.ts";
import { healthzResponse } from "../platform/mod.ts";
import { RateLimiter } from "./_rate_limit.ts";
import { type CloudRoute, matchRoute } from "./_routes.ts";
import { CLOUD_OPENAPI_DOCUMENT } from "./openapi.ts";
import type { ApiKeyEntry } from "./_auth.ts";
import type { CloudNote, CloudProject, CloudStore, IdempotentAnswer } from "./store.ts";
import type { SecretsPolicy } from "@memo/memory";

export type { ApiKeyEntry } from "./_auth.ts";
export type { CloudLogLevel } from "./_log.ts";

/**
 * Default requests per second per API key on one instance.
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
   * The API keys: `key → workspaceId`, or a list of pairs. At least one;
   * each workspace id matches `[0-9a-z][0-9a-z_-]*` (at most 64 characters).
   */
  apiKeys: ReadonlyMap<string, string> | readonly ApiKeyEntry[];
  /**
   * Requests per second per key on this instance; 0 turns the limit off.
   * @default {100}
   */
  rateLimit?: number;
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
   * How long a repeated write waits for the first one with the same
   * `Idempotency-Key` before answering 409, in ms.
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
   * Which lines reach `log`: `error` (5xx and failures), `warn` (also 4xx),
   * `info` (every request), `debug` (also stacks).
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

/** What an operation answers: a status and a JSON body. */
interface Answer {
  status: number;
  body: unknown;
}

function checkNumberOption(value: number | undefined, name: string, min: number): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
    throw new Error(
      `Cannot create the cloud handler: ${name} must be an integer of at least ${min}`,
    );
  }
}

function quoteId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function noteNotFound(id: string): CloudApiError {
  return new CloudApiError("not_found", `Cannot find note ${quoteId(id)}`, {
    details: { id: id.slice(0, 80) },
  });
}

/** The answer of an error the store or the input raised, or `undefined` for a failure. */
function answerOfError(error: unknown): IdempotentAnswer | undefined {
  if (error instanceof CloudApiError) {
    return { status: error.status, body: errorText(error.code, error.message, error.details) };
  }
  const e = error as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
  if (
    e?.name === "CloudConflictError" && typeof (e as { current?: unknown }).current === "object"
  ) {
    const current = (e as { current: CloudNote }).current;
    return {
      status: 409,
      body: errorText("conflict", String(e.message), { note: current }),
    };
  }
  if (e?.code === "MEMORY_VALIDATION_ERROR") {
    const details = e.details && typeof e.details === "object"
      ? e.details as Record<string, unknown>
      : undefined;
    return { status: 400, body: errorText("invalid_request", String(e.message), details) };
  }
  if (e?.code === "NOTE_NOT_FOUND") {
    const details = e.details && typeof e.details === "object"
      ? e.details as Record<string, unknown>
      : undefined;
    return { status: 404, body: errorText("not_found", String(e.message), details) };
  }
  return undefined;
}

/**
 * Creates the Cloud API v1 handler over a store. Throws at once for a
 * configuration that cannot work (no key, a bad workspace id, a bad limit),
 * without echoing a key.
 *
 * @example Create a note, read it back, and see another workspace refused
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudHandler } from "./app.ts";
 * import { FileCloudStore } from "./file_store.ts";
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
  const clock = options.clock ?? (() => new Date());
  const limiter = new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, clock);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBatchBody = options.maxBatchBodyBytes ?? BATCH_MAX_BODY_BYTES;
  const waitMs = options.idempotencyWaitMs ?? DEFAULT_IDEMPOTENCY_WAIT_MS;
  const secrets: SecretsPolicy = options.secrets ?? "redact";
  const level = options.logLevel ?? "info";
  const sink = options.log;
  const log = (line: string) => {
    if (!sink) return;
    try {
      sink(keys.redact(line));
    } catch {
      // A log sink that throws must not fail the request.
    }
  };
  const openApiText = JSON.stringify(CLOUD_OPENAPI_DOCUMENT);

  /** Counts a request of `caller`; throws 429 past the rate limit. */
  function limit(caller: Caller): void {
    const retryAfter = limiter.take(caller.keyIndex);
    if (retryAfter !== undefined) {
      throw new CloudApiError(
        "rate_limited",
        `Cannot answer the request: more than ${
          options.rateLimit ?? DEFAULT_RATE_LIMIT
        } requests per second with this API key; retry after ${retryAfter} s`,
        { headers: { "retry-after": String(retryAfter) }, details: { retryAfter } },
      );
    }
  }

  /** Handles a request the route table matched, after authentication. */
  async function authorized(
    request: Request,
    url: URL,
    route: CloudRoute,
    params: Record<string, string>,
    caller: Caller,
    onFailure: (error: unknown) => void,
  ): Promise<Response> {
    if (route.operation === "whoami") {
      limit(caller);
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
    limit(caller);
    let bytes: Uint8Array = new Uint8Array(0);
    let body: Record<string, unknown> = {};
    if (route.body) {
      bytes = await readBody(request, route.operation === "upsertNotes" ? maxBatchBody : maxBody);
      body = parseJsonObject(bytes);
    }
    const project = () => store.project(workspaceId, projectId);
    const noteId = params.noteId;
    if (!route.write) {
      const answer = await read(route, url, body, noteId, project);
      return jsonResponse(answer.status, answer.body);
    }
    const write = prepareWrite(route, url, body, noteId, request.headers, project);
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

  async function read(
    route: CloudRoute,
    url: URL,
    body: Record<string, unknown>,
    noteId: string | undefined,
    project: () => Promise<CloudProject>,
  ): Promise<Answer> {
    const query = url.searchParams;
    switch (route.operation) {
      case "listNotes": {
        const list = listQuery(query);
        const p = await project();
        try {
          return { status: 200, body: await p.list(list) };
        } catch (e) {
          // The one input the store checks itself: name it.
          const error = e as { code?: unknown; message?: unknown };
          if (list.cursor !== undefined && error?.code === "MEMORY_VALIDATION_ERROR") {
            throw new CloudApiError("invalid_request", String(error.message), {
              details: { parameter: "cursor" },
            });
          }
          throw e;
        }
      }
      case "getNote": {
        noQuery(query, "get the note");
        if (!CLOUD_ID_PATTERN.test(noteId!)) throw noteNotFound(noteId!);
        const note = await (await project()).get(noteId!);
        if (!note) throw noteNotFound(noteId!);
        return { status: 200, body: { note } };
      }
      case "recall": {
        noQuery(query, "recall");
        const { query: text, ...rest } = recallInput(body);
        const hits = await (await project()).recall(text, rest);
        return { status: 200, body: { hits } };
      }
      case "listChanges": {
        const { since, token, limit } = changesQuery(query);
        const p = await project();
        if (since > 0) {
          // A token past the feed's end (another server's or project's) would skip changes.
          const latest = await p.revision();
          if (since > latest) {
            throw new CloudApiError(
              "invalid_request",
              `Cannot read the changes: since is ahead of the feed, whose latest change is ${latest}; pass the "next" of an earlier answer of this project`,
              { details: { parameter: "since" } },
            );
          }
        }
        const { changes, hasMore } = await p.changes(since, limit);
        const next = changes.length ? String(changes[changes.length - 1].seq) : token;
        return { status: 200, body: { changes, next, hasMore } };
      }
      case "getStats": {
        noQuery(query, "count the notes");
        return { status: 200, body: await (await project()).stats() };
      }
      case "tidyNotes": {
        noQuery(query, "tidy the notes");
        return { status: 200, body: await (await project()).tidy() };
      }
      default:
        throw new Error(`Cannot route ${route.operation}: not a read`);
    }
  }

  /** A write whose answer is a 200 with what `run` returns. */
  function ok200(action: string, run: () => Promise<unknown>) {
    return { action, run: async () => ({ status: 200, body: await run() }) };
  }

  function prepareWrite(
    route: CloudRoute,
    url: URL,
    body: Record<string, unknown>,
    noteId: string | undefined,
    headers: Headers,
    project: () => Promise<CloudProject>,
  ): { action: string; ifMatch?: number; run: () => Promise<Answer> } {
    const query = url.searchParams;
    switch (route.operation) {
      case "createNote": {
        const action = "create the note";
        noQuery(query, action);
        const draft = createNoteInput(body);
        return {
          action,
          run: async () => {
            const guarded = await guardCloudDrafts([draft], secrets, action);
            const result = await (await project()).remember(guarded.drafts[0]);
            const answer = guarded.redacted.length
              ? { ...result, redacted: guarded.redacted }
              : result;
            return { status: result.status === "written" ? 201 : 200, body: answer };
          },
        };
      }
      case "upsertNotes": {
        const action = "upsert the notes";
        noQuery(query, action);
        const drafts = batchInput(body);
        return {
          action,
          run: async () => {
            const guarded = await guardCloudDrafts(drafts, secrets, action);
            const results = await (await project()).upsert(guarded.drafts);
            const count = (status: string) => results.filter((r) => r.status === status).length;
            return {
              status: 200,
              body: {
                results,
                written: count("written"),
                updated: count("updated"),
                unchanged: count("unchanged"),
                ...(guarded.redacted.length ? { redacted: guarded.redacted } : {}),
              },
            };
          },
        };
      }
      case "correctNote": {
        const action = "correct the note";
        noQuery(query, action);
        const input = correctInput(body);
        return ok200(action, async () => {
          // The new text, title and labels, as a new note's (the ids and date hold no text).
          const guarded = await guardCloudDrafts([input], secrets, action);
          const result = await (await project()).correct(guarded.drafts[0]);
          return guarded.redacted.length ? { ...result, redacted: guarded.redacted } : result;
        });
      }
      case "supersedeNotes": {
        noQuery(query, "supersede the notes");
        const input = supersedeInput(body);
        return ok200("supersede the notes", async () => await (await project()).supersede(input));
      }
      case "applyTidy": {
        noQuery(query, "apply the tidy plan");
        const plan = tidyPlanInput(body);
        return ok200("apply the tidy plan", async () => await (await project()).applyTidy(plan));
      }
      case "updateNote":
      case "deleteNote": {
        const action = route.operation === "updateNote" ? "update the note" : "delete the note";
        noQuery(query, action);
        const patch = route.operation === "updateNote" ? patchInput(body) : undefined;
        const ifMatch = ifMatchOf(headers, action);
        if (!CLOUD_ID_PATTERN.test(noteId!)) throw noteNotFound(noteId!);
        return {
          action,
          ifMatch,
          run: async () => {
            const p = await project();
            const guarded = patch ? await guardCloudPatch(patch, secrets) : undefined;
            const note = guarded
              ? await p.update(noteId!, guarded.patch, ifMatch)
              : await p.remove(noteId!, ifMatch);
            if (!note) throw noteNotFound(noteId!);
            const redacted = guarded?.redacted ?? [];
            return { status: 200, body: redacted.length ? { note, redacted } : { note } };
          },
        };
      }
      default:
        throw new Error(`Cannot route ${route.operation}: not a write`);
    }
  }

  async function route(request: Request, url: URL, onFailure: (e: unknown) => void) {
    // The liveness check, outside the API (no key, no data; /v1/health has the details).
    const health = healthzResponse(request);
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
    const caller = keys.authenticate(request.headers.get("authorization"));
    if (!caller) {
      const message = request.headers.has("authorization")
        ? "Cannot authenticate: the Authorization header holds no valid API key"
        : "Cannot authenticate: send Authorization: Bearer <API key>";
      throw new CloudApiError("unauthorized", message, {
        headers: { "www-authenticate": "Bearer" },
      });
    }
    return await authorized(request, url, route, params, caller, onFailure);
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
    const fail = (error: unknown) => log(failureLine(clock(), request.method, path, error, level));
    let response: Response;
    try {
      response = await route(request, url, fail);
    } catch (e) {
      if (e instanceof CloudApiError) response = errorResponse(e);
      else {
        const answer = answerOfError(e);
        if (answer) response = jsonTextResponse(answer.status, answer.body);
        else {
          fail(e);
          response = jsonTextResponse(500, errorText("internal", INTERNAL_MESSAGE));
        }
      }
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
      log(requestLine(end, request.method, path, response.status, end.getTime() - start.getTime()));
    }
    return response;
  };
}
