/**
 * Internal: the term ids of a dictionary by their first two characters, for prefix matches.
 * Each bucket is kept sorted by term (sorted lazily, when searched), so a prefix of two
 * characters or more costs a binary search plus its matches.
 *
 * @module
 */

/** The term ids of one prefix bucket: sorted by term up to `sorted`, then as added. */
interface Bucket {
  ids: number[];
  sorted: number;
}

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
