/**
 * Internal: the term ids of a dictionary by their first two characters, for prefix matches.
 * Each bucket is kept sorted by term (sorted lazily, when searched), so a prefix of two
 * characters or more costs a binary search plus its matches.
 *
 * The buckets of a dictionary taken from a snapshot are filled when they are first searched
 * ({@linkcode PrefixBuckets.deferred}): a bucket by a scan of the terms' first two characters
 * (a fraction of a ms for 100,000 terms), all of them at the {@linkcode FILLS_BEFORE_ALL}th such
 * scan or at a one-character prefix, so that a cold load's first recall does not bucket every term.
 *
 * @module
 */

/** The term ids of one prefix bucket: sorted by term up to `sorted`, then as added. */
interface Bucket {
  ids: number[];
  sorted: number;
}

/** Buckets filled one by one by a scan before all of them are filled at once (see the module doc). */
export const FILLS_BEFORE_ALL = 32;

/** Key of the prefix bucket of a term: its first two UTF-16 units. */
function bucketKey(term: string): number {
  return term.charCodeAt(0) * 65536 + (term.length > 1 ? term.charCodeAt(1) : 0);
}

/**
 * Term ids bucketed by their first two characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PrefixBuckets } from "./_prefixes.ts";
 * const terms = ["deploy", "debug", "deps", "lunch"];
 * const prefixes = new PrefixBuckets();
 * terms.forEach((term, id) => prefixes.add(id, term));
 * assert.deepEqual(prefixes.withPrefix("dep", terms).sort(), [0, 2]);
 * assert.deepEqual(prefixes.withPrefix("d", terms).sort(), [0, 1, 2]);
 * ```
 */
export class PrefixBuckets {
  #buckets = new Map<number, Bucket>();
  /** Terms `0 … #deferred − 1` are not in the buckets, but in those of `#filled`. */
  #deferred = 0;
  #filled = new Set<number>();

  /**
   * Buckets that take in the terms `0 … count − 1` (`terms` of {@linkcode withPrefix}) when they
   * are searched, not now (see the module doc); terms added after go in at once.
   */
  static deferred(count: number): PrefixBuckets {
    const buckets = new PrefixBuckets();
    buckets.#deferred = count;
    return buckets;
  }

  add(id: number, term: string): void {
    const key = bucketKey(term);
    const bucket = this.#buckets.get(key);
    if (bucket) bucket.ids.push(id);
    else this.#buckets.set(key, { ids: [id], sorted: 1 });
  }

  /** Ids of the terms (`terms[id]` is the text) that start with `prefix`, in no particular order. */
  withPrefix(prefix: string, terms: readonly string[]): number[] {
    const out: number[] = [];
    if (prefix.length === 0) return out;
    if (this.#deferred > 0) this.#fill(prefix.length >= 2 ? bucketKey(prefix) : -1, terms);
    if (prefix.length >= 2) {
      const bucket = this.#buckets.get(bucketKey(prefix));
      if (bucket) collect(bucket, terms, prefix, out);
      return out;
    }
    const first = prefix.charCodeAt(0);
    for (const [key, bucket] of this.#buckets) {
      if (Math.floor(key / 65536) === first) collect(bucket, terms, prefix, out);
    }
    return out;
  }

  /** Puts the deferred terms of bucket `key` in it (every bucket's: `key` −1, or enough scans). */
  #fill(key: number, terms: readonly string[]): void {
    const filled = this.#filled;
    if (key >= 0 && filled.has(key)) return;
    const count = this.#deferred;
    if (key < 0 || filled.size >= FILLS_BEFORE_ALL) {
      const added = new Map<number, number[]>();
      for (let id = 0; id < count; id++) {
        const k = bucketKey(terms[id]);
        if (filled.has(k)) continue;
        const ids = added.get(k);
        if (ids) ids.push(id);
        else added.set(k, [id]);
      }
      for (const [k, ids] of added) this.#merge(k, ids);
      this.#deferred = 0;
      this.#filled = new Set();
      return;
    }
    const ids: number[] = [];
    for (let id = 0; id < count; id++) if (bucketKey(terms[id]) === key) ids.push(id);
    if (ids.length) this.#merge(key, ids);
    filled.add(key);
  }

  /** Adds the deferred terms `ids` to bucket `key` (before the terms added since). */
  #merge(key: number, ids: number[]): void {
    const bucket = this.#buckets.get(key);
    if (!bucket) this.#buckets.set(key, { ids, sorted: 0 });
    else {
      bucket.ids = ids.concat(bucket.ids);
      bucket.sorted = 0;
    }
  }
}

/** Appends the ids of `bucket` whose terms start with `prefix` to `out`. */
function collect(bucket: Bucket, terms: readonly string[], prefix: string, out: number[]): void {
  const ids = bucket.ids;
  if (bucket.sorted < ids.length) {
    ids.sort((a, b) => (terms[a] < terms[b] ? -1 : 1)); // terms are distinct
    bucket.sorted = ids.length;
  }
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (terms[ids[mid]] < prefix) lo = mid + 1;
    else hi = mid;
  }
  // The terms that start with the prefix follow; find their end the same way.
  const first = lo;
  hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (terms[ids[mid]].startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  for (let i = first; i < lo; i++) out.push(ids[i]);
}
