/**
 * The connector contract: what a connector returns ({@linkcode ConnectorRecord}), what it is
 * ({@linkcode Connector}) and what a pass gives it ({@linkcode PullContext}).
 *
 * @module
 */

/**
 * The `fetch` signature connectors call; tests inject their own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FetchLike, RepoHostConnector, RepoHostError } from "@memo/connectors";
 * const unavailable: FetchLike = () => Promise.resolve(new Response("", { status: 503 }));
 * const github = new RepoHostConnector({
 *   repositories: ["octo-org/hello-world"],
 *   token: "ghp_example",
 *   fetch: unavailable,
 * });
 * await assert.rejects(github.pull({}), RepoHostError);
 * ```
 */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/**
 * A clock for request timeouts. Tests inject a manual clock so that a timeout fires without
 * waiting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Clock } from "@memo/connectors";
 * const realClock: Clock = {
 *   now: () => Date.now(),
 *   setTimeout: (fn, ms) => setTimeout(fn, ms),
 *   clearTimeout: (handle) => clearTimeout(handle as number),
 * };
 * let fired = false;
 * realClock.clearTimeout(realClock.setTimeout(() => fired = true, 10));
 * await new Promise((resolve) => setTimeout(resolve, 20));
 * assert.equal(fired, false, "a cleared timer never fires");
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a callback scheduled with `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/**
 * One item pulled from an upstream service, ready to become a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorRecord } from "@memo/connectors";
 * const record: ConnectorRecord = {
 *   source: "github:octo-org/hello-world/discussions/42",
 *   title: "How do I deploy?",
 *   text: "Run make deploy.",
 *   url: "https://github.com/octo-org/hello-world/discussions/42",
 *   createdAt: "2024-05-01T10:00:00Z",
 *   updatedAt: "2024-05-02T09:30:00Z",
 *   metadata: { labels: ["Q&A"] },
 * };
 * assert.deepEqual(record.metadata.labels, ["Q&A"]);
 * ```
 */
export interface ConnectorRecord {
  /**
   * Stable source key, the note's identity: `github:owner/repo/discussions/42`, `notion:page/<id>`.
   */
  source: string;
  /** One-line title. */
  title: string;
  /** Markdown text of the item. Never empty. */
  text: string;
  /** Address of the item upstream. */
  url: string;
  /** ISO 8601 time the item was created upstream. */
  createdAt: string;
  /** ISO 8601 time the item was last changed upstream. */
  updatedAt: string;
  /** Facts about the item; `labels` become the note's labels. */
  metadata: ConnectorRecordMetadata;
}

/**
 * Metadata of a {@linkcode ConnectorRecord}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorRecordMetadata } from "@memo/connectors";
 * const metadata: ConnectorRecordMetadata = { labels: ["Q&A"], author: "monalisa", comments: 3 };
 * assert.deepEqual(metadata.labels, ["Q&A"]);
 * assert.equal(metadata.author, "monalisa");
 * ```
 */
export interface ConnectorRecordMetadata {
  /** Labels of the note (for a discussion: exactly its category name). */
  labels: string[];
  /** Other facts (author, category, comment count …). */
  [key: string]: unknown;
}

/**
 * Progress of a pass, reported through {@linkcode PullContext.onProgress} and
 * `RunConnectorsOptions.onProgress`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ConnectorProgress } from "@memo/connectors";
 * const show = (p: ConnectorProgress) => `${p.connector}: ${p.phase}, ${p.pages} pages`;
 * const progress: ConnectorProgress = {
 *   connector: "github",
 *   type: "discussions",
 *   phase: "fetching",
 *   pages: 2,
 *   records: 100,
 * };
 * assert.equal(show(progress), "github: fetching, 2 pages");
 * ```
 */
export interface ConnectorProgress {
  /** Connector id. */
  connector: string;
  /** Connector type. */
  type: string;
  /** `fetching` after each page, then `committing`, then `committed` or `failed`. */
  phase: "fetching" | "committing" | "committed" | "failed";
  /** Pages (requests) answered so far in this pass. */
  pages: number;
  /** Records collected so far in this pass. */
  records: number;
  /** Notes written (new) by the commit; set from `committed` on. */
  written?: number;
  /** Notes updated in place by the commit; set from `committed` on. */
  updated?: number;
  /** Records already stored unchanged; set from `committed` on. */
  unchanged?: number;
  /** Bytes the commit wrote to the notes file (0 when nothing changed); set on `committed`. */
  bytesWritten?: number;
}

/**
 * What a pass hands to {@linkcode Connector.pull}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Connector, PullContext } from "@memo/connectors";
 * const seen: (string | undefined)[] = [];
 * const probe: Connector = {
 *   id: "probe",
 *   type: "static",
 *   pull: (context: PullContext) => {
 *     seen.push(context.since);
 *     return Promise.resolve([]);
 *   },
 * };
 * await probe.pull({ since: "2024-05-01T00:00:00Z" });
 * assert.deepEqual(seen, ["2024-05-01T00:00:00Z"]);
 * ```
 */
export interface PullContext {
  /**
   * `fetch` to use when the connector was not given its own.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /** Aborts the pass. */
  signal?: AbortSignal;
  /** Called after each page and at the end of the pass. */
  onProgress?: (progress: ConnectorProgress) => void;
  /**
   * Incremental-sync state: the newest `updatedAt` committed by an earlier pass. Items not changed
   * since then may be left out.
   * @default undefined (a full pass)
   */
  since?: string;
  /**
   * Clock for request timeouts.
   * @default the system clock
   */
  clock?: Clock;
}

/**
 * A source of notes. `pull` reads every page and returns all records, or throws at the first failed
 * page (nothing of a failed pass is written).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Connector, ConnectorRecord } from "@memo/connectors";
 * const fixed: Connector = {
 *   id: "fixed",
 *   type: "static",
 *   pull: (): Promise<ConnectorRecord[]> => Promise.resolve([]),
 * };
 * assert.deepEqual(await fixed.pull({}), []);
 * ```
 */
export interface Connector {
  /** Unique id within a project's configuration. */
  readonly id: string;
  /** Connector type (`discussions`, `pages`, …). */
  readonly type: string;
  /**
   * What the connector reads (repositories, database, query), as one string. The runner keeps
   * incremental state only while it stays the same.
   */
  readonly scope?: string;
  /** Reads all records of one pass. */
  pull(context: PullContext): Promise<ConnectorRecord[]>;
}
