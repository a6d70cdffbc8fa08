/**
 * {@linkcode MemoMcpRuntime}: everything the protocol server asks of the data
 * behind it. The local, hybrid and cloud runtimes implement it; `server/`
 * reaches notes only through it.
 *
 * @module
 */

import type {
  ConnectorProgress,
  ConnectorRunError,
  ConnectorRunSummary,
  RunConnectorsResult,
} from "@memo/connectors";
import type {
  CommitBatch,
  CommitResult,
  ListResult,
  MemoryStore,
  MemoStats,
  Note,
  NoteDraft,
  NotePage,
  NotePatch,
  RecallEngine,
  RecallHit,
  ScoreContribution,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
} from "@memo/memory";

// The memory types that appear in this package's API (`store`, results).
export type {
  CommitBatch,
  CommitResult,
  ListResult,
  MemoryStore,
  MemoStats,
  Note,
  NoteDraft,
  NotePage,
  NotePatch,
  RecallEngine,
  RecallHit,
  ScoreContribution,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
};

/**
 * The part of the memory client (`Memo` of `@memo/memory`) the local runtime
 * uses; `openMemo()` returns one.
 *
 * @example
 * ```ts
 * import { openMemo } from "@memo/memory";
 * import type { MemoLike } from "@memo/mcp-server";
 * const memo: MemoLike = await openMemo({ rootDir: await Deno.makeTempDir() });
 * ```
 */
export interface MemoLike {
  /** Stores drafts in one all-or-nothing commit, deduplicating. */
  rememberMany(
    drafts: readonly NoteDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CommitResult>;
  /** Ranked hits for a query. */
  recall(
    query: string,
    options?: {
      limit?: number;
      engine?: RecallEngine;
      labels?: readonly string[];
      source?: string;
      explain?: boolean;
    },
  ): Promise<RecallHit[]>;
  /** One note; throws `NoteNotFoundError` for an unknown id. */
  get(id: string): Promise<Note>;
  /** A page of notes. */
  list(
    options?: { cursor?: string; limit?: number; labels?: readonly string[]; source?: string },
  ): Promise<ListResult>;
  /** Changes a note. */
  update(id: string, patch: RuntimeNotePatch): Promise<Note>;
  /** Deletes a note and returns it. */
  forget(id: string): Promise<Note>;
  /** Counts. */
  stats(): Promise<MemoStats>;
  /** Releases the store. */
  close(): Promise<void>;
}

/** Per-call options every runtime method takes. */
export interface RuntimeCallOptions {
  /** Aborted when the call times out or the client goes away. */
  signal?: AbortSignal;
}

/** Input of {@linkcode MemoMcpRuntime.remember}. */
export interface RuntimeRememberInput {
  /** The note's markdown text. */
  text: string;
  /** Title; derived from the text when missing. */
  title?: string;
  /** Labels. */
  labels?: string[];
  /** Source key (notes with the same key are the same note). */
  source?: string;
}

/** What {@linkcode MemoMcpRuntime.remember} did. */
export interface RuntimeRememberResult {
  /** The stored note. */
  note: Note;
  /** `written` (new), `updated` (same source, new content) or `unchanged`. */
  status: "written" | "updated" | "unchanged";
}

/** Options of {@linkcode MemoMcpRuntime.recall}. */
export interface RuntimeRecallOptions extends RuntimeCallOptions {
  /** Most hits. */
  limit: number;
  /** Engine; the runtime's default when missing. */
  engine?: RecallEngine;
  /** Only notes that carry every one of these labels. */
  labels?: string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /** Report each term's contribution. */
  explain?: boolean;
}

/** Options of {@linkcode MemoMcpRuntime.list}. */
export interface RuntimeListOptions extends RuntimeCallOptions {
  /** Cursor from a previous page. A bad one throws `MemoRuntimeError` `INVALID_INPUT`. */
  cursor?: string;
  /** Page size. */
  limit: number;
  /** Only notes that carry every one of these labels. */
  labels?: string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
}

/** A change to a note. */
export interface RuntimeNotePatch {
  /** New text. */
  text?: string;
  /** New title. */
  title?: string;
  /** New labels (replace the old ones). */
  labels?: string[];
}

/** One connector's counts in a sync (the connectors' `ConnectorRunSummary`). */
export type RuntimeConnectorSummary = ConnectorRunSummary;

/** One failed connector of a sync (the connectors' `ConnectorRunError`). */
export type RuntimeConnectorFailure = ConnectorRunError;

/** What {@linkcode MemoMcpRuntime.syncConnectors} reports (the connectors' `RunConnectorsResult`). */
export type RuntimeSyncResult = RunConnectorsResult;

/** Options of {@linkcode MemoMcpRuntime.syncConnectors}. */
export interface RuntimeSyncOptions extends RuntimeCallOptions {
  /** Ids of the connectors to run; all configured ones when missing. */
  only?: string[];
  /**
   * Ignore the incremental-sync state and read everything again
   * (`memo sync --full`).
   * @default false
   */
  full?: boolean;
  /**
   * Called as each connector fetches pages and commits.
   * @default undefined
   */
  onProgress?: (progress: RuntimeSyncProgress) => void;
}

/** Progress of one connector during a sync (the connectors' `ConnectorProgress`). */
export type RuntimeSyncProgress = ConnectorProgress;

/** Result of {@linkcode MemoMcpRuntime.completeIds}. */
export interface RuntimeCompletion {
  /** Matching values, at most the limit asked for. */
  values: string[];
  /** How many values match in all. */
  total: number;
}

/**
 * The data side of the MCP server and the CLI. Implementations throw a
 * `MemoRuntimeError` with a stable `code` for what they refuse
 * (`INVALID_INPUT`, `NOTE_NOT_FOUND` with `details.id`, `CONNECTOR_NOT_FOUND`,
 * `CONFIG`, `UNAVAILABLE`), and anything else for an I/O failure. A
 * runtime of the caller's own may also throw `MemoMcpError`s, which the
 * server passes on unchanged.
 *
 * @example
 * ```ts
 * import { createMemoMcpRuntimeFromConfig, type MemoMcpRuntime } from "@memo/mcp-server";
 * const runtime: MemoMcpRuntime = createMemoMcpRuntimeFromConfig({ rootDir: await Deno.makeTempDir() });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * console.log((await runtime.get(note.id)).title);
 * await runtime.close();
 * ```
 */
export interface MemoMcpRuntime {
  /** Which runtime this is. */
  readonly kind: "local" | "hybrid" | "cloud";
  /** Stores a note (deduplicated by source key, else content). */
  remember(
    input: RuntimeRememberInput,
    options?: RuntimeCallOptions,
  ): Promise<RuntimeRememberResult>;
  /** Ranked notes for a query. */
  recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]>;
  /** One note. */
  get(id: string, options?: RuntimeCallOptions): Promise<Note>;
  /** A page of notes in store order. */
  list(options: RuntimeListOptions): Promise<ListResult>;
  /** Changes a note. */
  update(id: string, patch: RuntimeNotePatch, options?: RuntimeCallOptions): Promise<Note>;
  /** Deletes a note and returns it. */
  forget(id: string, options?: RuntimeCallOptions): Promise<Note>;
  /** Counts of notes, labels and sources. */
  stats(options?: RuntimeCallOptions): Promise<MemoStats>;
  /** Runs the configured connectors. */
  syncConnectors(options?: RuntimeSyncOptions): Promise<RuntimeSyncResult>;
  /** Note ids that start with `prefix`, for completion. */
  completeIds(
    prefix: string,
    limit: number,
    options?: RuntimeCallOptions,
  ): Promise<RuntimeCompletion>;
  /** Releases the store and any timers. */
  close(): Promise<void>;
}
