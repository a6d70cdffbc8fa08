/**
 * Pseudo-relevance feedback (Rocchio, 1971; in the form of the relevance
 * model of Lavrenko and Croft, 2001): the best few notes of a first BM25 pass
 * are taken as relevant, and the terms that weigh most in them, by
 * `Σ_notes (score / best score) · tf / length`, times idf, are added to the
 * query at a lower weight. Notes that say the same thing in other words then
 * rise. The added terms only re-rank notes that already match the query; they
 * never bring in a note that matches none of its words.
 *
 * A note's terms are read from its stored sequence (see `_sequences.ts`): the
 * title, the terms of the body that start in its first `MAX_FEEDBACK_CHARS`
 * characters, and the labels.
 *
 * @module
 */

import { SequenceReader, type SequenceStore } from "./_sequences.ts";

/** One added query term. */
export interface FeedbackTerm {
  /** Term id. */
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
 * import { SequenceStore, SequenceWriter } from "./_sequences.ts";
 * import { Feedback } from "./_feedback.ts";
 * const store = new SequenceStore();
 * const w = new SequenceWriter();
 * for (const [t, p] of [[0, 0], [1, 1], [2, 2]]) w.push(t, p);
 * store.set(0, w, 3, 3);
 * const picked = new Feedback().terms(store, [{ doc: 0, score: 1 }], () => false, () => 2, 10, { terms: 2, weight: 0.5 });
 * console.log(picked.length); // 2
 * ```
 */
export class Feedback {
  #mass = new Float64Array(0);
  #count = new Int32Array(0);
  #stamp = new Int32Array(0);
  #seen = new Int32Array(0);
  #generation = 0;
  #distinct: Int32Array = new Int32Array(256);
  #all: Int32Array = new Int32Array(1024);
  readonly #reader = new SequenceReader();

  /**
   * The feedback terms of the first-pass notes `top` (best first, with their
   * scores), leaving out those for which `exclude` is true. `df` gives a
   * term's document frequency among `n` notes.
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
    const reader = this.#reader;
    if (this.#generation > 0x3fff0000) {
      this.#generation = 0;
      this.#stamp.fill(0);
      this.#seen.fill(0);
    }
    const noteGen = ++this.#generation; // the query's terms: #seen; each note's: #stamp
    let allCount = 0;
    for (const { doc, score } of top) {
      const gen = ++this.#generation;
      let distinct = 0;
      let length = 0;
      const head = store.feedbackHead[doc];
      const tail = store.feedbackTail[doc];
      store.open(doc, reader);
      while (reader.next()) {
        const i = reader.index;
        if (i >= head && i < tail) continue;
        const t = reader.term;
        if (t >= this.#stamp.length) this.#reserve(t + 1);
        length++;
        if (this.#stamp[t] !== gen) {
          this.#stamp[t] = gen;
          this.#count[t] = 0;
          if (distinct === this.#distinct.length) this.#distinct = grow(this.#distinct);
          this.#distinct[distinct++] = t;
        }
        this.#count[t]++;
      }
      if (length === 0) continue;
      const w = score / best / length;
      for (let k = 0; k < distinct; k++) {
        const t = this.#distinct[k];
        if (this.#seen[t] !== noteGen) {
          this.#seen[t] = noteGen;
          this.#mass[t] = 0;
          if (allCount === this.#all.length) this.#all = grow(this.#all);
          this.#all[allCount++] = t;
        }
        this.#mass[t] += w * this.#count[t];
      }
    }
    // The best `options.terms` by value (ties: lower id), kept sorted.
    const k = options.terms;
    const ids: number[] = [];
    const values: number[] = [];
    // idf is highest for a term of two notes: a bound that spares most logarithms.
    const maxIdf = Math.log(1 + (n - 2 + 0.5) / (2 + 0.5));
    for (let a = 0; a < allCount; a++) {
      const id = this.#all[a];
      const m = this.#mass[id];
      if (ids.length === k && m * maxIdf < values[k - 1]) continue;
      const f = df(id);
      if (f <= 1 || exclude(id)) continue; // a term of one note cannot lead to another
      const value = m * Math.log(1 + (n - f + 0.5) / (f + 0.5));
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

  #reserve(terms: number): void {
    let n = Math.max(1024, this.#stamp.length);
    while (n < terms) n *= 2;
    const mass = new Float64Array(n);
    mass.set(this.#mass);
    this.#mass = mass;
    const count = new Int32Array(n);
    count.set(this.#count);
    this.#count = count;
    const stamp = new Int32Array(n);
    stamp.set(this.#stamp);
    this.#stamp = stamp;
    const seen = new Int32Array(n);
    seen.set(this.#seen);
    this.#seen = seen;
  }
}

function grow(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
