/**
 * {@linkcode MemoCloudClient}: the typed client of the Memo Cloud API v1
 * (`docs/cloud-api.md`). The cloud runtime, and the hybrid runtime's replica,
 * talk to the cloud through it.
 *
 * - Requests carry `Authorization: Bearer <apiKey>`; the key never appears in
 *   an error.
 * - Before its first call other than {@linkcode MemoCloudClient.health}, the
 *   client asks `GET /v1/whoami` which workspace the key belongs to: a
 *   configured `workspaceId` that differs fails that call, having read and
 *   written nothing; without one, the key's workspace is used.
 * - Each attempt has its own timeout. Network failures, timeouts, 429,
 *   500/502/503/504, and a 409 saying the same write is still running
 *   (`in_progress`) are retried with exponential backoff and jitter,
 *   honouring `Retry-After` (up to 60 s; a longer one fails the call at once,
 *   with `retryAfterSeconds`); other 4xx are not. Every write carries an
 *   `Idempotency-Key`, the same on each retry, so a retried write lands once.
 *
 * @module
 */

import type { MemoStats, Note, RecallHit } from "@memo/memory";
import { VERSION } from "../version.ts";
import { MemoCloudError } from "./_cloud_errors.ts";
import { type CloudRequest, sendCloudRequest } from "./_cloud_transport.ts";
import type { TransportSettings } from "./_cloud_transport.ts";

/**
 * Retry policy of the Cloud API client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudRetryOptions } from "@memo/mcp-server";
 *
 * let calls = 0;
 * const retry: MemoCloudRetryOptions = { maxRetries: 2, backoffMs: 1 };
 * const client = new MemoCloudClient({
 *   baseUrl: "http://127.0.0.1:8788",
 *   requireApiKey: false, // health needs no key
 *   retry,
 *   fetch: () => (calls++, Promise.resolve(new Response("busy", { status: 503 }))),
 * });
 * await assert.rejects(client.health(), { code: "unavailable" });
 * assert.equal(calls, 3); // the first attempt and two retries
 * ```
 */
export interface MemoCloudRetryOptions {
  /**
   * Retries after the first attempt.
   * @default 3
   */
  maxRetries?: number;
  /**
   * First backoff; it grows exponentially with jitter, and `Retry-After` wins.
   * @default 250
   */
  backoffMs?: number;
}

/**
 * The `cloud` options: where the Cloud API is and how to call it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudOptions } from "@memo/mcp-server";
 *
 * const cloud: MemoCloudOptions = {
 *   baseUrl: "https://cloud.example/v1/", // the origin, or the origin and /v1
 *   apiKey: "mk_example",
 *   workspaceId: "acme",
 *   projectId: "handbook",
 *   timeoutMs: 5000,
 * };
 * const client = new MemoCloudClient(cloud);
 * assert.equal(client.baseUrl, "https://cloud.example/v1");
 * assert.equal(client.projectId, "handbook");
 * ```
 */
export interface MemoCloudOptions {
  /**
   * The server's origin (`http://127.0.0.1:8788`), or the origin followed by
   * `/v1`; a trailing slash is fine.
   */
  baseUrl?: string;
  /** API key sent as a bearer token. Never logged, never in an error. */
  apiKey?: string;
  /**
   * Workspace the notes belong to; must be the key's. The key's when missing.
   * @default {the API key's workspace}
   */
  workspaceId?: string;
  /**
   * Project the notes belong to.
   * @default "default"
   */
  projectId?: string;
  /**
   * Timeout of one attempt, in milliseconds.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * `User-Agent` of the requests.
   * @default "memo/<version>"
   */
  userAgent?: string;
  /**
   * Refuse to start without an API key.
   * @default true
   */
  requireApiKey?: boolean;
  /** Retry policy. */
  retry?: MemoCloudRetryOptions;
}

/**
 * Options of the {@linkcode MemoCloudClient} constructor: the `cloud`
 * options, and the I/O a test may replace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudClientOptions } from "@memo/mcp-server";
 *
 * const waits: number[] = [];
 * const options: MemoCloudClientOptions = {
 *   baseUrl: "http://127.0.0.1:8788",
 *   apiKey: "mk_example",
 *   retry: { maxRetries: 1 },
 *   fetch: () => Promise.resolve(new Response(null, { status: 429, headers: { "retry-after": "2" } })),
 *   sleep: (ms) => (waits.push(ms), Promise.resolve()), // no real waiting in a test
 * };
 * await assert.rejects(new MemoCloudClient(options).health(), { code: "rate_limited" });
 * assert.deepEqual(waits, [2000]); // Retry-After wins over the backoff
 * ```
 */
export interface MemoCloudClientOptions extends MemoCloudOptions {
  /**
   * `fetch` the client uses.
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * Waits between attempts; rejects with `signal`'s reason when it aborts.
   * @default a timer
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Random numbers in [0, 1) for the backoff's jitter.
   * @default Math.random
   */
  random?: () => number;
  /**
   * The time, in epoch milliseconds (to read `Retry-After` dates).
   * @default Date.now
   */
  now?: () => number;
}

/**
 * A note as the Cloud API returns it: the memory package's note plus its
 * server `revision`, the sequence number of its latest change in the
 * project's change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudNote } from "@memo/mcp-server";
 *
 * const note: MemoCloudNote = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 3,
 * };
 * assert.equal(note.revision, 3);
 * ```
 */
export interface MemoCloudNote extends Note {
  /** Sequence number of the note's latest change. */
  revision: number;
}

/**
 * What {@linkcode MemoCloudClient.remember} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRememberResult } from "@memo/mcp-server";
 *
 * const result: MemoCloudRememberResult = {
 *   status: "written",
 *   note: {
 *     id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 * };
 * assert.equal(result.status, "written");
 * ```
 */
export interface MemoCloudRememberResult {
  /** The stored note. */
  note: MemoCloudNote;
  /** `written` (new), `updated` (same identity, new content) or `unchanged`. */
  status: "written" | "updated" | "unchanged";
}

/**
 * A recall hit of the Cloud API (always lexical).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRecallHit } from "@memo/mcp-server";
 *
 * const hit: MemoCloudRecallHit = {
 *   score: 1.2, engine: "lexical", matched: ["deploy"],
 *   note: {
 *     id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 * };
 * assert.equal(hit.engine, "lexical");
 * ```
 */
export interface MemoCloudRecallHit extends Omit<RecallHit, "note"> {
  /** The note. */
  note: MemoCloudNote;
}

/**
 * A page of notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudListResult } from "@memo/mcp-server";
 *
 * const empty: MemoCloudListResult = { notes: [], total: 0 };
 * assert.equal(empty.nextCursor, undefined); // the last page
 * ```
 */
export interface MemoCloudListResult {
  /** The notes of the page. */
  notes: MemoCloudNote[];
  /** Cursor of the next page; missing on the last one. */
  nextCursor?: string;
  /** Notes matching the filters, in all. */
  total: number;
}

/**
 * A project's counts, and the latest sequence number of its change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudStats } from "@memo/mcp-server";
 *
 * const stats: MemoCloudStats = { notes: 0, labels: {}, sources: {}, revision: 0 };
 * assert.equal(stats.revision, 0); // a project never written
 * ```
 */
export interface MemoCloudStats extends Pick<MemoStats, "notes" | "labels" | "sources"> {
  /** Time of the latest change. */
  lastUpdated?: string;
  /** Latest sequence number of the change feed (0 when empty). */
  revision: number;
}

/**
 * One draft of {@linkcode MemoCloudClient.upsertBatch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudDraft } from "@memo/mcp-server";
 *
 * const draft: MemoCloudDraft = {
 *   text: "Run make deploy.",
 *   source: "github:acme/handbook/discussions/42",
 *   created: "2024-05-01T10:00:00Z",
 * };
 * assert.equal(draft.id, undefined); // the server picks an id for a new note
 * ```
 */
export interface MemoCloudDraft {
  /** Id a NEW note gets (a replica keeping ids); ignored when the identity matches. */
  id?: string;
  /** Markdown text. */
  text: string;
  /** Title; derived from the text when missing. */
  title?: string;
  /** Labels. */
  labels?: readonly string[];
  /** Source key, the note's identity. */
  source?: string;
  /** Creation time (upstream). */
  created?: string;
  /** Update time (upstream). */
  updated?: string;
}

/**
 * What {@linkcode MemoCloudClient.upsertBatch} did: `results[i]` answers
 * `drafts[i]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudBatchResult } from "@memo/mcp-server";
 *
 * const none: MemoCloudBatchResult = { results: [], written: 0, updated: 0, unchanged: 0 };
 * assert.equal(none.results.length, 0);
 * ```
 */
export interface MemoCloudBatchResult {
  /** One per draft, in order. */
  results: { status: "written" | "updated" | "unchanged"; note: MemoCloudNote }[];
  /** Notes added. */
  written: number;
  /** Notes changed. */
  updated: number;
  /** Drafts already stored as they are. */
  unchanged: number;
}

/**
 * One entry of the change feed: an upsert with the note, or a tombstone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChange } from "@memo/mcp-server";
 *
 * const tombstone: MemoCloudChange = { seq: 9, op: "delete", id: "n1", revision: 9 };
 * assert.equal(tombstone.op, "delete");
 * ```
 */
export type MemoCloudChange =
  | { seq: number; op: "upsert"; id: string; revision: number; note: MemoCloudNote }
  | { seq: number; op: "delete"; id: string; revision: number };

/**
 * A page of the change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChangesPage } from "@memo/mcp-server";
 *
 * const page: MemoCloudChangesPage = { changes: [], next: "12", hasMore: false };
 * assert.equal(page.next, "12"); // pass it as `since` to resume
 * ```
 */
export interface MemoCloudChangesPage {
  /** Changes in `seq` order. */
  changes: MemoCloudChange[];
  /** Token to resume from (`since` of the next call). */
  next: string;
  /** More changes wait after this page. */
  hasMore: boolean;
}

/**
 * `GET /v1/health`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudHealth } from "@memo/mcp-server";
 *
 * const health: MemoCloudHealth = { status: "ok", version: "0.1.0", store: "file" };
 * assert.equal(health.status, "ok");
 * ```
 */
export interface MemoCloudHealth {
  /** `ok`. */
  status: string;
  /** The server's package version. */
  version: string;
  /** `file` or `postgres`. */
  store: string;
}

/**
 * Per-call options of every {@linkcode MemoCloudClient} method.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudCallOptions } from "@memo/mcp-server";
 *
 * const client = new MemoCloudClient({ baseUrl: "http://127.0.0.1:8788", apiKey: "k" });
 * const options: MemoCloudCallOptions = { signal: AbortSignal.abort(new Error("gone")) };
 * await assert.rejects(client.stats(options), /gone/); // aborted before any request
 * ```
 */
export interface MemoCloudCallOptions {
  /** Aborts the call, its retries and its waits. */
  signal?: AbortSignal;
}

/**
 * Options of a write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudWriteOptions } from "@memo/mcp-server";
 *
 * const options: MemoCloudWriteOptions = { idempotencyKey: crypto.randomUUID() };
 * assert.equal(options.idempotencyKey!.length, 36);
 * ```
 */
export interface MemoCloudWriteOptions extends MemoCloudCallOptions {
  /**
   * `Idempotency-Key` of the write (1 to 255 visible ASCII characters),
   * sent on every attempt.
   * @default {a random UUID per call}
   */
  idempotencyKey?: string;
}

/**
 * Options of {@linkcode MemoCloudClient.update} and {@linkcode MemoCloudClient.forget}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudConditionalOptions } from "@memo/mcp-server";
 *
 * // Fails with code "conflict" (409) if the note moved on from revision 7.
 * const options: MemoCloudConditionalOptions = { ifMatch: 7 };
 * assert.equal(options.ifMatch, 7);
 * ```
 */
export interface MemoCloudConditionalOptions extends MemoCloudWriteOptions {
  /** `If-Match`: the revision the note must still have. */
  ifMatch?: number;
}

/**
 * Options of {@linkcode MemoCloudClient.recall}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRecallOptions } from "@memo/mcp-server";
 *
 * const options: MemoCloudRecallOptions = { limit: 5, labels: ["infra"], explain: true };
 * assert.equal(options.engine, undefined); // auto, which is lexical in the cloud
 * ```
 */
export interface MemoCloudRecallOptions extends MemoCloudCallOptions {
  /**
   * Most hits, 1 to 100.
   * @default 10
   */
  limit?: number;
  /** Only notes carrying every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this. */
  source?: string;
  /**
   * `auto` or `lexical` (the same in the cloud).
   * @default "auto"
   */
  engine?: "auto" | "lexical";
  /** Report each term's contribution. */
  explain?: boolean;
}

/**
 * Options of {@linkcode MemoCloudClient.list}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudListOptions } from "@memo/mcp-server";
 *
 * const options: MemoCloudListOptions = { limit: 100, order: "newest" };
 * assert.equal(options.cursor, undefined); // the first page
 * ```
 */
export interface MemoCloudListOptions extends MemoCloudCallOptions {
  /** Cursor of a previous page. */
  cursor?: string;
  /**
   * Page size, 1 to 100.
   * @default 25
   */
  limit?: number;
  /** Only notes carrying every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this. */
  source?: string;
  /**
   * Order of the notes.
   * @default "oldest"
   */
  order?: "oldest" | "newest";
}

/**
 * Options of {@linkcode MemoCloudClient.changes}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChangesOptions } from "@memo/mcp-server";
 *
 * const options: MemoCloudChangesOptions = { since: "12", limit: 1000 };
 * assert.equal(options.since, "12");
 * ```
 */
export interface MemoCloudChangesOptions extends MemoCloudCallOptions {
  /**
   * Token of a previous page (`next`).
   * @default {the start of the feed}
   */
  since?: string;
  /**
   * Most changes, 1 to 1000.
   * @default 100
   */
  limit?: number;
}

/** Workspace and project ids. */
const ID_PATTERN = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/** Most drafts in one batch. */
const MEMO_CLOUD_BATCH_MAX_NOTES = 10000;
/** Largest body of one batch, in bytes. */
const MEMO_CLOUD_BATCH_MAX_BYTES = 16 * 1024 * 1024;

function configError(message: string): MemoCloudError {
  return new MemoCloudError("config", `Cannot use the Memo Cloud API: ${message}`);
}

/** The API base (`…/v1`) and the origin of a base URL. */
function apiBaseOf(baseUrl: string | undefined): { apiBase: string; origin: string } {
  if (baseUrl === undefined || baseUrl.trim() === "") {
    throw configError(
      "no base URL (set MEMO_CLOUD_BASE_URL, or cloud.baseUrl in .memo/config.json)",
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw configError("the base URL is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw configError(`the base URL must be http or https, not ${url.protocol.slice(0, 20)}`);
  }
  if (url.username || url.password) {
    throw configError("the base URL must not hold a user name or password (use the API key)");
  }
  if (url.search || url.hash) throw configError("the base URL must not hold a query or fragment");
  let path = url.pathname.replace(/\/+$/, "");
  if (!path.endsWith("/v1")) path += "/v1";
  return { apiBase: `${url.origin}${path}`, origin: url.origin };
}

function checkId(name: string, value: string): string {
  if (!ID_PATTERN.test(value)) {
    throw configError(
      `${name} must be 1 to 64 lowercase letters, digits, '_' or '-', starting with a letter or digit`,
    );
  }
  return value;
}

function checkCount(name: string, value: number | undefined, fallback: number, min: number) {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw configError(`${name} must be an integer of at least ${min}`);
  }
  return value;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Waits for `promise`, or rejects with `signal`'s reason as soon as it aborts. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function unexpected(action: string): MemoCloudError {
  return new MemoCloudError(
    "unavailable",
    `Cannot ${action}: the Memo Cloud API answered with an unexpected body`,
  );
}

function objectOf(body: unknown, action: string): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw unexpected(action);
  return body as Record<string, unknown>;
}

function noteOf(value: unknown, action: string): MemoCloudNote {
  const note = objectOf(value, action);
  if (typeof note.id !== "string" || typeof note.revision !== "number") throw unexpected(action);
  return note as unknown as MemoCloudNote;
}

function arrayOf(value: unknown, action: string): unknown[] {
  if (!Array.isArray(value)) throw unexpected(action);
  return value;
}

/**
 * The Memo Cloud API client. Build one with the `cloud` options; the
 * methods mirror the runtime (`remember`, `recall`, `get`, `list`, `update`,
 * `forget`, `stats`), plus `upsertBatch`, `changes`, `health` and `whoami`.
 * Every failure is a {@linkcode MemoCloudError}; an aborted call rejects
 * with its signal's reason.
 *
 * The constructor throws a `MemoCloudError` with code `config` for settings
 * that cannot work (no base URL, no API key while `requireApiKey`, a
 * malformed id); nothing is sent before the first call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient } from "@memo/mcp-server";
 *
 * // A stand-in for the server: in real use, leave `fetch` out.
 * const seen: string[] = [];
 * const fetch = (input: Request | URL | string, init?: RequestInit) => {
 *   const request = new Request(input, init);
 *   seen.push(`${request.method} ${new URL(request.url).pathname}`);
 *   if (request.url.endsWith("/v1/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
 *   return Promise.resolve(Response.json({ notes: 1, labels: {}, sources: {}, revision: 4 }));
 * };
 * const client = new MemoCloudClient({ baseUrl: "http://127.0.0.1:8788", apiKey: "mk_example", fetch });
 * assert.equal((await client.stats()).revision, 4);
 * await client.stats();
 * assert.equal(client.workspaceId, "team"); // learned from the key
 * assert.deepEqual(seen, [
 *   "GET /v1/whoami", // once, before the first call
 *   "GET /v1/workspaces/team/projects/default/stats",
 *   "GET /v1/workspaces/team/projects/default/stats",
 * ]);
 * ```
 */
export class MemoCloudClient {
  /** The API base the client talks to: the origin (and any path prefix) followed by `/v1`. */
  readonly baseUrl: string;
  /** The project the notes belong to. */
  readonly projectId: string;
  readonly #configuredWorkspace: string | undefined;
  #workspace: string | undefined;
  #checking: Promise<string> | undefined;
  readonly #settings: TransportSettings;

  /** Checks the settings; sends nothing. */
  constructor(options: MemoCloudClientOptions = {}) {
    const { apiBase, origin } = apiBaseOf(options.baseUrl);
    const apiKey = options.apiKey?.trim() ? options.apiKey.trim() : undefined;
    if (!apiKey && (options.requireApiKey ?? true)) {
      throw configError("no API key (set MEMO_CLOUD_API_KEY)");
    }
    this.baseUrl = apiBase;
    this.projectId = checkId("projectId", options.projectId ?? "default");
    this.#configuredWorkspace = options.workspaceId === undefined
      ? undefined
      : checkId("workspaceId", options.workspaceId);
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#settings = {
      apiBase,
      origin,
      apiKey,
      userAgent: options.userAgent ?? `memo/${VERSION}`,
      timeoutMs: checkCount("timeoutMs", options.timeoutMs, 10000, 1),
      maxRetries: checkCount("retry.maxRetries", options.retry?.maxRetries, 3, 0),
      backoffMs: checkCount("retry.backoffMs", options.retry?.backoffMs, 250, 0),
      fetch: fetchImpl,
      sleep: options.sleep ?? defaultSleep,
      random: options.random ?? Math.random,
      now: options.now ?? Date.now,
    };
  }

  /**
   * The workspace the client works in: the configured one, else the key's
   * once the first call learned it (undefined before).
   */
  get workspaceId(): string | undefined {
    return this.#workspace ?? this.#configuredWorkspace;
  }

  /**
   * `GET /v1/health` (public: no key, no workspace check).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   requireApiKey: false,
   *   fetch: () => Promise.resolve(Response.json({ status: "ok", version: "0.1.0", store: "file" })),
   * });
   * assert.equal((await client.health()).store, "file");
   * ```
   */
  async health(options: MemoCloudCallOptions = {}): Promise<MemoCloudHealth> {
    const action = "check the Memo Cloud API's health";
    const answer = await this.#send({
      method: "GET",
      path: "/health",
      auth: false,
      action,
      signal: options.signal,
    });
    return objectOf(answer, action) as unknown as MemoCloudHealth;
  }

  /**
   * `GET /v1/whoami`: the workspace of the API key. Does not check the
   * configured workspace (the other calls do).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   fetch: () => Promise.resolve(Response.json({ workspaceId: "team" })),
   * });
   * assert.deepEqual(await client.whoami(), { workspaceId: "team" });
   * ```
   */
  async whoami(options: MemoCloudCallOptions = {}): Promise<{ workspaceId: string }> {
    const action = "ask the Memo Cloud API whose key this is";
    const body = objectOf(
      await this.#send({
        method: "GET",
        path: "/whoami",
        auth: true,
        action,
        signal: options.signal,
      }),
      action,
    );
    if (typeof body.workspaceId !== "string") throw unexpected(action);
    return { workspaceId: body.workspaceId };
  }

  /**
   * `POST notes`: stores a note, deduplicated by source key, else content.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const keys: (string | null)[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input, init) => {
   *     const request = new Request(input, init);
   *     if (request.url.endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     keys.push(request.headers.get("idempotency-key"));
   *     const note = {
   *       id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *       created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
   *     };
   *     return Promise.resolve(Response.json({ note, status: "written" }, { status: 201 }));
   *   },
   * });
   * const { status } = await client.remember({ text: "Run make deploy." });
   * assert.equal(status, "written");
   * assert.equal(keys.length, 1);
   * assert.match(keys[0]!, /^[0-9a-f-]{36}$/); // a fresh Idempotency-Key per write
   * ```
   */
  async remember(
    input: { text: string; title?: string; labels?: readonly string[]; source?: string },
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudRememberResult> {
    const action = "remember the note";
    const body = objectOf(
      await this.#project({
        method: "POST",
        path: "/notes",
        body: defined({
          text: input.text,
          title: input.title,
          labels: input.labels,
          source: input.source,
        }),
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
        action,
        signal: options.signal,
      }),
      action,
    );
    return { note: noteOf(body.note, action), status: statusOf(body.status, action) };
  }

  /**
   * `POST recall`: ranked notes for a query (lexical).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const bodies: unknown[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: async (input, init) => {
   *     const request = new Request(input, init);
   *     if (request.url.endsWith("/whoami")) return Response.json({ workspaceId: "team" });
   *     bodies.push(await request.json());
   *     return Response.json({ hits: [] });
   *   },
   * });
   * assert.deepEqual(await client.recall("deploy", { limit: 3, labels: ["infra"] }), []);
   * assert.deepEqual(bodies, [{ query: "deploy", limit: 3, labels: ["infra"] }]);
   * ```
   */
  async recall(query: string, options: MemoCloudRecallOptions = {}): Promise<MemoCloudRecallHit[]> {
    const action = "recall";
    const body = objectOf(
      await this.#project({
        method: "POST",
        path: "/recall",
        body: defined({
          query,
          limit: options.limit,
          labels: options.labels,
          source: options.source,
          engine: options.engine,
          explain: options.explain,
        }),
        action,
        signal: options.signal,
      }),
      action,
    );
    return arrayOf(body.hits, action).map((hit) => {
      const h = objectOf(hit, action);
      return { ...h, note: noteOf(h.note, action) } as MemoCloudRecallHit;
    });
  }

  /**
   * `GET notes/{id}`: one note; code `not_found` when unknown.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami")
   *         ? Response.json({ workspaceId: "team" })
   *         : Response.json({ error: { code: "not_found", message: "Cannot find note n9" } }, {
   *           status: 404,
   *         }),
   *     ),
   * });
   * await assert.rejects(client.get("n9"), { code: "not_found", message: "Cannot find note n9" });
   * ```
   */
  async get(id: string, options: MemoCloudCallOptions = {}): Promise<MemoCloudNote> {
    const action = `get note ${shortId(id)}`;
    const body = objectOf(
      await this.#project({
        method: "GET",
        path: `/notes/${encodeURIComponent(id)}`,
        action,
        signal: options.signal,
      }),
      action,
    );
    return noteOf(body.note, action);
  }

  /**
   * `GET notes`: a page of notes, with an opaque cursor.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const urls: string[] = [];
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   projectId: "handbook",
   *   fetch: (input) => {
   *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     urls.push(String(input));
   *     return Promise.resolve(Response.json({ notes: [], total: 0 }));
   *   },
   * });
   * assert.deepEqual(await client.list({ limit: 10, labels: ["a", "b"] }), { notes: [], total: 0 });
   * assert.deepEqual(urls, [
   *   "http://127.0.0.1:8788/v1/workspaces/team/projects/handbook/notes?limit=10&labels=a%2Cb",
   * ]);
   * ```
   */
  async list(options: MemoCloudListOptions = {}): Promise<MemoCloudListResult> {
    const action = "list the notes";
    const body = objectOf(
      await this.#project({
        method: "GET",
        path: "/notes",
        query: {
          cursor: options.cursor,
          limit: options.limit,
          labels: options.labels?.length ? options.labels.join(",") : undefined,
          source: options.source,
          order: options.order,
        },
        action,
        signal: options.signal,
      }),
      action,
    );
    const result: MemoCloudListResult = {
      notes: arrayOf(body.notes, action).map((n) => noteOf(n, action)),
      total: typeof body.total === "number" ? body.total : 0,
    };
    if (typeof body.nextCursor === "string") result.nextCursor = body.nextCursor;
    return result;
  }

  /**
   * `PATCH notes/{id}`: changes a note; with `ifMatch`, only if it is still at
   * that revision (else code `conflict`, with the current note in
   * `details.note`). `patch.updated` (an ISO 8601 time with a time zone) is
   * the time the server records instead of now, for example a replica's edit
   * time; it is not a change by itself.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const current = {
   *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 8,
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input, init) => {
   *     if (String(input).endsWith("/whoami")) return Promise.resolve(Response.json({ workspaceId: "team" }));
   *     assert.equal(new Headers(init?.headers).get("if-match"), "7");
   *     const error = { code: "conflict", message: "Cannot update note n1: it changed", details: { note: current } };
   *     return Promise.resolve(Response.json({ error }, { status: 409 }));
   *   },
   * });
   * const e = await client.update("n1", { title: "Deploying" }, { ifMatch: 7 }).catch((e) => e);
   * assert.equal(e.code, "conflict");
   * assert.equal(e.details.note.revision, 8);
   * ```
   */
  async update(
    id: string,
    patch: { text?: string; title?: string; labels?: readonly string[]; updated?: string },
    options: MemoCloudConditionalOptions = {},
  ): Promise<MemoCloudNote> {
    const action = `update note ${shortId(id)}`;
    const body = objectOf(
      await this.#project({
        method: "PATCH",
        path: `/notes/${encodeURIComponent(id)}`,
        body: defined({
          text: patch.text,
          title: patch.title,
          labels: patch.labels,
          updated: patch.updated,
        }),
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
        ifMatch: options.ifMatch,
        action,
        signal: options.signal,
      }),
      action,
    );
    return noteOf(body.note, action);
  }

  /**
   * `DELETE notes/{id}`: deletes a note and returns it as it was; with
   * `ifMatch`, only if it is still at that revision.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const note = {
   *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
   *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
   * };
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami") ? Response.json({ workspaceId: "team" }) : Response.json({ note }),
   *     ),
   * });
   * assert.equal((await client.forget("n1")).id, "n1");
   * ```
   */
  async forget(id: string, options: MemoCloudConditionalOptions = {}): Promise<MemoCloudNote> {
    const action = `forget note ${shortId(id)}`;
    const body = objectOf(
      await this.#project({
        method: "DELETE",
        path: `/notes/${encodeURIComponent(id)}`,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
        ifMatch: options.ifMatch,
        action,
        signal: options.signal,
      }),
      action,
    );
    return noteOf(body.note, action);
  }

  /**
   * `GET stats`: counts, and the feed's latest sequence number.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami")
   *         ? Response.json({ workspaceId: "team" })
   *         : Response.json({ notes: 0, labels: {}, sources: {}, revision: 0 }),
   *     ),
   * });
   * assert.deepEqual(await client.stats(), { notes: 0, labels: {}, sources: {}, revision: 0 });
   * ```
   */
  async stats(options: MemoCloudCallOptions = {}): Promise<MemoCloudStats> {
    const action = "read the stats";
    const body = objectOf(
      await this.#project({ method: "GET", path: "/stats", action, signal: options.signal }),
      action,
    );
    if (typeof body.notes !== "number" || typeof body.revision !== "number") {
      throw unexpected(action);
    }
    return body as unknown as MemoCloudStats;
  }

  /**
   * `POST notes:batch`: upserts up to 10000 drafts in one transaction, all or
   * nothing. More drafts, or a body over 16 MiB, fail with code
   * `payload_too_large` before anything is sent.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * let sent = 0;
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: () => (sent++, Promise.resolve(Response.json({ workspaceId: "team" }))),
   * });
   * const drafts = Array.from({ length: 10001 }, (_, i) => ({ text: `note ${i}` }));
   * await assert.rejects(client.upsertBatch(drafts), {
   *   code: "payload_too_large",
   *   message: "Cannot upsert 10001 notes in one batch: the limit is 10000 notes; nothing was written",
   * });
   * assert.equal(sent, 0);
   * ```
   */
  async upsertBatch(
    drafts: readonly MemoCloudDraft[],
    options: MemoCloudWriteOptions = {},
  ): Promise<MemoCloudBatchResult> {
    const action = `upsert ${drafts.length} note${drafts.length === 1 ? "" : "s"} in one batch`;
    if (drafts.length > MEMO_CLOUD_BATCH_MAX_NOTES) {
      throw new MemoCloudError(
        "payload_too_large",
        `Cannot ${action}: the limit is ${MEMO_CLOUD_BATCH_MAX_NOTES} notes; nothing was written`,
      );
    }
    const bodyText = JSON.stringify({
      notes: drafts.map((d) =>
        defined({
          id: d.id,
          text: d.text,
          title: d.title,
          labels: d.labels,
          source: d.source,
          created: d.created,
          updated: d.updated,
        })
      ),
    });
    const bytes = new TextEncoder().encode(bodyText).byteLength;
    if (bytes > MEMO_CLOUD_BATCH_MAX_BYTES) {
      throw new MemoCloudError(
        "payload_too_large",
        `Cannot ${action}: the body is ${bytes} bytes, over the limit of ` +
          `${MEMO_CLOUD_BATCH_MAX_BYTES} (16 MiB); nothing was written`,
      );
    }
    const body = objectOf(
      await this.#project({
        method: "POST",
        path: "/notes:batch",
        bodyText,
        idempotencyKey: options.idempotencyKey ?? crypto.randomUUID(),
        action,
        signal: options.signal,
      }),
      action,
    );
    const results = arrayOf(body.results, action).map((r) => {
      const entry = objectOf(r, action);
      return { status: statusOf(entry.status, action), note: noteOf(entry.note, action) };
    });
    if (results.length !== drafts.length) throw unexpected(action);
    const count = (s: string) => results.filter((r) => r.status === s).length;
    return {
      results,
      written: count("written"),
      updated: count("updated"),
      unchanged: count("unchanged"),
    };
  }

  /**
   * `GET changes`: the change feed from a token (`since`; the start when
   * missing), in order, tombstones included.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoCloudClient } from "@memo/mcp-server";
   *
   * const client = new MemoCloudClient({
   *   baseUrl: "http://127.0.0.1:8788",
   *   apiKey: "mk_example",
   *   workspaceId: "team",
   *   fetch: (input) =>
   *     Promise.resolve(
   *       String(input).endsWith("/whoami")
   *         ? Response.json({ workspaceId: "team" })
   *         : Response.json({
   *           changes: [{ seq: 5, op: "delete", id: "n1", revision: 5 }],
   *           next: "5",
   *           hasMore: false,
   *         }),
   *     ),
   * });
   * const page = await client.changes({ since: "4" });
   * assert.equal(page.changes[0].op, "delete");
   * assert.equal(page.next, "5");
   * ```
   */
  async changes(options: MemoCloudChangesOptions = {}): Promise<MemoCloudChangesPage> {
    const action = "read the change feed";
    const body = objectOf(
      await this.#project({
        method: "GET",
        path: "/changes",
        query: { since: options.since, limit: options.limit },
        action,
        signal: options.signal,
      }),
      action,
    );
    if (typeof body.next !== "string") throw unexpected(action);
    const changes = arrayOf(body.changes, action).map((c) => {
      const change = objectOf(c, action);
      if (typeof change.seq !== "number" || typeof change.id !== "string") throw unexpected(action);
      if (change.op === "upsert") return { ...change, note: noteOf(change.note, action) };
      if (change.op !== "delete") throw unexpected(action);
      return change;
    }) as MemoCloudChange[];
    return { changes, next: body.next, hasMore: body.hasMore === true };
  }

  /** A request under this client's workspace and project, after the workspace check. */
  async #project(request: Omit<CloudRequest, "auth">): Promise<unknown> {
    request.signal?.throwIfAborted();
    const workspace = await this.#resolveWorkspace(request.signal);
    return await this.#send({
      ...request,
      auth: true,
      path: `/workspaces/${workspace}/projects/${this.projectId}${request.path}`,
    });
  }

  async #send(request: CloudRequest): Promise<unknown> {
    return (await sendCloudRequest(this.#settings, request)).body;
  }

  /**
   * The workspace, checked once with `GET /v1/whoami`. One check serves
   * concurrent calls; a failed one is not kept, so the next call checks again.
   */
  #resolveWorkspace(signal: AbortSignal | undefined): Promise<string> {
    if (this.#workspace !== undefined) return Promise.resolve(this.#workspace);
    if (!this.#checking) {
      const checking = this.whoami().then(({ workspaceId }) => {
        const configured = this.#configuredWorkspace;
        if (configured !== undefined && configured !== workspaceId) {
          throw new MemoCloudError(
            "config",
            `Cannot use the Memo Cloud API: the API key belongs to workspace ` +
              `${JSON.stringify(workspaceId.slice(0, 64))}, not ${JSON.stringify(configured)} ` +
              "(fix MEMO_CLOUD_WORKSPACE_ID or cloud.workspaceId, or leave it unset)",
            { details: { workspaceId: configured, keyWorkspaceId: workspaceId.slice(0, 64) } },
          );
        }
        if (!ID_PATTERN.test(workspaceId)) {
          throw unexpected("ask the Memo Cloud API whose key this is");
        }
        this.#workspace = workspaceId;
        return workspaceId;
      });
      this.#checking = checking;
      checking.then(
        () => (this.#checking = undefined),
        () => (this.#checking = undefined),
      );
    }
    return raceSignal(this.#checking, signal);
  }
}

function statusOf(value: unknown, action: string): "written" | "updated" | "unchanged" {
  if (value === "written" || value === "updated" || value === "unchanged") return value;
  throw unexpected(action);
}

/** An id as it may appear in a message: short, printable. */
function shortId(id: string): string {
  const clean = String(id).replace(/[^\x21-\x7e]/g, "?");
  return clean.length > 64 ? `${clean.slice(0, 63)}…` : clean;
}

/** `value` without its undefined fields (so that they are not sent). */
function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
