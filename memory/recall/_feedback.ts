/**
 * Pseudo-relevance feedback (Rocchio, 1971; in the form of the relevance
 * model of Lavrenko and Croft, 2001): the best few notes of a first BM25 pass
 * are taken as relevant, and the terms that weigh most in them, by
 * `Σ_notes (score / best score) · tf / length`, times idf, are added to the
 * query at a lower weight. Notes that say the same thing in other words then
 * rise. The added terms only re-rank notes that already match the query; they
 * never bring in a note that matches none of its words.
 *
 * @module
 */

import type { Note } from "../note.ts";
import type { TermDictionary } from "./_terms.ts";
import { scanTokens } from "./tokenizer.ts";

/** One added query term. */
export interface FeedbackTerm {
  /** Term id. */
  id: number;
  /** Its weight relative to a query word (at most the feedback weight). */
  weight: number;
}

/** Characters of a feedback note's body that are read. */
const MAX_FEEDBACK_CHARS = 8192;

/**
 * Chooses the feedback terms from the first-pass notes (best first, with
 * their scores).
 *
 * @example
 * ```ts
 * import { ENGLISH_STOP_WORDS } from "./stopwords.ts";
 * import { TermDictionary } from "./_terms.ts";
 * import { feedbackTerms } from "./_feedback.ts";
 * const dict = new TermDictionary(ENGLISH_STOP_WORDS);
 * const note = { id: "a", title: "", body: "pottery class bowl", labels: [], hash: "", created: "", updated: "" };
 * const picked = feedbackTerms([{ note, score: 1 }], dict, new Set(), () => 2, 10, { terms: 2, weight: 0.5 });
 * console.log(picked.length); // 2
 * ```
 */
export function feedbackTerms(
  top: readonly { note: Note; score: number }[],
  dict: TermDictionary,
  exclude: ReadonlySet<number>,
  df: (id: number) => number,
  n: number,
  options: { terms: number; weight: number },
): FeedbackTerm[] {
  if (top.length === 0 || options.terms <= 0 || options.weight <= 0) return [];
  const best = top[0].score;
  if (!(best > 0)) return [];
  const mass = new Map<number, number>();
  for (const { note, score } of top) {
    const counts = new Map<number, number>();
    let length = 0;
    const sink = (src: string, start: number, end: number, _p: number, _k: number, h: number) => {
      const t = dict.lookup(src, start, end, h);
      if (t < 0) return;
      length++;
      counts.set(t, (counts.get(t) ?? 0) + 1);
    };
    scanTokens(note.title, sink);
    scanTokens(
      note.body.length > MAX_FEEDBACK_CHARS ? note.body.slice(0, MAX_FEEDBACK_CHARS) : note.body,
      sink,
    );
    for (const label of note.labels) scanTokens(label, sink);
    if (length === 0) continue;
    const w = score / best / length;
    for (const [t, c] of counts) mass.set(t, (mass.get(t) ?? 0) + w * c);
  }
  const picked: { id: number; value: number }[] = [];
  for (const [id, m] of mass) {
    const f = df(id);
    if (exclude.has(id) || f <= 1) continue; // a term of one note cannot lead to another
    picked.push({ id, value: m * Math.log(1 + (n - f + 0.5) / (f + 0.5)) });
  }
  picked.sort((a, b) => b.value - a.value || a.id - b.id);
  const chosen = picked.slice(0, options.terms);
  if (chosen.length === 0) return [];
  const max = chosen[0].value;
  return chosen.map(({ id, value }) => ({ id, weight: options.weight * value / max }));
}
