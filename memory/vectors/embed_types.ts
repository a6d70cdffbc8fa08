/**
 * The embedding side's state and the options and result of {@linkcode Memo.embed}.
 *
 * @module
 */

/**
 * The embedder's state and coverage, as `stats().embeddings` reports it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbeddingStatus } from "@memo/memory";
 * const status: EmbeddingStatus = { model: "use-lite", ready: true, embedded: 40, total: 50, state: "ready" };
 * assert.equal(status.total - status.embedded, 10); // still to embed
 * ```
 */
export interface EmbeddingStatus {
  /** The embedding model. */
  model: string;
  /** Whether the embedder is loaded and answering. */
  ready: boolean;
  /** Notes that have a vector. */
  embedded: number;
  /** All notes. */
  total: number;
  /**
   * `off` (local embeddings turned off), `idle` (not loaded yet), `loading`, `ready`, or
   * `failed` (see `error`).
   */
  state: "off" | "idle" | "loading" | "ready" | "failed";
  /** Why the model could not be loaded or used. */
  error?: string;
  /**
   * Why the model is not loaded, while `state` is `idle` or `off`: for example "auto uses
   * lexical with use-lite; the model loads at the first vector or hybrid recall".
   */
  reason?: string;
}

/**
 * Options of {@linkcode Memo.embed}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoEmbedOptions } from "@memo/memory";
 * const seen: number[] = [];
 * const options: MemoEmbedOptions = { onProgress: (embedded) => void seen.push(embedded) };
 * options.onProgress?.(3, 10);
 * assert.deepEqual(seen, [3]);
 * ```
 */
export interface MemoEmbedOptions {
  /** Called after each batch with the notes embedded so far, of all notes. */
  onProgress?: (embedded: number, total: number) => void;
  /** Stops between batches. */
  signal?: AbortSignal;
}

/**
 * What {@linkcode Memo.embed} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbedResult } from "@memo/memory";
 * const result: EmbedResult = { embedded: 10, total: 10, computed: 4 }; // 6 came from the cache
 * assert.equal(result.embedded - result.computed, 6);
 * ```
 */
export interface EmbedResult {
  /** Notes that have a vector now. */
  embedded: number;
  /** All notes. */
  total: number;
  /** Texts the model embedded in this call (the others came from the cache or were there). */
  computed: number;
}
