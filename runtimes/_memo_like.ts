/**
 * {@linkcode MemoLike}: the part of the memory client (`Memo` of `@memo/memory`) the local runtime
 * uses. `types.ts` re-exports it.
 *
 * @module
 */

import type {
  CommitResult,
  EmbeddingStatus,
  ListResult,
  MemoStats,
  Note,
  NoteDraft,
  RecallEngine,
  RecallHit,
  RecallResult,
  ReplicaApplyResult,
  ReplicaChanges,
  SecretRedaction,
  SecretScanResult,
} from "@memo/memory";
import type { RuntimeNotePatch, RuntimeRememberResult } from "./_write_types.ts";
import type {
  CorrectResult,
  RuntimeCorrectInput,
  RuntimeHistoryFilter,
  RuntimeSupersedeInput,
  SupersedeResult,
  TidyApplyResult,
  TidyPlan,
} from "./history_types.ts";

/**
 * The part of the memory client (`Memo` of `@memo/memory`) the local runtime uses; `openMemo()`
 * returns one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo, type MemoLike } from "@memo/mcp-server";
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
   * Stores one note, deduplicating, and says which stored notes resemble it (`Memo.remember`).
   * Optional: without it, the runtime stores a batch of one and reports no similar notes.
   */
  remember?(draft: NoteDraft, options?: { signal?: AbortSignal }): Promise<RuntimeRememberResult>;
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
      scope?: "user" | "project" | "local" | readonly ("user" | "project" | "local")[];
      source?: string;
      explain?: boolean;
    } & RuntimeHistoryFilter,
  ): Promise<RecallHit[]>;
  /**
   * Ranked hits with the engine that ran and the embedding coverage (`Memo.recallDetailed`), with
   * the options of `recall`. Optional: without it, a runtime over this client reports the hits'
   * engine and no coverage.
   */
  recallDetailed?(
    query: string,
    options?: Parameters<MemoLike["recall"]>[1],
  ): Promise<RecallResult>;
  /**
   * Embeds every note not embedded yet (`Memo.embed`). Optional: without it, the runtime's `embed`
   * refuses.
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
      scope?: "user" | "project" | "local" | readonly ("user" | "project" | "local")[];
      source?: string;
      order?: "oldest" | "newest";
    } & RuntimeHistoryFilter,
  ): Promise<ListResult>;
  /** Changes a note; `onRedacted` hears what the secrets guard replaced. */
  update(
    id: string,
    patch: RuntimeNotePatch,
    options?: { onRedacted?: (redacted: SecretRedaction[]) => void; signal?: AbortSignal },
  ): Promise<Note>;
  /** Deletes a note and returns it; `signal` stops a delete that has not started writing. */
  forget(id: string, options?: { signal?: AbortSignal }): Promise<Note>;
  /**
   * Writes a new note that supersedes `input.id`, and ends the old note's validity, in one commit
   * (`Memo.correct`). Optional: without it, the runtime's `correct` refuses.
   */
  correct?(input: RuntimeCorrectInput): Promise<CorrectResult>;
  /** Marks notes as superseded by another (`Memo.supersede`). Optional. */
  supersede?(input: RuntimeSupersedeInput): Promise<SupersedeResult>;
  /** Proposals to tidy the notes up (`Memo.tidy`). Optional. */
  tidy?(): Promise<TidyPlan>;
  /** Applies a tidy plan in one commit (`Memo.applyTidy`). Optional. */
  applyTidy?(plan: TidyPlan): Promise<TidyApplyResult>;
  /**
   * Writes notes verbatim and removes ids in one atomic step (`Memo.applyReplica`). Optional: the
   * local runtime's `forgetMany` uses it, and removes one note at a time without it.
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
   * Calls `onChange` with the ids of the notes created, updated and removed, after this client's
   * writes and other processes' writes (`Memo.watch`). Returns the function that stops the calls.
   * Optional: without it, a runtime over this client reports only the writes made through the
   * runtime.
   */
  watch?(
    onChange: (change: { created: string[]; updated: string[]; removed: string[] }) => void,
  ): () => void;
  /** Releases the store. */
  close(): Promise<void>;
}
