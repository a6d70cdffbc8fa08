/**
 * Turns a query string into the weighted terms the lexical index scores.
 *
 * The query is cut by the same tokenizer as the notes. Stop words drop out; every other token
 * becomes a *group*: what a hit reports in `matched`. A group scores its stem at full weight. The
 * last word of the query, when the query does not end in a space or punctuation, also matches as a
 * prefix: the terms that start with it score at a lower weight (see {@linkcode QueryOptions}).
 *
 * @module
 */

import { analyzeToken } from "../text/stemmer.ts";
import type { TermDictionary } from "./_terms.ts";
import {
  scanTokens,
  TOKEN_CJK,
  TOKEN_CJK_PAIR,
  TOKEN_EMOJI,
  TOKEN_JOINED,
  tokenText,
} from "../text/tokenizer.ts";

/** Most groups (distinct query words) a query uses; later ones are ignored. */
export const MAX_QUERY_GROUPS = 32;

export interface QueryTerm {
  id: number;
  /** Index of the group (query word) it belongs to. */
  group: number;
  /** Weight of the term (1 for the word itself, less for a prefix expansion). */
  weight: number;
  prefix: boolean;
}

export interface ParsedQuery {
  /** Folded text of each group, as typed (the prefix as typed for the last word). */
  groups: string[];
  /** Query position of each group (joined forms share their first part's). */
  positions: number[];
  /** Terms to score; a term that appears in several groups is listed once, with its first group. */
  terms: QueryTerm[];
}

/** Options of {@linkcode parseQuery}. */
export interface QueryOptions {
  /**
   * Weight of a prefix expansion of the last word, scaled further by `prefix length / term length`.
   * @default 0.5
   */
  prefixWeight?: number;
  /**
   * Shortest last word that is expanded as a prefix.
   * @default 2
   */
  minPrefixLength?: number;
  /**
   * Most prefix expansions (the most frequent terms are kept).
   * @default 50
   */
  maxPrefixTerms?: number;
  /** Document frequency of a term, to choose among expansions. */
  df?: (id: number) => number;
}

/**
 * Parses a query against a dictionary. Words that no note holds still form groups, with no terms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";
 * import { TermDictionary } from "./_terms.ts";
 * import { parseQuery } from "./_query.ts";
 * const dict = new TermDictionary(ENGLISH_STOP_WORDS);
 * const deploy = dict.termOf("deployment", 0, 10); // the term "deploy"
 * const q = parseQuery("how to deplo", dict, ENGLISH_STOP_WORDS);
 * assert.deepEqual(q.groups, ["deplo"]); // "how" and "to" are stop words
 * assert.equal(q.terms.length, 1);
 * assert.equal(q.terms[0].id, deploy); // "deplo", the last word, completed as a prefix
 * assert.ok(q.terms[0].prefix);
 * ```
 */
export function parseQuery(
  query: string,
  dict: TermDictionary,
  stopWords: ReadonlySet<string>,
  options: QueryOptions = {},
): ParsedQuery {
  // A token the notes hold is found with its term in the dictionary, unstemmed.
  const known = dict.stopWords === stopWords;
  const tokens: { text: string; position: number; kind: number; id: number }[] = [];
  scanTokens(query, (src, start, end, position, kind, hash) => {
    const id = known ? dict.find(src, start, end, hash) : -2;
    tokens.push({ text: tokenText(src, start, end), position, kind, id });
  });
  const groups: string[] = [];
  const positions: number[] = [];
  const terms: QueryTerm[] = [];
  const seenTerm = new Set<number>();
  const groupOf = new Map<string, number>();
  for (const token of tokens) {
    let id = token.id;
    if (id === -1) continue; // a stop word
    if (id === -2) {
      const stem = analyzeToken(token.text, stopWords);
      if (stem === undefined) continue;
      id = dict.termId(stem);
    }
    let group = groupOf.get(token.text);
    if (group === undefined) {
      if (groups.length >= MAX_QUERY_GROUPS) continue;
      group = groups.length;
      groupOf.set(token.text, group);
      groups.push(token.text);
      positions.push(token.position);
    }
    if (id >= 0 && !seenTerm.has(id)) {
      seenTerm.add(id);
      terms.push({ id, group, weight: 1, prefix: false });
    }
  }
  // Prefix expansion of the last word (its last part, and the joined form it ends).
  const minPrefix = options.minPrefixLength ?? 2;
  const expands = (options.prefixWeight ?? 0.5) > 0 && (options.maxPrefixTerms ?? 50) > 0;
  if (expands && tokens.length && endsInWord(query)) {
    const last = tokens[tokens.length - 1];
    const ends = last.kind === TOKEN_JOINED && tokens.length > 1
      ? [tokens[tokens.length - 2], last]
      : [last];
    for (const token of ends) {
      if (token.kind === TOKEN_CJK_PAIR || token.kind === TOKEN_EMOJI) continue;
      if (token.kind !== TOKEN_CJK && token.text.length < minPrefix) continue;
      // A CJK character that ends a run of two or more is the tail of the pair before it, not a
      // word being typed: completing it would match every pair that starts with it.
      if (token.kind === TOKEN_CJK && tokens.at(-2)?.kind === TOKEN_CJK_PAIR) continue;
      if (stopWords.has(token.text)) continue;
      const group = groupOf.get(token.text);
      if (group === undefined) continue;
      expandPrefix(token.text, group, dict, seenTerm, terms, options);
    }
  }
  return { groups, positions, terms };
}

function expandPrefix(
  prefix: string,
  group: number,
  dict: TermDictionary,
  seen: Set<number>,
  terms: QueryTerm[],
  options: QueryOptions,
): void {
  const weight = options.prefixWeight ?? 0.5;
  const max = options.maxPrefixTerms ?? 50;
  if (weight <= 0 || max <= 0) return;
  const ids = mostFrequent(dict.termsWithPrefix(prefix), seen, max, dict, options.df);
  for (const id of ids) {
    seen.add(id);
    const scale = Math.min(1, prefix.length / dict.term(id).length);
    terms.push({ id, group, weight: weight * scale, prefix: true });
  }
}

/**
 * The completions not `seen`: all of them, highest id first, when there are at most `max`; else the
 * `max` most frequent (ties: shorter, then lower id), in that order.
 */
function mostFrequent(
  ids: number[],
  seen: ReadonlySet<number>,
  max: number,
  dict: TermDictionary,
  df: ((id: number) => number) | undefined,
): number[] {
  const fresh = seen.size === 0 ? ids : ids.filter((id) => !seen.has(id));
  if (fresh.length <= max) return fresh.sort((a, b) => b - a);
  const frequency = df ?? (() => 0);
  // A bounded insertion: most completions fall below the kept ones at once.
  const kept: number[] = [];
  const keptDf: number[] = [];
  const keptLength: number[] = [];
  for (const id of fresh) {
    const f = frequency(id);
    if (kept.length === max && f < keptDf[max - 1]) continue; // the usual case: no tie to break
    const length = dict.term(id).length;
    let j = kept.length;
    if (j === max) {
      if (ranksAbove(keptDf[j - 1], keptLength[j - 1], kept[j - 1], f, length, id)) continue;
      j--;
    } else {
      kept.push(0);
      keptDf.push(0);
      keptLength.push(0);
    }
    while (j > 0 && !ranksAbove(keptDf[j - 1], keptLength[j - 1], kept[j - 1], f, length, id)) {
      kept[j] = kept[j - 1];
      keptDf[j] = keptDf[j - 1];
      keptLength[j] = keptLength[j - 1];
      j--;
    }
    kept[j] = id;
    keptDf[j] = f;
    keptLength[j] = length;
  }
  return kept;
}

/** Whether completion a ranks above completion b: more frequent, then shorter, then lower id. */
function ranksAbove(
  dfA: number,
  lengthA: number,
  idA: number,
  dfB: number,
  lengthB: number,
  idB: number,
): boolean {
  return dfA > dfB || (dfA === dfB && (lengthA < lengthB || (lengthA === lengthB && idA < idB)));
}

/** Whether the query's last character is part of a word (so its last word may be unfinished). */
function endsInWord(query: string): boolean {
  const trimmed = query.replace(/[\s\p{P}\p{S}]+$/u, "");
  return trimmed.length === query.length;
}
