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
  AutoEngine,
  CommitBatch,
  CommitResult,
  Embedder,
  EmbedderLoader,
  EmbedderLoadOptions,
  EmbeddingStatus,
  ListResult,
  MemoryStore,
  MemoStats,
  Note,
  NoteDraft,
  NotePage,
  NotePatch,
  RecallEngine,
  RecallHit,
  RecallParts,
  RecallResult,
  ReplicaApplyResult,
  ReplicaChanges,
  ReplicaStatus,
  ScoreContribution,
  SecretRedaction,
  SecretScanResult,
  SecretsPolicy,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
} from "@memo/memory";
import type {
  CorrectResult,
  RuntimeCorrectInput,
  RuntimeHistoryFilter,
  RuntimeSupersedeInput,
  SimilarNote,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "./truth_types.ts";

export * from "./truth_types.ts";

// The memory types that appear in this package's API (`store`, results).
export type {
  AutoEngine,
  CommitBatch,
  CommitResult,
  Embedder,
  EmbedderLoader,
  EmbedderLoadOptions,
  EmbeddingStatus,
  ListResult,
  MemoryStore,
  MemoStats,
  Note,
  NoteDraft,
  NotePage,
  NotePatch,
  RecallEngine,
  RecallHit,
  RecallParts,
  RecallResult,
  ReplicaApplyResult,
  ReplicaChanges,
  ReplicaStatus,
  ScoreContribution,
  SecretRedaction,
  SecretScanResult,
  SecretsPolicy,
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
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo, type MemoLike } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const memo: MemoLike = await openMemo({ rootDir });
 * const runtime = createMemoMcpRuntimeFromMemo(memo, { rootDir });
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.equal((await memo.stats()).notes, 1); // the runtime wrote through the client
 * await runtime.close();
 * await memo.close(); // the runtime does not close a client it was given
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoLike {
  /**
   * Stores one note, deduplicating, and says which stored notes resemble it
   * (`Memo.remember`). Optional: without it, the runtime stores a batch of one
   * and reports no similar notes.
   */
  remember?(draft: NoteDraft): Promise<RuntimeRememberResult>;
  /** Stores drafts in one all-or-nothing commit, deduplicating. */
  rememberMany(
    drafts: readonly NoteDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CommitResult & { redacted?: SecretRedaction[] }>;
  /** Ranked hits for a query. */
  recall(
    query: string,
    options?: {
      limit?: number;
      engine?: RecallEngine;
      labels?: readonly string[];
      source?: string;
      explain?: boolean;
    } & RuntimeHistoryFilter,
  ): Promise<RecallHit[]>;
  /**
   * Ranked hits with the engine that ran and the embedding coverage
   * (`Memo.recallDetailed`). Optional: without it, a runtime over this
   * client reports the hits' engine and no coverage.
   */
  recallDetailed?(
    query: string,
    options?: {
      limit?: number;
      engine?: RecallEngine;
      labels?: readonly string[];
      source?: string;
      explain?: boolean;
    } & RuntimeHistoryFilter,
  ): Promise<RecallResult>;
  /**
   * Embeds every note not embedded yet (`Memo.embed`). Optional: without
   * it, the runtime's `embed` refuses.
   */
  embed?(
    options?: { onProgress?: (done: number, total: number) => void; signal?: AbortSignal },
  ): Promise<{ embedded: number; total: number; computed: number }>;
  /** The embedder's state (`Memo.embeddingStatus`). Optional. */
  embeddingStatus?(): EmbeddingStatus;
  /** The engine of a recall that names none (`Memo.engine`). Optional. */
  readonly engine?: RecallEngine;
  /** One note; throws `NoteNotFoundError` for an unknown id. */
  get(id: string): Promise<Note>;
  /** A page of notes. */
  list(
    options?: {
      cursor?: string;
      limit?: number;
      labels?: readonly string[];
      source?: string;
      order?: "oldest" | "newest";
    } & RuntimeHistoryFilter,
  ): Promise<ListResult>;
  /** Changes a note; `onRedacted` hears what the secrets guard replaced. */
  update(
    id: string,
    patch: RuntimeNotePatch,
    options?: { onRedacted?: (redacted: SecretRedaction[]) => void },
  ): Promise<Note>;
  /** Deletes a note and returns it. */
  forget(id: string): Promise<Note>;
  /**
   * Writes a new note that supersedes `input.id`, and ends the old note's validity, in one
   * commit (`Memo.correct`). Optional: without it, the runtime's `correct` refuses.
   */
  correct?(input: RuntimeCorrectInput): Promise<CorrectResult>;
  /** Marks notes as superseded by another (`Memo.supersede`). Optional. */
  supersede?(input: RuntimeSupersedeInput): Promise<SupersedeResult>;
  /** Proposals to tidy the notes up (`Memo.tidy`). Optional. */
  tidy?(): Promise<TidyPlan>;
  /** Applies a tidy plan in one commit (`Memo.applyTidy`). Optional. */
  applyTidy?(plan: TidyPlan): Promise<TidyApplyResult>;
  /**
   * Writes notes verbatim and removes ids in one atomic step
   * (`Memo.applyReplica`). Optional: the local runtime's `forgetMany` uses
   * it, and removes one note at a time without it.
   */
  applyReplica?(changes: ReplicaChanges): Promise<ReplicaApplyResult>;
  /** Counts. */
  stats(): Promise<MemoStats>;
  /**
   * Scans the stored notes for secrets, and with `redact` rewrites them in one atomic step
   * (`Memo.scanSecrets`). Optional: without it, the runtime scans through `list` and `update`.
   */
  scanSecrets?(options?: { redact?: boolean }): Promise<SecretScanResult>;
  /**
   * Calls `onChange` with the ids of the notes created, updated and removed, after this
   * client's writes and other processes' writes (`Memo.watch`). Returns the function that
   * stops the calls. Optional: without it, a runtime over this client reports only the
   * writes made through the runtime.
   */
  watch?(
    onChange: (change: { created: string[]; updated: string[]; removed: string[] }) => void,
  ): () => void;
  /** Releases the store. */
  close(): Promise<void>;
}

/** Per-call options every runtime method takes. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCallOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const options: RuntimeCallOptions = { signal: AbortSignal.abort(new Error("client went away")) };
 * await assert.rejects(runtime.stats(options), /client went away/);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCallOptions {
  /** Aborted when the call times out or the client goes away. */
  signal?: AbortSignal;
}

/**
 * Options of {@linkcode MemoMcpRuntime.scanSecrets}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeScanOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, secrets: "allow" });
 * await runtime.remember({ text: "runner token glpat-Zr8vQ2mW4kT9xN1pLc7H" });
 * const options: RuntimeScanOptions = { redact: true };
 * assert.equal((await runtime.scanSecrets!(options)).redacted.length, 1);
 * assert.equal((await runtime.scanSecrets!()).findings.length, 0);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeScanOptions extends RuntimeCallOptions {
  /**
   * Rewrite every finding as `[redacted:<rule-id>]`.
   * @default false
   */
  redact?: boolean;
}

/**
 * Options of {@linkcode MemoMcpRuntime.update}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeUpdateOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "CI runner" });
 * const heard: string[] = [];
 * const options: RuntimeUpdateOptions = { onRedacted: (r) => heard.push(...r.map((x) => x.rule)) };
 * await runtime.update(note.id, { text: "CI runner uses glpat-Zr8vQ2mW4kT9xN1pLc7H" }, options);
 * assert.deepEqual(heard, ["gitlab-token"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeUpdateOptions extends RuntimeCallOptions {
  /**
   * Called after the write with what the secrets guard replaced (rule ids and fields, never
   * values); not called when it replaced nothing.
   */
  onRedacted?: (redacted: SecretRedaction[]) => void;
}

/** Input of {@linkcode MemoMcpRuntime.remember}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRememberInput } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const input: RuntimeRememberInput = {
 *   text: "Run `make deploy` from the release branch.",
 *   title: "How to deploy",
 *   labels: ["infra"],
 *   source: "wiki:deploy",
 * };
 * const { note } = await runtime.remember(input);
 * assert.equal(note.title, "How to deploy");
 * assert.deepEqual(note.labels, ["infra"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberInput {
  /** The note's markdown text. */
  text: string;
  /** Title; derived from the text when missing. */
  title?: string;
  /** Labels. */
  labels?: string[];
  /** Source key (notes with the same key are the same note). */
  source?: string;
  /**
   * Ids of the notes this note replaces. An unknown id, the note itself or a cycle throws
   * `MemoRuntimeError` `INVALID_INPUT`, and nothing is written.
   */
  supersedes?: string[];
  /** When the fact starts to hold (ISO date, meaning 00:00 UTC, or date-time). */
  validFrom?: string;
  /** When it stops holding (exclusive). */
  validUntil?: string;
}

/** What {@linkcode MemoMcpRuntime.remember} did. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRememberResult } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const first: RuntimeRememberResult = await runtime.remember({ text: "v1", source: "wiki:x" });
 * const again = await runtime.remember({ text: "v1", source: "wiki:x" });
 * const changed = await runtime.remember({ text: "v2", source: "wiki:x" });
 * assert.deepEqual(
 *   [first.status, again.status, changed.status],
 *   ["written", "unchanged", "updated"],
 * );
 * assert.equal(changed.note.id, first.note.id); // the same source is the same note
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberResult {
  /** The stored note. */
  note: Note;
  /** `written` (new), `updated` (same source, new content) or `unchanged`. */
  status: "written" | "updated" | "unchanged";
  /**
   * What the secrets guard replaced with `[redacted:<rule-id>]`: rule ids and fields, never
   * values; absent when nothing was.
   */
  redacted?: SecretRedaction[];
  /**
   * Stored notes that resemble a written note: at most 3, most similar first (empty when none).
   * Runtimes that cannot tell leave it out.
   */
  similar?: SimilarNote[];
}

/**
 * What {@linkcode MemoMcpRuntime.rememberMany} did: each draft's note, by
 * what happened to it (the memory client's `CommitResult` without its byte
 * count).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import type { RuntimeRememberManyResult } from "./types.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "v1", source: "wiki:a" });
 * const result: RuntimeRememberManyResult = await runtime.rememberMany!([
 *   { text: "v2", source: "wiki:a" }, // the same source key: updated in place
 *   { text: "new", source: "wiki:b" },
 * ]);
 * assert.deepEqual(
 *   [result.written.length, result.updated.length, result.unchanged.length],
 *   [1, 1, 0],
 * );
 * const forgotten = await runtime.forgetMany!(result.written.map((n) => n.id));
 * assert.deepEqual(forgotten.map((n) => n.title), ["new"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRememberManyResult {
  /** Notes that did not exist and were added. */
  written: Note[];
  /** Notes whose identity existed with other content, changed in place. */
  updated: Note[];
  /** Drafts already stored as they are (nothing written). */
  unchanged: Note[];
  /** What the secrets guard replaced, with each draft's `index`; absent when nothing was. */
  redacted?: SecretRedaction[];
}

/** Options of {@linkcode MemoMcpRuntime.recall}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRecallOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "Deploys run with make deploy", labels: ["infra"] });
 * await runtime.remember({ text: "Deploy previews are built by CI", labels: ["ci"] });
 * const options: RuntimeRecallOptions = { limit: 5, labels: ["infra"], engine: "lexical" };
 * const hits = await runtime.recall("deploy", options);
 * assert.deepEqual(hits.map((h) => h.note.title), ["Deploys run with make deploy"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRecallOptions extends RuntimeCallOptions, RuntimeHistoryFilter {
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

/** Options of {@linkcode MemoMcpRuntime.list}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type RuntimeListOptions,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * for (const text of ["one", "two", "three"]) await runtime.remember({ text });
 * const first = await runtime.list({ limit: 2 });
 * const options: RuntimeListOptions = { limit: 2, cursor: first.nextCursor };
 * const second = await runtime.list(options);
 * assert.deepEqual(second.notes.map((n) => n.title), ["three"]);
 * const newest = await runtime.list({ limit: 2, order: "newest" });
 * assert.deepEqual(newest.notes.map((n) => n.title), ["three", "two"]);
 * await assert.rejects(
 *   runtime.list({ limit: 2, cursor: "not-a-cursor" }),
 *   (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeListOptions extends RuntimeCallOptions, RuntimeHistoryFilter {
  /** Cursor from a previous page. A bad one throws `MemoRuntimeError` `INVALID_INPUT`. */
  cursor?: string;
  /** Page size. */
  limit: number;
  /** Only notes that carry every one of these labels. */
  labels?: string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /**
   * `"oldest"` lists the notes in store order, `"newest"` the reverse. A cursor
   * continues in the order of the page that gave it, so pass the same `order`
   * with it. Any other value throws `MemoRuntimeError` `INVALID_INPUT`.
   * @default "oldest"
   */
  order?: "oldest" | "newest";
}

/** A change to a note. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeNotePatch } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make", labels: ["infra"] });
 * const patch: RuntimeNotePatch = { title: "Deploying", labels: ["infra", "release"] };
 * const updated = await runtime.update(note.id, patch);
 * assert.equal(updated.title, "Deploying");
 * assert.deepEqual(updated.labels, ["infra", "release"]);
 * assert.equal(updated.body, note.body); // what the patch leaves out stays
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeNotePatch {
  /** New text. */
  text?: string;
  /** New title. */
  title?: string;
  /** New labels (replace the old ones). */
  labels?: string[];
  /** New start of validity (ISO date or date-time); `null` removes it. */
  validFrom?: string | null;
  /** New end of validity (exclusive); `null` removes it. */
  validUntil?: string | null;
  /**
   * The notes this note replaces, as a whole new list (`[]` removes every link); checked as
   * `remember`'s.
   */
  supersedes?: string[];
}

/** One connector's counts in a sync (the connectors' `ConnectorRunSummary`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeConnectorSummary } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const [summary]: RuntimeConnectorSummary[] = (await runtime.syncConnectors()).connectors;
 * assert.deepEqual(summary, {
 *   id: "team",
 *   type: "discussions",
 *   fetched: 0,
 *   written: 0,
 *   updated: 0,
 *   unchanged: 0,
 * });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeConnectorSummary = ConnectorRunSummary;

/** One failed connector of a sync (the connectors' `ConnectorRunError`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeConnectorFailure } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const [failure]: RuntimeConnectorFailure[] = (await runtime.syncConnectors()).errors;
 * assert.equal(failure.connector, "team");
 * assert.equal(failure.error.name, "RepoHostAuthError");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeConnectorFailure = ConnectorRunError;

/**
 * What {@linkcode MemoMcpRuntime.syncConnectors} reports (the connectors' `RunConnectorsResult`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeSyncResult } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * // Without .memo/config.json there is nothing to sync.
 * const result: RuntimeSyncResult = await runtime.syncConnectors();
 * assert.deepEqual(result, { connectors: [], written: 0, updated: 0, unchanged: 0, errors: [] });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeSyncResult = RunConnectorsResult;

/** Options of {@linkcode MemoMcpRuntime.syncConnectors}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type RuntimeSyncOptions,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const options: RuntimeSyncOptions = { only: ["wiki"], full: true };
 * await assert.rejects(
 *   runtime.syncConnectors(options), // no connector "wiki" is configured
 *   (e) => isMemoRuntimeError(e, "CONNECTOR_NOT_FOUND"),
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
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

/** Progress of one connector during a sync (the connectors' `ConnectorProgress`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeSyncProgress } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const seen: RuntimeSyncProgress[] = [];
 * await runtime.syncConnectors({ onProgress: (progress) => void seen.push(progress) });
 * assert.deepEqual(seen.map((p) => [p.connector, p.phase]), [["team", "failed"]]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeSyncProgress = ConnectorProgress;

/** Result of {@linkcode MemoMcpRuntime.completeIds}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCompletion } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * const completion: RuntimeCompletion = await runtime.completeIds(note.id.slice(0, 6), 10);
 * assert.deepEqual(completion, { values: [note.id], total: 1 });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCompletion {
  /** Matching values, at most the limit asked for. */
  values: string[];
  /** How many values match in all. */
  total: number;
}

/**
 * A change to the notes, as {@linkcode MemoMcpRuntime.watch} reports it.
 *
 * For MCP: each id is the resource `memo://notes/{id}` that changed
 * (`notifications/resources/updated`); `listChanged` means that the list of
 * resources changed (`notifications/resources/list_changed`). Every change
 * changes `memo://stats`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeChange } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const seen: RuntimeChange[] = [];
 * const stop = runtime.watch!((change) => void seen.push(change));
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * await runtime.update(note.id, { labels: ["ops"] });
 * await runtime.forget(note.id);
 * assert.deepEqual(seen, [
 *   { ids: [note.id], listChanged: true }, // created
 *   { ids: [note.id], listChanged: false }, // updated
 *   { ids: [note.id], listChanged: true }, // removed
 * ]);
 * stop();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeChange {
  /**
   * Ids of the notes that were created, updated or removed. Empty when the
   * runtime cannot tell which (a connector sync through a memory client
   * without `watch`); `listChanged` is then true.
   */
  ids: string[];
  /** True when notes were created or removed, so that a list of notes changed. */
  listChanged: boolean;
}

/**
 * Options of {@linkcode MemoMcpRuntime.replicate}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateOptions, ReplicateProgress } from "@memo/mcp-server";
 *
 * const seen: ReplicateProgress[] = [];
 * const options: ReplicateOptions = { onProgress: (p) => seen.push(p) };
 * options.onProgress!({ phase: "push", done: 3, total: 10 });
 * assert.deepEqual(seen, [{ phase: "push", done: 3, total: 10 }]);
 * ```
 */
export interface ReplicateOptions extends RuntimeCallOptions {
  /** Called as changes move. */
  onProgress?: (progress: ReplicateProgress) => void;
}

/**
 * How far a replication got: `done` of `total` changes in this phase.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateProgress } from "@memo/mcp-server";
 *
 * const progress: ReplicateProgress = { phase: "pull", done: 100 }; // total unknown while pulling
 * assert.equal(progress.total, undefined);
 * ```
 */
export interface ReplicateProgress {
  /** `pull` (the cloud's changes coming in) or `push` (the outbox going out). */
  phase: "pull" | "push";
  /** Changes moved so far in this phase. */
  done: number;
  /** Changes in this phase, when known. */
  total?: number;
}

/**
 * What {@linkcode MemoMcpRuntime.replicate} moved (`memo replicate --json`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateResult } from "@memo/mcp-server";
 *
 * const result: ReplicateResult = { pushed: 2, pulled: 5, conflicts: 0, outbox: 0 };
 * assert.equal(result.outbox, 0); // everything local is in the cloud
 * ```
 */
export interface ReplicateResult {
  /** Local changes the cloud took. */
  pushed: number;
  /** Cloud changes applied here. */
  pulled: number;
  /** Conflicts resolved (each kept the losing version as a `conflict` note). */
  conflicts: number;
  /** Local changes still waiting. */
  outbox: number;
}

/**
 * Options of {@linkcode MemoMcpRuntime.embed}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RuntimeEmbedOptions } from "@memo/mcp-server";
 *
 * const seen: string[] = [];
 * const options: RuntimeEmbedOptions = { onProgress: (done, total) => seen.push(`${done}/${total}`) };
 * options.onProgress!(32, 400);
 * assert.deepEqual(seen, ["32/400"]);
 * ```
 */
export interface RuntimeEmbedOptions extends RuntimeCallOptions {
  /**
   * Called after each batch: notes embedded so far, of the notes in all.
   * @default undefined
   */
  onProgress?: (done: number, total: number) => void;
}

/**
 * What {@linkcode MemoMcpRuntime.embed} did (`memo embed --json`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RuntimeEmbedResult } from "@memo/mcp-server";
 *
 * const result: RuntimeEmbedResult = { model: "use-lite", embedded: 400, total: 400, computed: 280 };
 * assert.equal(result.embedded - result.computed, 120); // found in the embedding cache
 * ```
 */
export interface RuntimeEmbedResult {
  /** The embedding model. */
  model: string;
  /** Notes embedded now, whether computed or found in the cache. */
  embedded: number;
  /** Notes in all. */
  total: number;
  /** Embeddings computed by the model in this call (the rest came from the cache). */
  computed: number;
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
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type MemoMcpRuntime,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime: MemoMcpRuntime = createMemoMcpRuntimeFromConfig({ rootDir });
 * assert.equal(runtime.kind, "local");
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.equal((await runtime.get(note.id)).title, "Deploys run with make deploy");
 * assert.equal((await runtime.forget(note.id)).id, note.id);
 * await assert.rejects(runtime.get(note.id), (e) => isMemoRuntimeError(e, "NOTE_NOT_FOUND"));
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
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
  /**
   * Stores many notes in one all-or-nothing write, each deduplicated as
   * {@linkcode MemoMcpRuntime.remember} does (`memo import`). A draft may
   * carry `id`, `created` and `updated`: a new note keeps them. One invalid
   * draft refuses the whole batch (`MemoRuntimeError` `INVALID_INPUT`) and
   * nothing is written. Watchers hear the batch as one change. Optional: the
   * local, hybrid and cloud runtimes have it (the cloud's limit is 10,000
   * notes in a batch).
   */
  rememberMany?(
    drafts: readonly NoteDraft[],
    options?: RuntimeCallOptions,
  ): Promise<RuntimeRememberManyResult>;
  /**
   * Deletes notes and returns the ones it removed; unknown ids are passed
   * over (`memo forget --source`). The local and hybrid runtimes remove
   * them in one atomic rewrite of `notes.md`; the cloud runtime deletes them
   * one request at a time (a failure leaves the ones before it deleted).
   * Watchers hear the removal as one change. Optional.
   */
  forgetMany?(ids: readonly string[], options?: RuntimeCallOptions): Promise<Note[]>;
  /** Ranked notes for a query. */
  recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]>;
  /**
   * Ranked notes for a query, with the engine that ran (`auto` resolved)
   * and the embedding coverage (`{ embedded, total }`). Optional: the MCP
   * server falls back to {@linkcode MemoMcpRuntime.recall}. The cloud
   * runtime's engine is always `lexical`, with nothing embedded.
   */
  recallDetailed?(query: string, options: RuntimeRecallOptions): Promise<RecallResult>;
  /**
   * Embeds every note that is not embedded yet, now (`memo embed`). The
   * local and hybrid runtimes have it; with embeddings off it throws
   * `MemoRuntimeError` `CONFIG`.
   */
  embed?(options?: RuntimeEmbedOptions): Promise<RuntimeEmbedResult>;
  /** One note. */
  get(id: string, options?: RuntimeCallOptions): Promise<Note>;
  /** A page of notes in store order. */
  list(options: RuntimeListOptions): Promise<ListResult>;
  /** Changes a note. */
  update(id: string, patch: RuntimeNotePatch, options?: RuntimeUpdateOptions): Promise<Note>;
  /** Deletes a note and returns it. */
  forget(id: string, options?: RuntimeCallOptions): Promise<Note>;
  /**
   * The fact of a note changed: writes a new note that supersedes it (labels kept unless given)
   * and sets the old note's `validUntil` to the new `validFrom`, or to now, in one commit.
   * Unknown id: `MemoRuntimeError` `NOTE_NOT_FOUND`. Optional: the local and hybrid runtimes
   * have it.
   */
  correct?(input: RuntimeCorrectInput, options?: RuntimeCallOptions): Promise<CorrectResult>;
  /**
   * Marks existing notes as superseded by an existing note (`by` gains them in its
   * `supersedes`): what merging duplicates needs. Unknown `by`: `NOTE_NOT_FOUND`; an unknown id
   * in `ids`, `by` itself or a cycle: `INVALID_INPUT`. Optional.
   */
  supersede?(input: RuntimeSupersedeInput, options?: RuntimeCallOptions): Promise<SupersedeResult>;
  /**
   * Proposals to tidy the notes up, writing nothing: clusters of near-duplicates (keep the
   * newest, supersede the others) and notes whose `validUntil` has passed. Optional.
   */
  tidy?(options?: RuntimeCallOptions): Promise<TidyPlan>;
  /**
   * Applies exactly the merges of a plan from {@linkcode MemoMcpRuntime.tidy} in one commit;
   * refuses (`INVALID_INPUT`), writing nothing, when `notes.md` changed since the plan was made
   * (its `sha256`) or a note it names is gone or changed. Expired notes are left alone.
   * Optional.
   */
  applyTidy?(plan: TidyPlan, options?: RuntimeCallOptions): Promise<TidyApplyResult>;
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
  /**
   * Calls `onChange` after the notes change: through this runtime, or
   * through another process writing the same store (for the local runtime:
   * the `memo` CLI, another server or a connector sync on the same
   * `.memo/memory/notes.md`, noticed within about a second). Returns a
   * function that stops the calls; `close()` stops them all.
   *
   * - A write through the runtime is reported before its promise resolves;
   *   other writers' changes arrive batched, one call per check.
   * - A runtime that loads its notes lazily starts loading them at `watch`
   *   (a listener wants live data); what changed before they are loaded is
   *   part of what it loads, not a change.
   * - Nothing is watched, and nothing costs, while no listener is registered;
   *   while one is, the runtime keeps the process alive.
   * - Listeners are called synchronously, one after the other: keep them
   *   short. One may call the runtime (the call runs after the current
   *   check). A listener that throws does not keep the other listeners, or
   *   the runtime, from going on.
   * - A closed runtime throws `MemoRuntimeError` `UNAVAILABLE`.
   *
   * Optional, so that a runtime of the caller's own need not implement it;
   * the local runtime always has it.
   */
  watch?(onChange: (change: RuntimeChange) => void): () => void;
  /**
   * Pushes the outbox and pulls the cloud's changes now. Only the hybrid
   * runtime has it; it throws a `MemoCloudError` when the cloud cannot be
   * reached, and the local notes stay as they were.
   */
  replicate?(options?: ReplicateOptions): Promise<ReplicateResult>;
  /**
   * `memo scan`: finds the secrets the stored notes hold (`{id, rule, field, line}`, never a
   * value), and with `redact` rewrites them (the local and hybrid runtimes: one atomic step
   * that replicates like any other edit; the cloud runtime: one update per note). Optional.
   */
  scanSecrets?(options?: RuntimeScanOptions): Promise<SecretScanResult>;
  /**
   * `value` with every detected secret in its strings replaced by `[redacted:<rule-id>]`,
   * whatever the policy: the protocol server runs it over a write tool's arguments before it
   * logs them. Optional: without it, the arguments are logged as `redact` leaves them.
   */
  scrubSecrets?(value: unknown): Promise<unknown>;
  /**
   * The recall settings it serves with (its default engine, and what `auto` does with the
   * configured model), read without loading any note: what the `recall` tool's description
   * says. The local and hybrid runtimes know them from their configuration; `undefined` when
   * the runtime cannot tell (the cloud runtime recalls on the server).
   */
  recallProfile?(options?: RuntimeCallOptions): Promise<RuntimeRecallProfile | undefined>;
  /**
   * Releases the store, any timers and every `watch` listener. The hybrid
   * runtime first pushes its outbox for at most `options.drainMs` (default and
   * ceiling: its `closeDrainMs`, 1000); a server stopping within a deadline
   * passes what is left of it.
   */
  close(options?: RuntimeCloseOptions): Promise<void>;
}

/**
 * Options of {@linkcode MemoMcpRuntime.close}.
 *
 * @example
 * ```ts
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCloseOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const options: RuntimeCloseOptions = { drainMs: 250 }; // what is left of a shutdown's second
 * await runtime.close(options);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCloseOptions {
  /**
   * Longest time to spend pushing the hybrid outbox before closing.
   * @default the runtime's `closeDrainMs` (1000)
   */
  drainMs?: number;
}

/**
 * The recall settings of a runtime, known before it loads any note
 * (`MemoMcpRuntime.recallProfile`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRecallProfile } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const profile: RuntimeRecallProfile | undefined = await runtime.recallProfile?.();
 * assert.equal(profile?.engine, "auto");
 * assert.equal(profile?.auto.engine, "lexical"); // use-lite, the default model
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRecallProfile {
  /** The engine of a recall that names none. */
  engine: RecallEngine;
  /** What `auto` does with the configured model (the memory package's `autoEngineOf`). */
  auto: AutoEngine;
}
