/**
 * The options of {@linkcode MemoCloudClient}: where the Cloud API is and how to call it (the
 * `cloud` options, the retry policy, the I/O a test may replace), and the options of each call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudOptions } from "./client_options.ts";
 * const cloud: MemoCloudOptions = { baseUrl: "http://127.0.0.1:8788", projectId: "handbook" };
 * assert.equal(cloud.projectId, "handbook");
 * ```
 *
 * @module
 */

/**
 * Retry policy of the Cloud API client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudRetryOptions } from "@memo/mcp-server";
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
   * The server's origin (`http://127.0.0.1:8788`), or the origin followed by `/v1`; a trailing
   * slash is fine.
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
 * Options of the {@linkcode MemoCloudClient} constructor: the `cloud` options, and the I/O a test
 * may replace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudClientOptions } from "@memo/mcp-server";
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
 * Per-call options of every {@linkcode MemoCloudClient} method.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoCloudClient, type MemoCloudCallOptions } from "@memo/mcp-server";
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
 * const options: MemoCloudWriteOptions = { idempotencyKey: crypto.randomUUID() };
 * assert.equal(options.idempotencyKey!.length, 36);
 * ```
 */
export interface MemoCloudWriteOptions extends MemoCloudCallOptions {
  /**
   * `Idempotency-Key` of the write (1 to 255 visible ASCII characters), sent on every attempt.
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
 * The history filters of {@linkcode MemoCloudClient.recall} and {@linkcode MemoCloudClient.list}:
 * superseded notes are left out unless `includeSuperseded`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudHistoryFilter } from "@memo/mcp-server";
 * const filter: MemoCloudHistoryFilter = { asOf: "2026-03-01", includeSuperseded: true };
 * assert.equal(filter.since, undefined);
 * ```
 */
export interface MemoCloudHistoryFilter {
  /**
   * Also answer with superseded notes (each with `supersededBy`).
   * @default false
   */
  includeSuperseded?: boolean;
  /** What was recorded by then and held then (ISO date or date-time). */
  asOf?: string;
  /** Only notes created at or after this time. */
  since?: string;
  /** Only notes created before this time. */
  until?: string;
}

/**
 * Options of {@linkcode MemoCloudClient.recall}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRecallOptions } from "@memo/mcp-server";
 * const options: MemoCloudRecallOptions = { limit: 5, labels: ["infra"], explain: true };
 * assert.equal(options.engine, undefined); // auto, which is lexical in the cloud
 * ```
 */
export interface MemoCloudRecallOptions extends MemoCloudCallOptions, MemoCloudHistoryFilter {
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
 * const options: MemoCloudListOptions = { limit: 100, order: "newest" };
 * assert.equal(options.cursor, undefined); // the first page
 * ```
 */
export interface MemoCloudListOptions extends MemoCloudCallOptions, MemoCloudHistoryFilter {
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
