/**
 * One search of the lexical index: the query is parsed (`_query.ts`) and scored by BM25F
 * (`_bm25.ts`), then re-ranked by feedback (`_feedback.ts`, over the best `feedbackDocs` notes)
 * and proximity (`_proximity.ts`, over the best `rerankDepth`); hits are explained on request.
 *
 * @module
 */

import { idf, Pass, type Ranked, type Scratch } from "./_bm25.ts";
import type { IndexView } from "./_index_types.ts";
import { proximityBonus } from "./_proximity.ts";
import { parseQuery, type QueryTerm } from "./_query.ts";
import type { LexicalHit, LexicalSearchOptions, ScoreContribution } from "../types.ts";

/**
 * Runs one search on an index (what `Bm25Index.search` in `lexical.ts` does).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "./lexical.ts";
 * import { searchIndex } from "./_search.ts";
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
    maxPrefixTerms: options.plain ? 0 : o.maxPrefixTerms, // plain: the words as they are
    df: (id) => df[id],
  });
  const least = Math.max(1, options.minNotes ?? 1);
  let terms = parsed.terms.filter((t) => df[t.id] >= least);
  if (terms.length === 0) return [];
  const most = options.maxTerms;
  if (most !== undefined && most >= 1 && terms.length > most) {
    terms = [...terms].sort((a, b) => df[a.id] - df[b.id]).slice(0, most);
  }

  index.prepareSearch();
  const pass = new Pass(index);
  pass.score(terms.map((t) => [t.id, t.weight, 1 << t.group] as const), true);

  let feedback: QueryTerm[] = [];
  if (!options.plain && o.feedbackDocs > 0 && o.feedbackTerms > 0 && o.feedbackWeight > 0) {
    const first = pass.select(
      o.feedbackDocs,
      options.filter,
      options.noteFilter,
      options.docCheck,
    );
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

  const proximity = !options.plain && o.proximityWeight > 0 && parsed.groups.length > 1;
  let ranked = pass.select(
    proximity ? Math.max(limit, o.rerankDepth) : limit,
    options.filter,
    options.noteFilter,
    options.docCheck,
  );
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
