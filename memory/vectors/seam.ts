/**
 * Internal: the seam between the `Memo` client and its embedding side. The client's own files
 * (`memo.ts`, `_note_mirror.ts`, `_memo_recall.ts`, `_memo_load.ts`) hold the embedding side only
 * as a {@linkcode MemoEmbeddings}, a type, which loads no code. `memo.ts` builds the light stand-in
 * of `lazy_embeddings.ts`, which imports the embedding code only when vectors are needed:
 *
 * - `embeddings.ts` (the background embedding, the vector backlog, the on-disk embedding cache, and
 *   the lease on a process-wide model of `_shared_embedder.ts`), at the first explicit `vector` or
 *   `hybrid` recall, at `embed()`, or after the open when the default engine uses vectors;
 * - the `Memo`'s `_memo_recall.ts` imports `semanticHits` (`semantic_recall.ts`) at the first `vector` or
 *   `hybrid` ranking.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import type { Embedder } from "../embed/types.ts";
import type { VectorHit, VectorSearchOptions } from "../recall/vector/vector.ts";
import type { EmbeddingStatus, EmbedResult, MemoEmbedOptions } from "./embed_types.ts";

/**
 * What a `Memo` client asks of its embedding side: told of every note change, asked whether
 * `auto` fuses, loaded for `vector` and `hybrid`, and reported in `stats()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoEmbeddings } from "./seam.ts";
 * import { Embeddings } from "./embeddings.ts";
 * const side: MemoEmbeddings = new Embeddings({ enabled: false, background: false });
 * assert.equal(side.fusable, false);
 * assert.equal(side.autoLexicalReason, "local embeddings are off");
 * assert.equal(side.status(0).state, "off");
 * await side.close();
 * ```
 */
export interface MemoEmbeddings {
  /** Whether `auto` fuses now. */
  readonly fusable: boolean;
  /** Changes whenever the set of vectors changes (for answer caches). */
  readonly version: number;
  /** Why `auto` is lexical now, or undefined when it fuses. */
  readonly autoLexicalReason: string | undefined;
  /** A note was added or changed. */
  upsert(note: Note): void;
  remove(id: string): void;
  /** Every note is gone (the store was reset). */
  clear(): void;
  /** Starts the background work, when so configured. */
  start(): void;
  /** The embedder, loading it once; rejects with `EmbedderUnavailableError`. */
  load(): Promise<Embedder>;
  /** The query's vector (embedded once, then remembered); loads the embedder when `wait`. */
  queryVector(query: string, wait?: boolean): Promise<Float32Array | undefined>;
  /** Cosine top-k over the embedded notes. */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[];
  /** Takes what the on-disk cache holds without embedding (the CLI's `auto`). */
  fromCache(): Promise<boolean>;
  /** Notes with a vector, of all `total` notes. */
  coverage(total: number): { embedded: number; total: number };
  /** The state `memory_stats` reports. */
  status(total: number): EmbeddingStatus;
  /** Embeds every note that has no vector yet, now. */
  embedAll(options?: MemoEmbedOptions): Promise<EmbedResult>;
  /** Stops the background work and frees what this client loaded. */
  close(): Promise<void>;
}
