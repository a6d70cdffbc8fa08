/**
 * Scoring of the lexical index: BM25F over title, body and labels, refined by
 * pseudo-relevance feedback and a term-proximity re-rank.
 *
 * For a query term t with weight w (1, or less for a prefix completion or a
 * feedback term), a note scores `w · idf(t) · (δ + x (k1 + 1) / (k1 + x))`,
 * where `x = Σ_field weight_field · tf_field / (1 − b + b · length_field /
 * average_field)` (labels are not length-normalised),
 * `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))` from the live document
 * frequencies at query time, and δ is the BM25+ lower bound. Then:
 *
 * 1. feedback (`_feedback.ts`): terms of the best `feedbackDocs` notes re-weight
 *    the notes that matched;
 * 2. proximity (`_proximity.ts`): the best `rerankDepth` notes get a bonus for
 *    query words found close together.
 *
 * @module
 */

import { Feedback } from "./_feedback.ts";
import type { IndexView } from "./_index_types.ts";
import { HitCollector, proximityBonus } from "./_proximity.ts";
import { parseQuery, type QueryTerm } from "./_query.ts";
import { TopK } from "./_topk.ts";
import type { LexicalHit, LexicalSearchOptions, ScoreContribution } from "./types.ts";

/** Per-index buffers reused by every search. */
interface Scratch {
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

/** One search in progress. */
class Pass {
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
   * Adds `weight · idf · (δ + saturated x)` of each term to every live note
   * holding it (only to notes already matched, unless `widen`), or'ing the
   * term's group bit into their mask. `terms` are `[id, weight, bit]` triples.
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
    // The pending log: one scan for all the terms.
    const wanted = new Map<number, [number, number]>();
    for (const [id, weight, bit] of terms) {
      wanted.set(id, [weight * idf(this.index.df[id], this.n), bit]);
    }
    const pair = new Int32Array(2);
    postings.forEachPending((log, at, doc) => {
      const w = wanted.get(log[at]);
      if (w === undefined) return;
      pair[0] = doc;
      pair[1] = log[at + 1];
      this.#scoreRange(pair, 0, 2, 2, w[0], w[1], widen);
    });
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
   * Scores the postings `(doc, tf)` in `data[from, to)` (docs ascending) of
   * the docs of `docs` (ascending, all matched), by exponential search.
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
   * {@linkcode Pass.#scoreRange} with no length normalisation (b = 0) and no
   * removed note: x depends on the packed tf alone. Sums in the same order.
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

  /** The `depth` best notes that pass `filter`, best first. */
  select(depth: number, filter: ((id: string) => boolean) | undefined): Ranked[] {
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
      if (filter && !filter(notes[d]!.id)) continue;
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

interface Ranked {
  doc: number;
  score: number;
  bonus?: Float64Array;
}

/**
 * Runs one search on an index (what `Bm25Index.search` in `lexical.ts` does).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "./lexical.ts";
 * import { searchIndex } from "./_bm25.ts";
 * const index = new Bm25Index();
 * index.add({ id: "a", title: "t", body: "deploy with make", labels: [], hash: "", created: "", updated: "" });
 * const hits = searchIndex(index, "deplo", { limit: 3 }); // the last word completes as a prefix
 * assert.equal(hits.length, 1);
 * assert.equal(hits[0].id, "a");
 * assert.deepEqual(searchIndex(index, "deplo", { limit: 0 }), []);
 * ```
 */
export function searchIndex(
  index: IndexView,
  query: string,
  options: LexicalSearchOptions,
): LexicalHit[] {
  const limit = Math.floor(options.limit);
  if (!(limit >= 1) || index.size === 0 || typeof query !== "string") return [];
  const o = index.options;
  const df = index.df;
  const parsed = parseQuery(query, index.dict, o.stopWords, {
    prefixWeight: o.prefixWeight,
    minPrefixLength: o.minPrefixLength,
    maxPrefixTerms: o.maxPrefixTerms,
    df: (id) => df[id],
  });
  const terms = parsed.terms.filter((t) => df[t.id] > 0);
  if (terms.length === 0) return [];

  index.prepareSearch();
  const pass = new Pass(index);
  pass.score(terms.map((t) => [t.id, t.weight, 1 << t.group] as const), true);

  let feedback: QueryTerm[] = [];
  if (o.feedbackDocs > 0 && o.feedbackTerms > 0 && o.feedbackWeight > 0) {
    const first = pass.select(o.feedbackDocs, options.filter);
    if (first.length > 0) {
      const slot = pass.scratch.slot;
      for (const t of terms) slot[t.id] = 0;
      const chosen = pass.scratch.feedback.terms(
        index.sequences,
        first,
        (id) => slot[id] >= 0,
        (id) => df[id],
        index.size,
        { terms: o.feedbackTerms, weight: o.feedbackWeight },
      );
      for (const t of terms) slot[t.id] = -1;
      feedback = chosen.map((f) => ({ id: f.id, group: -1, weight: f.weight, prefix: false }));
      pass.score(feedback.map((f) => [f.id, f.weight, 0] as const), false);
    }
  }

  const proximity = o.proximityWeight > 0 && parsed.groups.length > 1;
  let ranked = pass.select(proximity ? Math.max(limit, o.rerankDepth) : limit, options.filter);
  if (proximity) ranked = rerank(index, pass.scratch, ranked, terms, parsed.groups.length);
  ranked = ranked.slice(0, limit);

  const mask = pass.scratch.mask;
  const hits: LexicalHit[] = ranked.map((r) => {
    const matched: string[] = [];
    for (let g = 0; g < parsed.groups.length; g++) {
      if (mask[r.doc] & (1 << g)) matched.push(parsed.groups[g]);
    }
    return { id: index.notes[r.doc]!.id, score: r.score, matched };
  });
  if (options.explain) explain(pass, ranked, hits, [...terms, ...feedback], parsed.groups);
  return hits;
}

function rerank(
  index: IndexView,
  scratch: Scratch,
  ranked: Ranked[],
  terms: QueryTerm[],
  groups: number,
): Ranked[] {
  const o = index.options;
  const slot = scratch.slot;
  for (let i = terms.length - 1; i >= 0; i--) slot[terms[i].id] = i; // a term's first index
  const group = terms.map((t) => t.group);
  const weight = terms.map((t) => t.weight);
  const termIdf = terms.map((t) => idf(index.df[t.id], index.size));
  const mask = scratch.mask;
  for (const r of ranked) {
    const m = mask[r.doc];
    if ((m & (m - 1)) === 0) continue; // one query word: nothing to pair
    const hits = scratch.hits.collect(index.sequences, r.doc, slot);
    r.bonus = proximityBonus(hits, group, termIdf, weight, groups, o.k1);
    if (!r.bonus) continue;
    let sum = 0;
    for (const x of r.bonus) sum += x;
    r.score += o.proximityWeight * sum;
  }
  for (const t of terms) slot[t.id] = -1;
  return ranked.sort((a, b) => b.score - a.score || a.doc - b.doc);
}

const FIELDS = ["title", "body", "labels"];

function explain(
  pass: Pass,
  ranked: Ranked[],
  hits: LexicalHit[],
  terms: QueryTerm[],
  groups: string[],
): void {
  const index = pass.index;
  const o = index.options;
  const at = new Map<number, number>();
  ranked.forEach((r, i) => {
    at.set(r.doc, i);
    hits[i].explain = [];
  });
  const parts = new Float64Array(3);
  for (const term of terms) {
    const w = term.weight * idf(index.df[term.id], pass.n);
    const indexTerm = index.dict.term(term.id);
    const word = term.group >= 0 ? groups[term.group] : indexTerm;
    index.postings.forEach(term.id, (doc, packed) => {
      const i = at.get(doc);
      if (i === undefined || index.notes[doc] === undefined) return;
      const x = pass.parts(doc, packed, parts);
      const termScore = w * (o.delta + x * (o.k1 + 1) / (o.k1 + x));
      const add = (field: string, score: number) => {
        const entry: ScoreContribution = { term: word, field, score };
        if (indexTerm !== word) entry.indexTerm = indexTerm;
        hits[i].explain!.push(entry);
      };
      if (term.group < 0) add("feedback", termScore);
      else for (let f = 0; f < 3; f++) if (parts[f] > 0) add(FIELDS[f], termScore * parts[f] / x);
    });
  }
  ranked.forEach((r, i) => {
    r.bonus?.forEach((x, g) => {
      if (x > 0) {
        hits[i].explain!.push({
          term: groups[g],
          field: "proximity",
          score: o.proximityWeight * x,
        });
      }
    });
  });
}
