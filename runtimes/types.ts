/**
 * {@linkcode MemoMcpRuntime}: everything the protocol server asks of the data behind it. The local,
 * hybrid and cloud runtimes implement it; `server/` reaches notes only through it.
 *
 * @module
 */

import type {
  ListResult,
  MemoStats,
  Note,
  NoteDraft,
  RecallHit,
  RecallResult,
  SecretScanResult,
} from "@memo/memory";
import type {
  RuntimeCallOptions,
  RuntimeCloseOptions,
  RuntimeScanOptions,
  RuntimeUpdateOptions,
} from "./_call_options.ts";
import type {
  ReplicateOptions,
  ReplicateResult,
  RuntimeEmbedOptions,
  RuntimeEmbedResult,
  RuntimeSyncOptions,
  RuntimeSyncResult,
} from "./_job_types.ts";
import type {
  RuntimeChange,
  RuntimeCompletion,
  RuntimeListOptions,
  RuntimeRecallOptions,
  RuntimeRecallProfile,
} from "./_read_types.ts";
import type {
  RuntimeNotePatch,
  RuntimeRememberInput,
  RuntimeRememberManyResult,
  RuntimeRememberResult,
} from "./_write_types.ts";
import type {
  CorrectResult,
  RuntimeCorrectInput,
  RuntimeSupersedeInput,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "./history_types.ts";

export * from "./history_types.ts";

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
} from "@memo/memory";
export type { MemoLike } from "./_memo_like.ts";
export type * from "./_call_options.ts";
export type * from "./_write_types.ts";
export type * from "./_read_types.ts";
export type * from "./_job_types.ts";

/**
 * The data side of the MCP server and the CLI. Implementations throw a `MemoRuntimeError` with a
 * stable `code` for what they refuse (`INVALID_INPUT`, `NOTE_NOT_FOUND` with `details.id`,
 * `CONNECTOR_NOT_FOUND`, `CONFIG`, `UNAVAILABLE`), and anything else for an I/O failure. A runtime
 * of the caller's own may also throw `MemoMcpError`s, which the server passes on unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type MemoMcpRuntime,
 * } from "@memo/mcp-server";
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
   * {@linkcode MemoMcpRuntime.remember} does (`memo import`). A draft may carry `id`, `created` and
   * `updated`: a new note keeps them. One invalid draft refuses the whole batch (`MemoRuntimeError`
   * `INVALID_INPUT`) and nothing is written. Watchers hear the batch as one change. Optional: the
   * local, hybrid and cloud runtimes have it (the cloud's limit is 10,000 notes in a batch).
   */
  rememberMany?(
    drafts: readonly NoteDraft[],
    options?: RuntimeCallOptions,
  ): Promise<RuntimeRememberManyResult>;
  /**
   * Deletes notes and returns the ones it removed; unknown ids are passed over (`memo forget
   * --source`). The local and hybrid runtimes remove them in one atomic rewrite of `notes.md`; the
   * cloud runtime deletes them one request at a time (a failure leaves the ones before it deleted).
   * Watchers hear the removal as one change. Optional.
   */
  forgetMany?(ids: readonly string[], options?: RuntimeCallOptions): Promise<Note[]>;
  /** Ranked notes for a query. */
  recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]>;
  /**
   * Ranked notes for a query, with the engine that ran (`auto` resolved) and the embedding coverage
   * (`{ embedded, total }`). Optional: the MCP server falls back to
   * {@linkcode MemoMcpRuntime.recall}. The cloud runtime's engine is always `lexical`, with nothing
   * embedded.
   */
  recallDetailed?(query: string, options: RuntimeRecallOptions): Promise<RecallResult>;
  /**
   * Embeds every note that is not embedded yet, now (`memo embed`). The local and hybrid runtimes
   * have it; with embeddings off it throws `MemoRuntimeError` `CONFIG`.
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
   * The fact of a note changed: writes a new note that supersedes it (labels kept unless given) and
   * sets the old note's `validUntil` to the new `validFrom`, or to now, in one commit. Unknown id:
   * `MemoRuntimeError` `NOTE_NOT_FOUND`. Optional: the local and hybrid runtimes have it.
   */
  correct?(input: RuntimeCorrectInput, options?: RuntimeCallOptions): Promise<CorrectResult>;
  /**
   * Marks existing notes as superseded by an existing note (`by` gains them in its `supersedes`):
   * what merging duplicates needs. Unknown `by`: `NOTE_NOT_FOUND`; an unknown id in `ids`, `by`
   * itself or a cycle: `INVALID_INPUT`. Optional.
   */
  supersede?(input: RuntimeSupersedeInput, options?: RuntimeCallOptions): Promise<SupersedeResult>;
  /**
   * Proposals to tidy the notes up, writing nothing: clusters of near-duplicates (keep the newest,
   * supersede the others) and notes whose `validUntil` has passed. Optional.
   */
  tidy?(options?: RuntimeCallOptions): Promise<TidyPlan>;
  /**
   * Applies exactly the merges of a plan from {@linkcode MemoMcpRuntime.tidy} in one commit;
   * refuses (`INVALID_INPUT`), writing nothing, when `notes.md` changed since the plan was made
   * (its `sha256`) or a note it names is gone or changed. Expired notes are left alone. Optional.
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
   * Calls `onChange` after the notes change: through this runtime, or through another process
   * writing the same store (for the local runtime: the `memo` CLI, another server or a connector
   * sync on the same `.memo/memory/notes.md`, noticed within about a second). Returns a function
   * that stops the calls; `close()` stops them all.
   *
   * - A write through the runtime is reported before its promise resolves; other writers' changes
   *   arrive batched, one call per check.
   * - A runtime that loads its notes lazily starts loading them at `watch` (a listener wants live
   *   data); what changed before they are loaded is part of what it loads, not a change.
   * - Nothing is watched, and nothing costs, while no listener is registered; while one is, the
   *   runtime keeps the process alive.
   * - Listeners are called synchronously, one after the other: keep them short. One may call the
   *   runtime (the call runs after the current check). A listener that throws does not keep the
   *   other listeners, or the runtime, from going on.
   * - A closed runtime throws `MemoRuntimeError` `UNAVAILABLE`.
   *
   * Optional, so that a runtime of the caller's own need not implement it; the local runtime always
   * has it.
   */
  watch?(onChange: (change: RuntimeChange) => void): () => void;
  /**
   * Pushes the outbox and pulls the cloud's changes now. Only the hybrid runtime has it; it throws
   * a `MemoCloudError` when the cloud cannot be reached, and the local notes stay as they were.
   */
  replicate?(options?: ReplicateOptions): Promise<ReplicateResult>;
  /**
   * `memo scan`: finds the secrets the stored notes hold (`{id, rule, field, line}`, never a
   * value), and with `redact` rewrites them (the local and hybrid runtimes: one atomic step that
   * replicates like any other edit; the cloud runtime: one update per note). Optional.
   */
  scanSecrets?(options?: RuntimeScanOptions): Promise<SecretScanResult>;
  /**
   * `value` with every detected secret in its strings replaced by `[redacted:<rule-id>]`, whatever
   * the policy: the protocol server runs it over a write tool's arguments before it logs them.
   * Optional: without it, the arguments are logged as `redact` leaves them.
   */
  scrubSecrets?(value: unknown): Promise<unknown>;
  /**
   * The recall settings it serves with (its default engine, and what `auto` does with the
   * configured model), read without loading any note: what the `recall` tool's description says.
   * The local and hybrid runtimes know them from their configuration; `undefined` when the runtime
   * cannot tell (the cloud runtime recalls on the server).
   */
  recallProfile?(options?: RuntimeCallOptions): Promise<RuntimeRecallProfile | undefined>;
  /**
   * Releases the store, any timers and every `watch` listener. The hybrid runtime first pushes its
   * outbox for at most `options.drainMs` (default and ceiling: its `closeDrainMs`, 1000); a server
   * stopping within a deadline passes what is left of it.
   */
  close(options?: RuntimeCloseOptions): Promise<void>;
}
