/**
 * The second look at the best candidates of a lexical search: where the query terms stand in each
 * one, read from its stored term sequence (see `_sequences.ts`), for a term-proximity bonus after
 * Büttcher, Clarke and Lushman, "Term proximity scoring for ad-hoc retrieval on very large text
 * collections" (SIGIR 2006): neighbouring occurrences of two different query terms, at distance d,
 * add idf / d² to each other's accumulator, which is then saturated like a BM25 term frequency.
 *
 * @module
 */

import { SequenceReader, type SequenceStore } from "./_sequences.ts";
import { grown } from "./_grow.ts";

/** Where the query terms stand in one note, ordered by position (ties: scan order). */
export interface TermHits {
  /** Term index (into the query's terms) of each occurrence. */
  terms: Int32Array;
  positions: Int32Array;
  count: number;
}

/**
 * Collects the occurrences of query terms in stored sequences, reusing its
 * buffers from one note to the next.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SequenceStore, SequenceWriter } from "./_sequences.ts";
 * import { HitCollector } from "./_proximity.ts";
 * const store = new SequenceStore();
 * const w = new SequenceWriter();
 * w.push(7, 0); // term 7 at position 0
 * w.push(8, 2); // term 8 at position 2
 * store.set(0, w, 2, 2);
 * const slot = Int32Array.from([-1, -1, -1, -1, -1, -1, -1, 0, -1]); // the query holds term 7 only
 * const hits = new HitCollector().collect(store, 0, slot);
 * assert.equal(hits.count, 1);
 * assert.equal(hits.terms[0], 0); // the query's term index 0
 * assert.equal(hits.positions[0], 0);
 * ```
 */
export class HitCollector {
  readonly #hits: TermHits = { terms: new Int32Array(64), positions: new Int32Array(64), count: 0 };
  readonly #reader = new SequenceReader();

  /**
   * The occurrences in the sequence of `doc` of the terms t for which `slot[t]` is not negative (t
   * beyond `slot` never are), as term indexes `slot[t]`. The result is reused by the next call.
   */
  collect(store: SequenceStore, doc: number, slot: Int32Array): TermHits {
    const hits = this.#hits;
    const reader = this.#reader;
    const limit = slot.length;
    let count = 0;
    store.open(doc, reader);
    while (reader.next()) {
      const t = reader.term;
      if (t >= limit) continue;
      const i = slot[t];
      if (i < 0) continue;
      if (count === hits.terms.length) this.#grow();
      // Insertion by position keeps scan order on ties; sequences are nearly sorted.
      const p = reader.position;
      const terms = hits.terms;
      const positions = hits.positions;
      let j = count++;
      while (j > 0 && positions[j - 1] > p) {
        positions[j] = positions[j - 1];
        terms[j] = terms[j - 1];
        j--;
      }
      positions[j] = p;
      terms[j] = i;
    }
    hits.count = count;
    return hits;
  }

  #grow(): void {
    const hits = this.#hits;
    const n = hits.terms.length * 2;
    hits.terms = grown(hits.terms, n);
    hits.positions = grown(hits.positions, n);
  }
}

/** Accumulators of {@linkcode proximityBonus}, reused (a search never nests). */
let accBuffer = new Float64Array(32);
let idfBuffer = new Float64Array(32);

/**
 * The proximity bonus of one note, per group: `min(1, idf_g) · acc_g (k1 + 1) / (acc_g + k1)`,
 * where `acc_g` sums `weight · idf / d²` of the nearest different query term on either side of each
 * occurrence of group g. `group[i]`, `idf[i]` and `weight[i]` describe term index i; occurrences of
 * the same group never pair. Returns one bonus per group, or `undefined` when every one is 0.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proximityBonus } from "./_proximity.ts";
 * const near = { terms: Int32Array.of(0, 1), positions: Int32Array.of(3, 4), count: 2 };
 * const far = { terms: Int32Array.of(0, 1), positions: Int32Array.of(3, 9), count: 2 };
 * const nearBonus = proximityBonus(near, [0, 1], [2, 2], [1, 1], 2, 1.2);
 * const farBonus = proximityBonus(far, [0, 1], [2, 2], [1, 1], 2, 1.2);
 * assert.ok(nearBonus && farBonus && nearBonus[0] > farBonus[0] && farBonus[0] > 0);
 * assert.equal(proximityBonus(near, [0, 0], [2, 2], [1, 1], 1, 1.2), undefined); // one group: no pair
 * ```
 */
export function proximityBonus(
  hits: TermHits,
  group: ArrayLike<number>,
  idf: ArrayLike<number>,
  weight: ArrayLike<number>,
  groupCount: number,
  k1: number,
): Float64Array | undefined {
  const n = hits.count;
  if (n < 2) return undefined;
  if (accBuffer.length < groupCount) {
    accBuffer = new Float64Array(groupCount);
    idfBuffer = new Float64Array(groupCount);
  }
  const acc = accBuffer;
  const groupIdf = idfBuffer;
  acc.fill(0, 0, groupCount);
  groupIdf.fill(0, 0, groupCount);
  const terms = hits.terms;
  const positions = hits.positions;
  let paired = false;
  for (let j = 1; j < n; j++) {
    const a = terms[j - 1];
    const b = terms[j];
    const ga = group[a];
    const gb = group[b];
    if (ga === gb) continue;
    const d = positions[j] - positions[j - 1];
    if (d <= 0) continue;
    const d2 = d * d;
    acc[ga] += weight[b] * idf[b] / d2;
    acc[gb] += weight[a] * idf[a] / d2;
    groupIdf[ga] = Math.max(groupIdf[ga], weight[a] * idf[a]);
    groupIdf[gb] = Math.max(groupIdf[gb], weight[b] * idf[b]);
    paired = true;
  }
  if (!paired) return undefined;
  const bonus = new Float64Array(groupCount);
  for (let g = 0; g < groupCount; g++) {
    if (acc[g] > 0) bonus[g] = Math.min(1, groupIdf[g]) * acc[g] * (k1 + 1) / (acc[g] + k1);
  }
  return bonus;
}
