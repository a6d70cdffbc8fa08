/**
 * Internal: the per-prompt recall of `memo hook`, and the confidence it must reach before it adds
 * anything. A raw BM25 score cannot tell a prompt about what memo holds from one about something
 * else (an everyday coding request scores as high as a question memo can answer), so the
 * confidence comes from whether memo knows the prompt's specific words:
 *
 * 1. the prompt's words without the plain ones (`_words.ts`): what it is about;
 * 2. a word written as a name (a capital inside a sentence) that no note holds: memo does not
 *    hold what the prompt is about, so nothing is added;
 * 3. fewer than the threshold's share of its specific words held by any note: the same;
 * 4. otherwise the notes that hold a specific word are ranked by BM25 over the prompt's words
 *    (function words aside), and the best are added.
 *
 * The threshold was tuned on three LoCoMo conversations (`bench/hook_quality.ts`).
 *
 * @module
 */

import { promptWords, rankTerms } from "./_words.ts";

/** What the recall reads of an index: its size, and the notes holding a term. */
export interface TermIndex {
  /** Number of notes indexed (the `n` of the ranking). */
  readonly count: number;
  /**
   * The size of the ordinal space, when it is larger than `count` (notes left out of every
   * posting list, such as another scope's copy of a note: `_memory.ts`).
   * @default count
   */
  readonly ordinals?: number;
  /** The notes (ordinals) holding `term`, ascending; empty when none. */
  postings(term: string): Int32Array | number[];
  /** Number of terms of a note. */
  length(ordinal: number): number;
  /** The notes' average number of terms. */
  readonly averageLength: number;
  /** Every note's number of terms, by ordinal (a faster {@linkcode TermIndex.length}). */
  readonly lengths?: ArrayLike<number>;
}

/** Tuning of {@linkcode recallForPrompt}. */
export interface PromptRecallOptions {
  /**
   * The confidence threshold: the least share of the prompt's specific words that some note
   * holds (a word written as a name must always be held).
   * @default 0.5
   */
  threshold?: number;
  /**
   * The least share of the prompt's specific weight a note must hold to be added (any held
   * specific word is enough by default: tuning found that a higher floor loses answers and
   * quiets nothing the threshold does not).
   * @default 0
   */
  minShare?: number;
  /**
   * Add nothing when a word written as a name is held by no note (off only to measure what the
   * gates do, `bench/hook_quality.ts`).
   * @default true
   */
  nameGate?: boolean;
  /**
   * At most this many notes (the budget may stop earlier).
   * @default 10
   */
  limit?: number;
}

/** A note the recall would add, with its score and the words it holds. */
export interface PromptHit {
  ordinal: number;
  score: number;
  matched: string[];
}

/** What {@linkcode recallForPrompt} decided, and why (for `--dry-run`). */
export interface PromptRecall {
  hits: PromptHit[];
  /** The rule that decided: `added`, `no-specific-words`, `unknown-name`, `unknown-words`, `below-threshold`. */
  rule: string;
  /** The prompt's specific words, each with the number of notes holding it. */
  words: { term: string; name: boolean; notes: number }[];
}

/** The defaults, in one place. */
export const PROMPT_RECALL_DEFAULTS: Required<PromptRecallOptions> = {
  threshold: 0.5,
  minShare: 0,
  nameGate: true,
  limit: 10,
};

/**
 * Recalls the notes a prompt is about, or none when memo does not know what it is about.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallForPrompt } from "./_recall.ts";
 * const docs = [["caroline", "pottery", "class"], ["melanie", "paint", "sunrise"]];
 * const index = {
 *   count: docs.length,
 *   postings: (t: string) => docs.flatMap((d, i) => d.includes(t) ? [i] : []),
 *   length: (i: number) => docs[i].length,
 *   averageLength: 3,
 * };
 * assert.deepEqual(recallForPrompt("When did Melanie paint a sunrise?", index).hits.map((h) => h.ordinal), [1]);
 * assert.equal(recallForPrompt("When did Gina open her store?", index).rule, "unknown-name");
 * assert.equal(recallForPrompt("fix the failing test", index).rule, "no-specific-words");
 * ```
 */
export function recallForPrompt(
  prompt: string,
  index: TermIndex,
  options: PromptRecallOptions = {},
): PromptRecall {
  const { threshold, minShare, nameGate, limit } = { ...PROMPT_RECALL_DEFAULTS, ...options };
  const words = promptWords(prompt).slice(0, 32).map((w) => ({
    ...w,
    postings: index.postings(w.term),
  }));
  const described = words.map((w) => ({ term: w.term, name: w.name, notes: w.postings.length }));
  if (!words.length || index.count === 0) {
    return { hits: [], rule: "no-specific-words", words: described };
  }
  if (nameGate && words.some((w) => w.name && w.postings.length === 0)) {
    return { hits: [], rule: "unknown-name", words: described };
  }
  const known = words.filter((w) => w.postings.length > 0);
  if (known.length / words.length < threshold) {
    return { hits: [], rule: "unknown-words", words: described };
  }
  const n = index.count;
  const space = Math.max(n, index.ordinals ?? n);
  const weight = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  // Confidence: the share of the specific words' weight a note holds (a word no note holds
  // weighs the most).
  const total = words.reduce((sum, w) => sum + weight(w.postings.length), 0);
  const share = new Float64Array(space);
  for (const w of known) {
    const part = weight(w.postings.length) / total;
    const postings = w.postings;
    for (let i = 0; i < postings.length; i++) share[postings[i]] += part;
  }
  // Order: BM25 (k1 1.2, b 0.75, each term once) over every word of the prompt but the
  // function words, among the notes that reach the threshold.
  const rank = new Float64Array(space);
  const average = index.averageLength || 1;
  const lengths = index.lengths ?? Array.from({ length: space }, (_, o) => index.length(o));
  for (const term of rankTerms(prompt)) {
    const postings = index.postings(term);
    if (!postings.length) continue;
    const idf = weight(postings.length);
    for (let i = 0; i < postings.length; i++) {
      const ordinal = postings[i];
      if (share[ordinal] === 0) continue;
      const norm = 0.25 + 0.75 * lengths[ordinal] / average;
      rank[ordinal] += idf * 2.2 / (1 + 1.2 * norm);
    }
  }
  // The best `limit` notes at or above the floor (ties: the earlier note).
  const floor = Math.max(minShare - 1e-9, Number.MIN_VALUE);
  const top: number[] = [];
  for (let o = 0; o < space; o++) {
    if (share[o] < floor) continue;
    if (top.length === limit && rank[o] <= rank[top[limit - 1]]) continue;
    let i = top.length === limit ? limit - 1 : top.length;
    while (i > 0 && rank[top[i - 1]] < rank[o]) i--;
    top.splice(i, 0, o);
    if (top.length > limit) top.pop();
  }
  const hits: PromptHit[] = top.map((ordinal) => ({
    ordinal,
    score: share[ordinal],
    matched: known.filter((w) => holds(w.postings, ordinal)).map((w) => w.term),
  }));
  if (!hits.length) return { hits, rule: "below-threshold", words: described };
  return { hits, rule: "added", words: described };
}

/** Whether ascending `postings` hold `ordinal`. */
function holds(postings: ArrayLike<number>, ordinal: number): boolean {
  let lo = 0, hi = postings.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (postings[mid] === ordinal) return true;
    if (postings[mid] < ordinal) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
