/**
 * A small least-recently-used cache of recall results. The `Memo` client empties it whenever the
 * notes change (its own writes, or another process's found by a reload), so a cached answer is
 * always the answer the index would give now. Agents ask the same thing again often (a prompt's
 * topic, a retry, several agents on one hosted endpoint); an answer from here costs a map lookup
 * instead of a BM25 search.
 *
 * @module
 */

/**
 * Default number of recall answers the `Memo` client keeps.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_RECALL_CACHE_SIZE } from "./_recall_cache.ts";
 * assert.equal(DEFAULT_RECALL_CACHE_SIZE, 256);
 * ```
 */
export const DEFAULT_RECALL_CACHE_SIZE = 256;

/**
 * The cache: string keys, values kept in least-recently-used order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RecallCache } from "./_recall_cache.ts";
 * const cache = new RecallCache<number[]>(2);
 * cache.set("a", [1]);
 * assert.deepEqual(cache.get("a"), [1]);
 * cache.clear();
 * assert.equal(cache.get("a"), undefined);
 * ```
 */
export class RecallCache<T> {
  readonly #max: number;
  readonly #entries = new Map<string, T>();

  /** Keeps at most `max` answers; 0 keeps none. */
  constructor(max: number) {
    this.#max = Math.max(0, Math.floor(max));
  }

  /** The answer stored under `key`, which becomes the most recently used. */
  get(key: string): T | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Stores an answer, dropping the least recently used one past the size. */
  set(key: string, value: T): void {
    if (this.#max === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  /** Forgets every answer (the notes changed). */
  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
