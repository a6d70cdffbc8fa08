/**
 * The second look at the best candidates of a lexical search: each one's
 * fields are scanned again to find where the query terms stand, for a
 * term-proximity bonus after Büttcher, Clarke and Lushman, "Term proximity
 * scoring for ad-hoc retrieval on very large text collections" (SIGIR 2006):
 * neighbouring occurrences of two different query terms, at distance d, add
 * idf / d² to each other's accumulator, which is then saturated like a BM25
 * term frequency.
 *
 * @module
 */

import type { Note } from "../note.ts";
import type { TermDictionary } from "./_terms.ts";
import { scanTokens } from "./tokenizer.ts";

/** Characters of a body scanned for proximity and explanation. */
export const MAX_RESCAN_CHARS = 32_768;
/** Positions left between fields, so that no pair spans two of them. */
const FIELD_GAP = 64;

/** Where the query terms stand in one note. */
export interface TermHits {
  /** Term index (into the query's terms) of each occurrence, in scan order. */
  terms: number[];
  /** Position of each occurrence. */
  positions: number[];
}

/**
 * Scans a note's title, body (its first {@linkcode MAX_RESCAN_CHARS}
 * characters) and labels for the terms of `termIndex` (term id → index).
 *
 * @example
 * ```ts
 * import { ENGLISH_STOP_WORDS } from "./stopwords.ts";
 * import { TermDictionary } from "./_terms.ts";
 * import { scanNoteTerms } from "./_proximity.ts";
 * const dict = new TermDictionary(ENGLISH_STOP_WORDS);
 * const id = dict.termOf("limit", 0, 5);
 * const note = { id: "a", title: "t", body: "rate limit", labels: [], hash: "", created: "", updated: "" };
 * console.log(scanNoteTerms(note, dict, new Map([[id, 0]])).positions); // [ 66 ]
 * ```
 */
export function scanNoteTerms(
  note: Note,
  dict: TermDictionary,
  termIndex: ReadonlyMap<number, number>,
): TermHits {
  const hits: TermHits = { terms: [], positions: [] };
  const sink = (
    src: string,
    start: number,
    end: number,
    position: number,
    _kind: number,
    hash: number,
  ) => {
    const t = dict.lookup(src, start, end, hash);
    if (t < 0) return;
    const i = termIndex.get(t);
    if (i === undefined) return;
    hits.terms.push(i);
    hits.positions.push(position);
  };
  let position = scanTokens(note.title, sink, 0) + FIELD_GAP;
  const body = note.body.length > MAX_RESCAN_CHARS
    ? note.body.slice(0, MAX_RESCAN_CHARS)
    : note.body;
  position = scanTokens(body, sink, position) + FIELD_GAP;
  for (const label of note.labels) position = scanTokens(label, sink, position) + FIELD_GAP;
  return hits;
}

/**
 * The proximity bonus of one note, per group: `min(1, idf_g) · acc_g (k1 + 1)
 * / (acc_g + k1)`, where `acc_g` sums `weight · idf / d²` of the nearest
 * different query term on either side of each occurrence of group g.
 * `group[i]`, `idf[i]` and `weight[i]` describe term index i; occurrences of
 * the same group never pair. Returns one bonus per group (0 where none).
 *
 * @example
 * ```ts
 * import { proximityBonus } from "./_proximity.ts";
 * const hits = { terms: [0, 1], positions: [3, 4] };
 * proximityBonus(hits, [0, 1], [2, 2], [1, 1], 2, 1.2)[0] > 0; // true
 * ```
 */
export function proximityBonus(
  hits: TermHits,
  group: ArrayLike<number>,
  idf: ArrayLike<number>,
  weight: ArrayLike<number>,
  groupCount: number,
  k1: number,
): Float64Array {
  const bonus = new Float64Array(groupCount);
  const n = hits.terms.length;
  if (n < 2) return bonus;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => hits.positions[a] - hits.positions[b] || a - b);
  const acc = new Float64Array(groupCount);
  const groupIdf = new Float64Array(groupCount);
  for (let j = 1; j < n; j++) {
    const a = hits.terms[order[j - 1]];
    const b = hits.terms[order[j]];
    const ga = group[a];
    const gb = group[b];
    if (ga === gb) continue;
    const d = hits.positions[order[j]] - hits.positions[order[j - 1]];
    if (d <= 0) continue;
    const d2 = d * d;
    acc[ga] += weight[b] * idf[b] / d2;
    acc[gb] += weight[a] * idf[a] / d2;
    groupIdf[ga] = Math.max(groupIdf[ga], weight[a] * idf[a]);
    groupIdf[gb] = Math.max(groupIdf[gb], weight[b] * idf[b]);
  }
  for (let g = 0; g < groupCount; g++) {
    if (acc[g] > 0) bonus[g] = Math.min(1, groupIdf[g]) * acc[g] * (k1 + 1) / (acc[g] + k1);
  }
  return bonus;
}
