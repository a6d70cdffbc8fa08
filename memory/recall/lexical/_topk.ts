/**
 * Top-k selection: a bounded min-heap of (score, doc) pairs, so ranking n
 * candidates costs O(n log k) with no sort of all of them.
 *
 * @module
 */

/**
 * Keeps the k best (highest score; on a tie, lowest doc number) of the pairs offered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TopK } from "./_topk.ts";
 * const top = new TopK(2);
 * top.offer(1, 10); // score 1, doc 10
 * top.offer(3, 11);
 * top.offer(2, 12);
 * assert.deepEqual(top.sorted(), [{ score: 3, doc: 11 }, { score: 2, doc: 12 }]);
 * ```
 */
export class TopK {
  readonly k: number;
  #scores: Float64Array;
  #docs: Int32Array;
  #size = 0;

  constructor(k: number) {
    this.k = Math.max(0, Math.floor(k));
    this.#scores = new Float64Array(this.k);
    this.#docs = new Int32Array(this.k);
  }

  get size(): number {
    return this.#size;
  }

  /** Score of the worst pair kept (meaningful once `size` > 0). */
  get worstScore(): number {
    return this.#scores[0];
  }

  /** Doc of the worst pair kept (meaningful once `size` > 0). */
  get worstDoc(): number {
    return this.#docs[0];
  }

  /** Whether a pair with this score and doc would be kept now. */
  accepts(score: number, doc: number): boolean {
    if (this.#size < this.k) return true;
    if (this.k === 0) return false;
    return better(score, doc, this.#scores[0], this.#docs[0]);
  }

  /** Offers a pair; keeps it if it is among the k best so far. */
  offer(score: number, doc: number): void {
    const scores = this.#scores;
    const docs = this.#docs;
    if (this.#size < this.k) {
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!better(scores[parent], docs[parent], score, doc)) break;
        scores[i] = scores[parent];
        docs[i] = docs[parent];
        i = parent;
      }
      scores[i] = score;
      docs[i] = doc;
      return;
    }
    if (!this.accepts(score, doc)) return;
    // Replace the root (the worst) and sift down.
    const n = this.#size;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const worst = r < n && better(scores[l], docs[l], scores[r], docs[r]) ? r : l;
      if (!better(score, doc, scores[worst], docs[worst])) break;
      scores[i] = scores[worst];
      docs[i] = docs[worst];
      i = worst;
    }
    scores[i] = score;
    docs[i] = doc;
  }

  /** The pairs kept, best first. */
  sorted(): { score: number; doc: number }[] {
    const out: { score: number; doc: number }[] = [];
    for (let i = 0; i < this.#size; i++) out.push({ score: this.#scores[i], doc: this.#docs[i] });
    return out.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }
}

/** Whether (s1, d1) ranks above (s2, d2). */
function better(s1: number, d1: number, s2: number, d2: number): boolean {
  return s1 > s2 || (s1 === s2 && d1 < d2);
}
