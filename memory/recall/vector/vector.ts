/**
 * The in-memory vector index of the `vector`, `hybrid` and `auto` recall engines: cosine top-k over
 * note embeddings, held compactly (about 580 bytes per 512-dimension vector) and searched in two
 * passes — a full-precision query against 1-bit sign codes picks the candidates, whose int8 codes
 * then give the similarity. The codes and loops are described in `_codes.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VectorIndex } from "@memo/memory";
 * const index = new VectorIndex(3);
 * index.set("a", new Float32Array([1, 0, 0]));
 * index.set("b", new Float32Array([0.6, 0.8, 0]));
 * const hits = index.search(new Float32Array([1, 0.1, 0]), { limit: 2 });
 * assert.deepEqual(hits.map((hit) => hit.id), ["a", "b"]);
 * ```
 *
 * @module
 */

import { MemoryValidationError } from "../../errors.ts";
import {
  codeStride,
  encodeVector,
  HISTOGRAM_BUCKETS,
  int8Scores,
  int8ScoresByByte,
  LITTLE_ENDIAN,
  pickHighest,
  signScores,
  signTable,
  signWords,
  vectorNorm,
} from "./_codes.ts";

/**
 * One hit of a vector search.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { VectorHit } from "@memo/memory";
 * const hit: VectorHit = { id: "01abc", similarity: 0.82 };
 * assert.ok(hit.similarity <= 1);
 * ```
 */
export interface VectorHit {
  /** The id the vector was set under. */
  id: string;
  /** Cosine similarity with the query, -1..1 (of the int8 codes: within about 0.001 of exact). */
  similarity: number;
}

/**
 * Options of `VectorIndex.search`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { VectorSearchOptions } from "@memo/memory";
 * const options: VectorSearchOptions = { limit: 5, filter: (id) => id.startsWith("gh-") };
 * assert.equal(options.limit, 5);
 * ```
 */
export interface VectorSearchOptions {
  /** Most hits returned (a limit below 1 returns none). */
  limit: number;
  /**
   * Only ids for which it returns true are ranked. It is applied before ranking, so a filtered
   * search still returns `limit` hits when that many pass.
   */
  filter?: (id: string) => boolean;
}

/**
 * Options of `new VectorIndex`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VectorIndex, type VectorIndexOptions } from "@memo/memory";
 * const options: VectorIndexOptions = { candidates: 8000 };
 * assert.equal(new VectorIndex(512, options).size, 0);
 * ```
 */
export interface VectorIndexOptions {
  /**
   * Candidates taken from the first pass (sign codes) and rescored with the int8 codes; a search
   * rescores at least 40 × its limit. When no more vectors than this pass the filter, every one is
   * rescored (the search is exact up to int8 precision). 4,000 gives a recall@10 of 0.977 against
   * an exact float32 scan on 100,000 random 512-dimension unit vectors, the hard case (see
   * `bench/README.md`); real embeddings have clearer neighbours and need far fewer.
   *
   * @default 4000
   */
  candidates?: number;
}

/**
 * Default of `VectorIndexOptions.candidates`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_VECTOR_CANDIDATES } from "@memo/memory";
 * assert.equal(DEFAULT_VECTOR_CANDIDATES, 4000);
 * ```
 */
export const DEFAULT_VECTOR_CANDIDATES = 4000;

const MIN_CAPACITY = 64;

/**
 * Cosine top-k over vectors keyed by id, held as sign codes and int8 codes in contiguous typed
 * arrays that grow by half when full; removed slots are reused. Vectors are normalised when set (a
 * zero vector is kept and has similarity 0 with everything). Searches allocate only their result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VectorIndex } from "@memo/memory";
 * const index = new VectorIndex(2);
 * index.set("x", new Float32Array([3, 4])); // normalised to [0.6, 0.8]
 * index.set("y", new Float32Array([-1, 0]));
 * assert.equal(index.size, 2);
 * const [best] = index.search(new Float32Array([0.6, 0.8]), { limit: 1 });
 * assert.equal(best.id, "x");
 * assert.ok(Math.abs(best.similarity - 1) < 1e-3);
 * index.remove("x");
 * assert.deepEqual(index.search(new Float32Array([1, 0]), { limit: 5, filter: (id) => id !== "y" }), []);
 * ```
 */
export class VectorIndex {
  /** Components per vector. */
  readonly dimensions: number;
  readonly #candidates: number;
  readonly #words: number;
  readonly #stride: number;
  #capacity = 0;
  /** Slots in use or freed (slots below this were handed out once). */
  #used = 0;
  #signs = new Uint32Array(0);
  #codes = new Int8Array(0);
  #codeWords = new Int32Array(0);
  #inverse = new Float32Array(0);
  /** Slot → id ("" when free). */
  #ids: string[] = [];
  #slotOf = new Map<string, number>();
  #free: number[] = [];
  // Search scratch, grown with the capacity (slots, first-pass scores) or with the candidates.
  #slots = new Int32Array(0);
  #firstScores = new Int32Array(0);
  #picked = new Int32Array(0);
  #candidateSlots = new Int32Array(0);
  #scores = new Float64Array(0);
  readonly #histogram = new Int32Array(HISTOGRAM_BUCKETS);
  readonly #query: Float64Array;
  readonly #table: Int32Array;

  /**
   * An empty index of vectors of `dimensions` components.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * assert.equal(new VectorIndex(512).dimensions, 512);
   * assert.throws(() => new VectorIndex(0), /Cannot create vector index: dimensions must be a positive integer/);
   * ```
   */
  constructor(dimensions: number, options: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 1 << 16) {
      throw new MemoryValidationError(
        `Cannot create vector index: dimensions must be a positive integer up to 65536, got ${dimensions}`,
      );
    }
    const candidates = options.candidates ?? DEFAULT_VECTOR_CANDIDATES;
    if (!Number.isInteger(candidates) || candidates < 1) {
      throw new MemoryValidationError(
        `Cannot create vector index: candidates must be a positive integer, got ${candidates}`,
      );
    }
    this.dimensions = dimensions;
    this.#candidates = candidates;
    this.#words = signWords(dimensions);
    this.#stride = codeStride(dimensions);
    this.#query = new Float64Array(this.#stride);
    this.#table = new Int32Array(this.#words * 4 * 256);
  }

  /**
   * Number of vectors held.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(2);
   * index.set("a", new Float32Array([1, 0]));
   * index.set("a", new Float32Array([0, 1])); // replaces
   * assert.equal(index.size, 1);
   * ```
   */
  get size(): number {
    return this.#slotOf.size;
  }

  /**
   * Bytes of the typed arrays the index holds (codes, norms and search scratch, at their current
   * capacity); ids and the id map are not counted.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(512);
   * index.set("a", new Float32Array(512).fill(1));
   * assert.ok(index.bytes >= 64 * (512 + 64 + 4)); // at least the first 64 slots of codes
   * ```
   */
  get bytes(): number {
    return this.#signs.byteLength + this.#codes.byteLength + this.#inverse.byteLength +
      this.#slots.byteLength + this.#firstScores.byteLength + this.#picked.byteLength +
      this.#candidateSlots.byteLength + this.#scores.byteLength + this.#histogram.byteLength +
      this.#query.byteLength + this.#table.byteLength;
  }

  /**
   * Whether a vector is held for `id`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(1);
   * index.set("a", new Float32Array([1]));
   * assert.ok(index.has("a"));
   * assert.ok(!index.has("b"));
   * ```
   */
  has(id: string): boolean {
    return this.#slotOf.has(id);
  }

  /**
   * Holds `vector` (normalised, quantised) under `id`, replacing the one held before. Throws
   * `MemoryValidationError` when its length is not `dimensions` or a component is not finite.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(512);
   * assert.throws(
   *   () => index.set("a", new Float32Array(3)),
   *   { name: "MemoryValidationError", message: "Cannot index vector: expected 512 dimensions, got 3" },
   * );
   * ```
   */
  set(id: string, vector: Float32Array): void {
    if (typeof id !== "string" || id === "") {
      throw new MemoryValidationError("Cannot index vector: the id must be a non-empty string");
    }
    this.#checkLength(vector, "index vector");
    const held = this.#slotOf.get(id);
    const slot = held ?? (this.#free.length > 0 ? this.#free.pop()! : this.#newSlot());
    const inverse = encodeVector(
      vector,
      this.#signs,
      slot * this.#words,
      this.#codes,
      slot * this.#stride,
    );
    if (Number.isNaN(inverse)) {
      // Nothing was written: a slot taken for a new id goes back.
      if (held === undefined) this.#free.push(slot);
      throw new MemoryValidationError("Cannot index vector: it holds a value that is not finite");
    }
    this.#inverse[slot] = inverse;
    if (held === undefined) {
      this.#slotOf.set(id, slot);
      this.#ids[slot] = id;
    }
  }

  /**
   * Drops the vector held under `id` (nothing when there is none); its slot is reused.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(1);
   * index.set("a", new Float32Array([1]));
   * index.remove("a");
   * index.remove("a");
   * assert.equal(index.size, 0);
   * ```
   */
  remove(id: string): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return;
    this.#slotOf.delete(id);
    this.#ids[slot] = "";
    this.#inverse[slot] = 0;
    this.#free.push(slot);
  }

  /**
   * Drops every vector and frees the arrays.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(1);
   * index.set("a", new Float32Array([1]));
   * index.clear();
   * assert.equal(index.size, 0);
   * assert.deepEqual(index.search(new Float32Array([1]), { limit: 1 }), []);
   * ```
   */
  clear(): void {
    this.#capacity = 0;
    this.#used = 0;
    this.#signs = new Uint32Array(0);
    this.#codes = new Int8Array(0);
    this.#codeWords = new Int32Array(0);
    this.#inverse = new Float32Array(0);
    this.#ids = [];
    this.#slotOf.clear();
    this.#free = [];
    this.#slots = new Int32Array(0);
    this.#firstScores = new Int32Array(0);
    this.#picked = new Int32Array(0);
    this.#candidateSlots = new Int32Array(0);
    this.#scores = new Float64Array(0);
  }

  /**
   * The `limit` vectors most similar to `query` by cosine, best first; equal similarities are
   * ordered by id ascending. Exact (up to int8 precision) when no more vectors than `candidates`
   * pass the filter; otherwise the candidates come from the sign codes. Throws
   * `MemoryValidationError` when the query's length is not `dimensions` or a component is not
   * finite. A zero query gives similarity 0 for every vector.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { VectorIndex } from "@memo/memory";
   * const index = new VectorIndex(2);
   * index.set("b", new Float32Array([1, 1]));
   * index.set("a", new Float32Array([2, 2])); // same direction as "b": a tie
   * index.set("c", new Float32Array([1, -1]));
   * const hits = index.search(new Float32Array([1, 0]), { limit: 10 });
   * assert.deepEqual(hits.map((hit) => hit.id), ["a", "b", "c"]);
   * assert.equal(hits[0].similarity, hits[1].similarity);
   * ```
   */
  search(query: Float32Array, options: VectorSearchOptions): VectorHit[] {
    const norm = this.#check(query, "search vectors");
    const limit = Math.floor(options.limit);
    if (!(limit >= 1) || this.#slotOf.size === 0) return [];
    const eligible = this.#eligible(options.filter);
    if (eligible === 0) return [];
    const q = this.#query;
    const inverse = norm > 0 ? 1 / norm : 0;
    for (let i = 0; i < query.length; i++) q[i] = query[i] * inverse;
    const take = Math.max(this.#candidates, 40 * Math.min(limit, eligible));
    let candidates: Int32Array;
    let count: number;
    if (eligible <= take || norm === 0) {
      candidates = this.#slots;
      count = eligible;
    } else {
      signTable(q, this.dimensions, this.#table);
      signScores(this.#signs, this.#words, this.#table, this.#slots, eligible, this.#firstScores);
      if (this.#picked.length < take) {
        this.#picked = new Int32Array(take);
        this.#candidateSlots = new Int32Array(take);
      }
      count = pickHighest(this.#firstScores, eligible, take, this.#histogram, this.#picked);
      candidates = this.#candidateSlots;
      for (let k = 0; k < count; k++) candidates[k] = this.#slots[this.#picked[k]];
    }
    if (this.#scores.length < count) this.#scores = new Float64Array(Math.max(count, take));
    if (norm === 0) this.#scores.fill(0, 0, count);
    else if (LITTLE_ENDIAN) {
      int8Scores(this.#codeWords, this.#stride, this.#inverse, q, candidates, count, this.#scores);
    } else {
      int8ScoresByByte(
        this.#codes,
        this.#stride,
        this.#inverse,
        q,
        candidates,
        count,
        this.#scores,
      );
    }
    return this.#best(candidates, count, Math.min(limit, count));
  }

  #checkLength(vector: Float32Array, action: string): void {
    if (!(vector instanceof Float32Array)) {
      throw new MemoryValidationError(`Cannot ${action}: expected a Float32Array`);
    }
    if (vector.length !== this.dimensions) {
      throw new MemoryValidationError(
        `Cannot ${action}: expected ${this.dimensions} dimensions, got ${vector.length}`,
      );
    }
  }

  /** Validates a vector's type, length and values; returns its norm. */
  #check(vector: Float32Array, action: string): number {
    this.#checkLength(vector, action);
    const norm = vectorNorm(vector);
    if (!Number.isFinite(norm)) {
      throw new MemoryValidationError(`Cannot ${action}: it holds a value that is not finite`);
    }
    return norm;
  }

  /** Writes the live slots that pass `filter` to the start of #slots; returns how many. */
  #eligible(filter: ((id: string) => boolean) | undefined): number {
    const slots = this.#slots;
    const ids = this.#ids;
    let n = 0;
    if (filter) {
      for (let slot = 0; slot < this.#used; slot++) {
        const id = ids[slot];
        if (id !== "" && filter(id)) slots[n++] = slot;
      }
    } else if (this.#free.length === 0) {
      for (let slot = 0; slot < this.#used; slot++) slots[n++] = slot;
    } else {
      for (let slot = 0; slot < this.#used; slot++) if (ids[slot] !== "") slots[n++] = slot;
    }
    return n;
  }

  /** The `limit` best of `candidates[0..count)` by #scores (same positions), ties by id. */
  #best(candidates: Int32Array, count: number, limit: number): VectorHit[] {
    const scores = this.#scores;
    const ids = this.#ids;
    // A min-heap of positions holding the best `limit` seen; its root is the worst of them.
    const heap: number[] = [];
    const worse = (a: number, b: number) =>
      scores[a] < scores[b] || (scores[a] === scores[b] && ids[candidates[a]] > ids[candidates[b]]);
    for (let k = 0; k < count; k++) {
      if (heap.length < limit) {
        let i = heap.push(k) - 1;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!worse(heap[i], heap[parent])) break;
          [heap[i], heap[parent]] = [heap[parent], heap[i]];
          i = parent;
        }
      } else if (worse(heap[0], k)) {
        heap[0] = k;
        let i = 0;
        for (;;) {
          const left = 2 * i + 1;
          const right = left + 1;
          let smallest = i;
          if (left < limit && worse(heap[left], heap[smallest])) smallest = left;
          if (right < limit && worse(heap[right], heap[smallest])) smallest = right;
          if (smallest === i) break;
          [heap[i], heap[smallest]] = [heap[smallest], heap[i]];
          i = smallest;
        }
      }
    }
    heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
    return heap.map((k) => ({ id: ids[candidates[k]], similarity: scores[k] }));
  }

  /** A never-used slot, growing the arrays by half when full. */
  #newSlot(): number {
    if (this.#used === this.#capacity) this.#grow(Math.max(MIN_CAPACITY, this.#capacity * 1.5));
    this.#ids[this.#used] = "";
    return this.#used++;
  }

  #grow(capacity: number): void {
    capacity = Math.ceil(capacity);
    const signs = new Uint32Array(capacity * this.#words);
    signs.set(this.#signs);
    const codes = new Int8Array(capacity * this.#stride);
    codes.set(this.#codes);
    const inverse = new Float32Array(capacity);
    inverse.set(this.#inverse);
    this.#signs = signs;
    this.#codes = codes;
    this.#codeWords = new Int32Array(codes.buffer);
    this.#inverse = inverse;
    this.#slots = new Int32Array(capacity);
    this.#firstScores = new Int32Array(capacity);
    this.#capacity = capacity;
  }
}
