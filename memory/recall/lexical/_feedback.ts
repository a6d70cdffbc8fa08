/**
 * Pseudo-relevance feedback (Rocchio, 1971; in the form of the relevance model of Lavrenko and
 * Croft, 2001): the best few notes of a first BM25 pass are taken as relevant, and the terms that
 * weigh most in them, by `Σ_notes (score / best score) · tf / length`, times idf, are added to the
 * query at a lower weight. Notes that say the same thing in other words then rise. The added terms
 * only re-rank notes that already match the query; they never bring in a note that matches none of
 * its words.
 *
 * A note's terms are read from its stored sequence (see `_sequences.ts`): the title, the terms of
 * the body that start in its first `MAX_FEEDBACK_CHARS` characters, and the labels.
 *
 * @module
 */

import type { SequenceStore } from "./_sequences.ts";

export interface FeedbackTerm {
  id: number;
  /** Its weight relative to a query word (at most the feedback weight). */
  weight: number;
}

/**
 * Chooses feedback terms, reusing per-term buffers (sized to the dictionary)
 * from one search to the next.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SequenceStore, SequenceWriter } from "./_sequences.ts";
 * import { Feedback } from "./_feedback.ts";
 * const store = new SequenceStore();
 * const w = new SequenceWriter();
 * for (const [t, p] of [[0, 0], [1, 1], [2, 2]]) w.push(t, p); // doc 0 holds terms 0, 1 and 2
 * store.set(0, w, 3, 3);
 * const feedback = new Feedback();
 * const top = [{ doc: 0, score: 1 }];
 * const picked = feedback.terms(store, top, () => false, () => 2, 10, { terms: 2, weight: 0.5 });
 * assert.deepEqual(picked, [{ id: 0, weight: 0.5 }, { id: 1, weight: 0.5 }]);
 * const others = feedback.terms(store, top, (id) => id === 0, () => 2, 10, { terms: 5, weight: 0.5 });
 * assert.deepEqual(others.map((t) => t.id), [1, 2]); // term 0 (a query term) left out
 * ```
 */
export class Feedback {
  // A small hash table of the terms of the first-pass notes (it stays in cache
  // where arrays over the whole dictionary would not): term, count in the
  // current note, mass.
  #keys = new Int32Array(0);
  #counts = new Int32Array(0);
  #mass = new Float64Array(0);
  /** Slots in the order their terms were first seen; then the current note's slots. */
  #all = new Int32Array(0);
  #distinct = new Int32Array(0);

  /**
   * The feedback terms of the first-pass notes `top` (best first, with their scores), leaving out
   * those for which `exclude` is true. `df` gives a term's document frequency among `n` notes.
   */
  terms(
    store: SequenceStore,
    top: readonly { doc: number; score: number }[],
    exclude: (id: number) => boolean,
    df: (id: number) => number,
    n: number,
    options: { terms: number; weight: number },
  ): FeedbackTerm[] {
    if (top.length === 0 || options.terms <= 0 || options.weight <= 0) return [];
    const best = top[0].score;
    if (!(best > 0)) return [];
    let total = 0;
    for (const { doc } of top) if (store.has(doc)) total += store.end[doc] - store.start[doc];
    let size = 64;
    let shift = 26; // 32 − log2(size): the slot is the hash's top bits
    while (size < 2 * total) {
      size *= 2;
      shift--;
    }
    if (this.#keys.length < size) {
      this.#keys = new Int32Array(size);
      this.#counts = new Int32Array(size);
      this.#mass = new Float64Array(size);
      this.#all = new Int32Array(size);
      this.#distinct = new Int32Array(size);
    }
    const keys = this.#keys;
    const counts = this.#counts;
    const mass = this.#mass;
    const all = this.#all;
    const distinctSlots = this.#distinct;
    keys.fill(-1, 0, size);
    const mask = size - 1;
    let allCount = 0;
    for (const { doc, score } of top) {
      if (!store.has(doc)) continue;
      let distinct = 0;
      let length = 0;
      const head = store.feedbackHead[doc];
      const tail = store.feedbackTail[doc];
      // The sequence, decoded inline (see SequenceReader): only terms are needed.
      const data = store.chunks[store.chunk[doc]];
      const end = store.end[doc];
      for (let at = store.start[doc], i = 0; at < end; i++) {
        const e = data[at];
        let t: number;
        if (e >= 0) {
          t = e >>> 8;
          at++;
        } else {
          t = data[at + 1];
          at += 3;
        }
        if (i >= head && i < tail) continue;
        length++;
        let slot = Math.imul(t, 0x9e3779b1) >>> shift;
        for (;;) {
          const key = keys[slot];
          if (key === t) break;
          if (key === -1) {
            keys[slot] = t;
            counts[slot] = 0;
            mass[slot] = 0;
            all[allCount++] = slot;
            break;
          }
          slot = (slot + 1) & mask;
        }
        if (counts[slot]++ === 0) distinctSlots[distinct++] = slot;
      }
      if (length === 0) continue;
      const w = score / best / length;
      for (let k = 0; k < distinct; k++) {
        const slot = distinctSlots[k];
        mass[slot] += w * counts[slot];
        counts[slot] = 0;
      }
    }
    // The best `options.terms` by value (ties: lower id), kept sorted.
    const k = options.terms;
    const ids: number[] = [];
    const values: number[] = [];
    // idf is highest for a term of two notes: a bound that spares most logarithms.
    const maxIdf = Math.log(1 + (n - 2 + 0.5) / (2 + 0.5));
    for (let a = 0; a < allCount; a++) {
      const slot = all[a];
      const id = keys[slot];
      const m = mass[slot];
      if (ids.length === k && m * maxIdf < values[k - 1]) continue;
      const f = df(id);
      if (f <= 1 || exclude(id)) continue; // a term of one note cannot lead to another
      const ratio = (n - f + 0.5) / (f + 0.5);
      // ln(1 + r) ≤ r (with room for rounding): most terms are dropped before the logarithm.
      if (ids.length === k && m * ratio * (1 + 1e-6) < values[k - 1]) continue;
      const value = m * Math.log(1 + ratio);
      let j = ids.length;
      if (j === k) {
        if (!(value > values[k - 1] || (value === values[k - 1] && id < ids[k - 1]))) continue;
        j--;
      } else {
        ids.push(0);
        values.push(0);
      }
      while (j > 0 && (values[j - 1] < value || (values[j - 1] === value && ids[j - 1] > id))) {
        ids[j] = ids[j - 1];
        values[j] = values[j - 1];
        j--;
      }
      ids[j] = id;
      values[j] = value;
    }
    if (ids.length === 0) return [];
    const max = values[0];
    return ids.map((id, i) => ({ id, weight: options.weight * values[i] / max }));
  }
}
