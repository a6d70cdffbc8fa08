/**
 * Scoring of the lexical index: BM25F over title, body and labels.
 *
 * For a query term t with weight w (1, or less for a prefix completion or a feedback term), a note
 * scores `w · idf(t) · (δ + x (k1 + 1) / (k1 + x))`, where `x = Σ_field weight_field · tf_field /
 * (1 − b + b · length_field / average_field)` (labels are not length-normalised), `idf(t) = ln(1 +
 * (N − df + 0.5) / (df + 0.5))` from the live document frequencies at query time, and δ is the
 * BM25+ lower bound. A {@linkcode Pass} adds these scores up over the postings; `_search.ts` runs
 * the passes of one search, with pseudo-relevance feedback and a term-proximity re-rank.
 *
 * @module
 */

import { Feedback } from "./_feedback.ts";
import type { IndexView } from "./_index_types.ts";
import type { Note } from "../../notes/note.ts";
import { HitCollector } from "./_proximity.ts";
import { TopK } from "./_topk.ts";

/** Per-index buffers reused by every search. */
export interface Scratch {
  score: Float64Array;
  stamp: Int32Array;
  mask: Int32Array;
  touched: Int32Array;
  query: number;
  /** Per term id: its index among the query's terms while a re-rank runs, else -1. */
  slot: Int32Array;
  hits: HitCollector;
  feedback: Feedback;
}

const scratches = new WeakMap<IndexView, Scratch>();

function scratchFor(index: IndexView): Scratch {
  const n = index.docCount;
  let s = scratches.get(index);
  if (!s || s.score.length < n || s.query === 0x7fffffff) {
    const size = Math.max(1024, n + (n >> 1));
    s = {
      score: new Float64Array(size),
      stamp: new Int32Array(size),
      mask: new Int32Array(size),
      touched: new Int32Array(size),
      query: 0,
      slot: s?.slot ?? new Int32Array(0),
      hits: s?.hits ?? new HitCollector(),
      feedback: s?.feedback ?? new Feedback(),
    };
    scratches.set(index, s);
  }
  const terms = index.dict.size;
  if (s.slot.length < terms) {
    s.slot = new Int32Array(Math.max(1024, terms + (terms >> 1))).fill(-1);
  }
  return s;
}

/**
 * Inverse document frequency of a term held by `df` of `n` notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { idf } from "./_bm25.ts";
 * assert.ok(idf(1, 100) > idf(50, 100)); // a rarer term weighs more
 * assert.ok(idf(100, 100) > 0); // never negative
 * ```
 */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * One search in progress: the scores, and the query-word masks, of the notes matched so far, in
 * buffers reused from one search of an index to the next.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "./lexical.ts";
 * import { Pass } from "./_bm25.ts";
 * const index = new Bm25Index();
 * index.add({ id: "a", title: "Deploys", body: "make deploy", labels: [], hash: "", created: "", updated: "" });
 * index.add({ id: "b", title: "Keys", body: "rotate keys", labels: [], hash: "", created: "", updated: "" });
 * index.flush();
 * const pass = new Pass(index);
 * pass.score([[index.dict.termId("deploy"), 1, 1]], true); // [term id, weight, query-word bit]
 * const ranked = pass.select(10, undefined);
 * assert.deepEqual(ranked.map((r) => index.notes[r.doc]?.id), ["a"]);
 * assert.equal(pass.scratch.mask[ranked[0].doc], 1);
 * ```
 */
export class Pass {
  touchedCount = 0;
  readonly scratch: Scratch;
  readonly q: number;
  readonly n: number;
  readonly invTitle: number;
  readonly invBody: number;

  constructor(readonly index: IndexView) {
    this.scratch = scratchFor(index);
    this.q = ++this.scratch.query;
    this.n = index.size;
    this.invTitle = index.totals.title > 0 ? this.n / index.totals.title : 0;
    this.invBody = index.totals.body > 0 ? this.n / index.totals.body : 0;
  }

  /** Field parts x of the BM25F formula for one posting, in `out` (title, body, labels). */
  parts(doc: number, packed: number, out: Float64Array): number {
    const o = this.index.options;
    const b = o.b;
    const w = o.fieldWeights;
    const tb = packed & 0xffff;
    const tt = (packed >>> 16) & 0xff;
    const tl = packed >>> 24;
    out[0] = tt === 0
      ? 0
      : w.title * tt / (1 - b + b * this.index.lengths.title[doc] * this.invTitle);
    out[1] = tb === 0 ? 0 : w.body * tb / (1 - b + b * this.index.lengths.body[doc] * this.invBody);
    out[2] = w.labels * tl;
    return out[0] + out[1] + out[2];
  }

  /**
   * Adds `weight · idf · (δ + saturated x)` of each term to every live note holding it (only to
   * notes already matched, unless `widen`), or'ing the term's group bit into their mask. `terms`
   * are `[id, weight, bit]` triples.
   */
  score(terms: readonly (readonly [number, number, number])[], widen: boolean): void {
    const postings = this.index.postings;
    let sorted: Int32Array | undefined;
    for (const [id, weight, bit] of terms) {
      if (id >= postings.frozenTerms) continue;
      const from = 2 * postings.offsets[id];
      const to = 2 * postings.offsets[id + 1];
      const w = weight * idf(this.index.df[id], this.n);
      // Re-weighting a few matched notes: look them up in a long list instead of reading it all.
      if (!widen && (to - from) >> 4 > this.touchedCount) {
        sorted ??= this.#sortedTouched();
        this.#scoreSeek(postings.entries, from, to, sorted, w, bit);
      } else this.#scoreRange(postings.entries, from, to, 2, w, bit, widen);
    }
    if (postings.pendingCount === 0) return;
    // The pending log: one scan for all the terms, each pair's term looked up in `slot` (a
    // term's index among `terms`; the last one listed wins, as a term listed twice did before).
    const slot = this.scratch.slot;
    const weights = new Float64Array(terms.length);
    terms.forEach(([id, weight], i) => {
      weights[i] = weight * idf(this.index.df[id], this.n);
      slot[id] = i;
    });
    const pair = new Int32Array(2);
    try {
      postings.forEachPendingOf(slot, (log, at, doc, i) => {
        pair[0] = doc;
        pair[1] = log[at + 1];
        this.#scoreRange(pair, 0, 2, 2, weights[i], terms[i][2], widen);
      });
    } finally {
      for (const [id] of terms) slot[id] = -1;
    }
  }

  /** The matched docs, ascending. */
  #sortedTouched(): Int32Array {
    return this.scratch.touched.slice(0, this.touchedCount).sort();
  }

  /** x of the BM25F formula for a posting's packed tf in doc `d`. */
  #x(packed: number, d: number): number {
    const o = this.index.options;
    const b = o.b;
    const w = o.fieldWeights;
    const tb = packed & 0xffff;
    const tt = (packed >>> 16) & 0xff;
    const tl = packed >>> 24;
    let x = 0;
    if (tb !== 0) x += w.body * tb / (1 - b + b * this.index.lengths.body[d] * this.invBody);
    if (tt !== 0) x += w.title * tt / (1 - b + b * this.index.lengths.title[d] * this.invTitle);
    if (tl !== 0) x += w.labels * tl;
    return x;
  }

  /**
   * Scores the postings `(doc, tf)` in `data[from, to)` (docs ascending) of the docs of `docs`
   * (ascending, all matched), by exponential search.
   */
  #scoreSeek(
    data: Int32Array,
    from: number,
    to: number,
    docs: Int32Array,
    w: number,
    bit: number,
  ): void {
    const o = this.index.options;
    const k1 = o.k1;
    const delta = o.delta;
    const notes = this.index.notes;
    const live = this.index.deadPostings === 0;
    const { score, mask } = this.scratch;
    let lo = from >> 1; // in pairs
    const end = to >> 1;
    for (let i = 0; i < docs.length && lo < end; i++) {
      const d = docs[i];
      // Gallop to the first pair at or after d, then search between.
      let step = 1;
      let hi = lo;
      while (hi < end && data[2 * hi] < d) {
        lo = hi + 1;
        hi += step;
        step *= 2;
      }
      if (hi > end) hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (data[2 * mid] < d) lo = mid + 1;
        else hi = mid;
      }
      if (lo === end || data[2 * lo] !== d) continue;
      if (!live && notes[d] === undefined) continue;
      const x = this.#x(data[2 * lo + 1], d);
      score[d] += w * (delta + x * (k1 + 1) / (k1 + x));
      mask[d] |= bit;
      lo++;
    }
  }

  /** Scores the `(doc, tf)` pairs at `from`, `from + step`, … below `to` of `data`. */
  #scoreRange(
    data: Int32Array,
    from: number,
    to: number,
    step: number,
    w: number,
    bit: number,
    widen: boolean,
  ): void {
    const index = this.index;
    const o = index.options;
    if (o.b === 0 && index.deadPostings === 0) {
      this.#scoreRangeFlat(data, from, to, step, w, bit, widen);
      return;
    }
    const k1 = o.k1;
    const b = o.b;
    const delta = o.delta;
    const wTitle = o.fieldWeights.title;
    const wBody = o.fieldWeights.body;
    const wLabels = o.fieldWeights.labels;
    const lenTitle = index.lengths.title;
    const lenBody = index.lengths.body;
    const invTitle = this.invTitle;
    const invBody = this.invBody;
    const notes = index.notes;
    const { score, stamp, mask, touched } = this.scratch;
    const q = this.q;
    let count = this.touchedCount;
    for (let p = from; p < to; p += step) {
      const d = data[p];
      if (notes[d] === undefined) continue;
      const known = stamp[d] === q;
      if (!known && !widen) continue;
      const packed = data[p + 1];
      const tb = packed & 0xffff;
      const tt = (packed >>> 16) & 0xff;
      const tl = packed >>> 24;
      let x = 0;
      if (tb !== 0) x += wBody * tb / (1 - b + b * lenBody[d] * invBody);
      if (tt !== 0) x += wTitle * tt / (1 - b + b * lenTitle[d] * invTitle);
      if (tl !== 0) x += wLabels * tl;
      const s = w * (delta + x * (k1 + 1) / (k1 + x));
      if (known) {
        score[d] += s;
        mask[d] |= bit;
      } else {
        stamp[d] = q;
        score[d] = s;
        mask[d] = bit;
        touched[count++] = d;
      }
    }
    this.touchedCount = count;
  }

  /**
   * {@linkcode Pass.#scoreRange} with no length normalisation (b = 0) and no removed note: x
   * depends on the packed tf alone. Sums in the same order.
   */
  #scoreRangeFlat(
    data: Int32Array,
    from: number,
    to: number,
    step: number,
    w: number,
    bit: number,
    widen: boolean,
  ): void {
    const o = this.index.options;
    const k1 = o.k1;
    const k1p = k1 + 1;
    const delta = o.delta;
    const wTitle = o.fieldWeights.title;
    const wBody = o.fieldWeights.body;
    const wLabels = o.fieldWeights.labels;
    const { score, stamp, mask, touched } = this.scratch;
    const q = this.q;
    let count = this.touchedCount;
    for (let p = from; p < to; p += step) {
      const d = data[p];
      const known = stamp[d] === q;
      if (!known && !widen) continue;
      const packed = data[p + 1];
      const x = wBody * (packed & 0xffff) + wTitle * ((packed >>> 16) & 0xff) +
        wLabels * (packed >>> 24);
      const s = w * (delta + x * k1p / (k1 + x));
      if (known) {
        score[d] += s;
        mask[d] |= bit;
      } else {
        stamp[d] = q;
        score[d] = s;
        mask[d] = bit;
        touched[count++] = d;
      }
    }
    this.touchedCount = count;
  }

  /**
   * The `depth` best notes that pass `filter` (and `noteFilter`, given the note), best first;
   * `docCheck` first drops (negative) or keeps (positive) a note without asking them.
   */
  select(
    depth: number,
    filter: ((id: string) => boolean) | undefined,
    noteFilter?: (note: Note) => boolean,
    docCheck?: (notes: readonly (Note | undefined)[], doc: number) => number,
  ): Ranked[] {
    const top = new TopK(depth);
    const { score, touched } = this.scratch;
    const notes = this.index.notes;
    let full = depth <= 0;
    let worst = Infinity;
    let worstDoc = -1;
    for (let i = 0; i < this.touchedCount; i++) {
      const d = touched[i];
      const s = score[d];
      if (full && (s < worst || (s === worst && d > worstDoc))) continue;
      const quick = docCheck ? docCheck(notes, d) : 0;
      if (quick < 0) continue;
      if (quick === 0) {
        if (filter && !filter(notes[d]!.id)) continue;
        if (noteFilter && !noteFilter(notes[d]!)) continue;
      }
      top.offer(s, d);
      if (top.size === depth) {
        full = true;
        worst = top.worstScore;
        worstDoc = top.worstDoc;
      }
    }
    return top.sorted();
  }
}

/** A note in the ranking: its doc number, its score and its proximity bonus per query word. */
export interface Ranked {
  doc: number;
  /** Score (with the bonus, once re-ranked). */
  score: number;
  /** Proximity bonus of each query word, once re-ranked. */
  bonus?: Float64Array;
}
