/**
 * Highlights of a recall hit: the spans of a note's title and body whose indexed form (folded,
 * split, stemmed) is one the hit matched. The matched terms are stems (`deploy` for the query
 * `deploys`), which a reader of the note cannot find in its text by itself; the tokenizer can,
 * since it cut the text into those terms in the first place.
 *
 * @module
 */

import { analyzeToken } from "./text/stemmer.ts";
import { ENGLISH_STOP_WORDS } from "./text/stopwords.ts";
import { tokenizeWithOffsets } from "./text/tokenizer.ts";
import type { Highlight, ScoreContribution } from "./types.ts";

/**
 * Options of {@linkcode highlightsOf}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { highlightsOf, type HighlightOptions } from "@memo/memory";
 * const options: HighlightOptions = { stopWords: new Set() };
 * assert.equal(highlightsOf({ title: "The plan", body: "" }, ["the"], options).length, 1);
 * ```
 */
export interface HighlightOptions {
  /**
   * The stop words of the index the terms come from; they are never highlighted.
   * @default {ENGLISH_STOP_WORDS}
   */
  stopWords?: ReadonlySet<string>;
}

/**
 * The indexed terms a hit matched, read from its `explain` entries: the `indexTerm` of each title,
 * body or labels contribution (the stem, or the completion of a prefix), else its `term`. Feedback
 * terms (added by the search, not typed) and proximity bonuses are left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, matchedIndexTerms } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Deploys", body: "Run make deploy", labels: [], hash: "", created: "", updated: "" });
 * const [hit] = index.search("make deploying", { limit: 1, explain: true });
 * assert.deepEqual([...matchedIndexTerms(hit.explain ?? [])].sort(), ["deploy", "make"]);
 * ```
 */
export function matchedIndexTerms(explain: readonly ScoreContribution[]): Set<string> {
  const terms = new Set<string>();
  for (const c of explain) {
    if (c.field === "title" || c.field === "body" || c.field === "labels") {
      terms.add(c.indexTerm ?? c.term);
    }
  }
  return terms;
}

/**
 * The spans of `note`'s title and body whose indexed form is one of `matchedIndexTerms` (see
 * {@linkcode matchedIndexTerms}), sorted by field (title first) then start, and not overlapping
 * (overlapping spans, such as a matched joined form `ratelimit` and its part `rate`, are merged;
 * adjacent ones are not). Each part of a split identifier is its own span, so `rateLimit` gives
 * `rate` and `Limit` for the query `rate limit`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { highlightsOf } from "@memo/memory";
 * const note = { title: "Rate limits", body: "Café 🚀 rateLimit is 5000/h" };
 * const words = highlightsOf(note, ["rate", "limit", "cafe"])
 *   .map((h) => `${h.field}:${note[h.field].slice(h.start, h.end)}`);
 * assert.deepEqual(words, ["title:Rate", "title:limits", "body:Café", "body:rate", "body:Limit"]);
 * ```
 */
export function highlightsOf(
  note: { title: string; body: string },
  matchedIndexTerms: Iterable<string>,
  options: HighlightOptions = {},
): Highlight[] {
  const terms = matchedIndexTerms instanceof Set
    ? matchedIndexTerms as ReadonlySet<string>
    : new Set(matchedIndexTerms);
  if (terms.size === 0) return [];
  const stopWords = options.stopWords ?? ENGLISH_STOP_WORDS;
  const out: Highlight[] = [];
  for (const field of ["title", "body"] as const) {
    const spans: [number, number][] = [];
    for (const token of tokenizeWithOffsets(note[field])) {
      const term = analyzeToken(token.text, stopWords);
      if (term !== undefined && terms.has(term)) spans.push([token.start, token.end]);
    }
    spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let last: Highlight | undefined;
    for (const [start, end] of spans) {
      if (last && start < last.end) {
        if (end > last.end) last.end = end;
        continue;
      }
      last = { field, start, end };
      out.push(last);
    }
  }
  return out;
}
