/**
 * Internal: what one `Memo` client's embedding side knows of its notes: every note, the key
 * (hash of the embedded text) of each, the notes still without a vector (by key), their vectors
 * in a {@linkcode VectorIndex}, and how it takes the vectors the on-disk cache already holds.
 * `embeddings.ts` drives it (the model, the background work).
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import { embeddingKey, embeddingText } from "../embed/types.ts";
import { type VectorHit, VectorIndex, type VectorSearchOptions } from "../recall/vector/vector.ts";
import type { EmbeddingCache } from "./cache.ts";

/** Notes keyed between two turns of the event loop while the cache is looked up. */
const KEY_CHUNK = 1000;

/**
 * The notes of one client and their vectors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingBacklog } from "./_backlog.ts";
 * const note = { id: "a", title: "Deploys", body: "deploy on Fridays", labels: [], hash: "", created: "", updated: "" };
 * const backlog = new EmbeddingBacklog();
 * backlog.seed([note]);
 * assert.equal(backlog.pending, true);
 * backlog.attach(2);
 * await backlog.lookInCache(undefined); // keys the note; no cache holds its vector
 * const { keys, texts } = backlog.nextBatch(32);
 * assert.deepEqual(texts, ["Deploys\ndeploy on Fridays"]);
 * backlog.take(keys[0], new Float32Array([1, 0]));
 * assert.equal(backlog.pending, false);
 * assert.equal(backlog.embedded, 1);
 * assert.equal(backlog.search(new Float32Array([1, 0]), { limit: 1 })[0].id, "a");
 * ```
 */
export class EmbeddingBacklog {
  /** Every note, by id (latest version). */
  #notes = new Map<string, Note>();
  /** Key (hash of the embedded text) of each note whose key is computed. */
  #keys = new Map<string, string>();
  /** Notes without a vector whose key is not computed yet. */
  #unkeyed = new Set<string>();
  /** Notes without a vector, by key. */
  #waiting = new Map<string, Set<string>>();
  /** Waiting keys the cache holds but has already read past (read them by key). */
  #known = new Set<string>();
  #index: VectorIndex | undefined;
  #version = 0;

  /** Changes whenever the set of vectors changes (for answer caches). */
  get version(): number {
    return this.#version;
  }

  get total(): number {
    return this.#notes.size;
  }

  /** Notes with a vector. */
  get embedded(): number {
    return this.#index?.size ?? 0;
  }

  /** Whether some note still has no vector. */
  get pending(): boolean {
    return this.#unkeyed.size > 0 || this.#waiting.size > 0;
  }

  /** Vectors have `dimensions` components from now on (the embedder is loaded). */
  attach(dimensions: number): void {
    this.#index ??= new VectorIndex(dimensions);
  }

  /** Takes every note at once (the client's notes when the embedding side starts). */
  seed(notes: Iterable<Note>): void {
    for (const note of notes) this.upsert(note);
  }

  /** A note was added or changed; returns whether it needs a vector (its text is new). */
  upsert(note: Note): boolean {
    const before = this.#notes.get(note.id);
    this.#notes.set(note.id, note);
    if (before && before.title === note.title && before.body === note.body) return false;
    if (before) this.#forget(note.id);
    this.#unkeyed.add(note.id);
    return true;
  }

  remove(id: string): void {
    if (!this.#notes.delete(id)) return;
    this.#forget(id);
  }

  /** Every note is gone (the store was reset). */
  clear(): void {
    this.#notes.clear();
    this.#keys.clear();
    this.#unkeyed.clear();
    this.#waiting.clear();
    this.#known.clear();
    if (this.#index?.size) this.#version++;
    this.#index?.clear();
  }

  /** Cosine top-k over the notes with a vector. */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    return this.#index?.search(query, options) ?? [];
  }

  /**
   * Keys every note that has none (in chunks, letting other work through), then takes every
   * vector `cache` holds for a waiting note: the records appended since the last look (by this
   * or another process), and by key those it had read past before the note was keyed.
   */
  async lookInCache(cache: EmbeddingCache | undefined): Promise<void> {
    let n = 0;
    for (const id of this.#unkeyed) {
      this.#unkeyed.delete(id);
      const key = this.#keyOf(id);
      const ids = this.#waiting.get(key);
      if (ids) ids.add(id);
      else this.#waiting.set(key, new Set([id]));
      if (cache?.has(key)) this.#known.add(key);
      if (++n % KEY_CHUNK === 0) await new Promise((r) => setTimeout(r, 0));
    }
    if (!cache) return;
    await cache.refresh((key, vector) => this.take(key, vector));
    for (const key of this.#known) {
      const vector = await cache.read(key);
      if (vector) this.take(key, vector);
      else this.#known.delete(key);
    }
  }

  /** Up to `size` keys still to embed (none the cache holds), with the text of each. */
  nextBatch(size: number): { keys: string[]; texts: string[] } {
    const keys: string[] = [];
    const texts: string[] = [];
    for (const [key, ids] of this.#waiting) {
      if (texts.length >= size) break;
      if (this.#known.has(key)) continue;
      keys.push(key);
      texts.push(embeddingText(this.#notes.get(ids.values().next().value!)!));
    }
    return { keys, texts };
  }

  /** Gives every note waiting on `key` its vector (a key no note waits on any more: nothing). */
  take(key: string, vector: Float32Array): void {
    const ids = this.#waiting.get(key);
    if (!ids) return;
    this.#waiting.delete(key);
    this.#known.delete(key);
    for (const id of ids) this.#index!.set(id, vector);
    this.#version++;
  }

  #keyOf(id: string): string {
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = embeddingKey(embeddingText(this.#notes.get(id)!));
      this.#keys.set(id, key);
    }
    return key;
  }

  /** Drops what is known of a note's old text: its key, its place in the queues, its vector. */
  #forget(id: string): void {
    this.#unkeyed.delete(id);
    const key = this.#keys.get(id);
    if (key !== undefined) {
      this.#keys.delete(id);
      const ids = this.#waiting.get(key);
      if (ids?.delete(id) && ids.size === 0) {
        this.#waiting.delete(key);
        this.#known.delete(key);
      }
    }
    if (this.#index?.has(id)) {
      this.#index.remove(id);
      this.#version++;
    }
  }
}
