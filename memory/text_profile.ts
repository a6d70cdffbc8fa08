/**
 * The profile of a text that {@linkcode similarity} compares: its meaningful words (cut and folded
 * by the lexical tokenizer, stop words dropped except the few that turn a fact around, stemmed),
 * its numbers and whether it says "not".
 *
 * @module
 */

import { scanTokens, TOKEN_CJK_PAIR, TOKEN_JOINED, tokenText } from "./recall/text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "./recall/text/stopwords.ts";
import { stemWord } from "./recall/text/stemmer.ts";
import { IRREGULAR_FORMS } from "./recall/text/irregular.ts";

/** Stop words that change what a sentence says: kept as words. */
const MEANINGFUL = new Set([
  "before",
  "after",
  "above",
  "below",
  "over",
  "under",
  "up",
  "down",
  "off",
  "out",
  "more",
  "most",
  "few",
  "only",
  "against",
  "between",
  "until",
  "same",
  "other",
]);

/** Words of negation (folded as the tokenizer folds them). */
const NEGATIONS = new Set(["not", "no", "never", "nor", "neither", "none", "cannot", "without"]);

const NUMBER_WORDS = new Map(
  [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
  ].map((w, i) => [w, String(i)]),
);

/**
 * What {@linkcode similarity} compares of a text, computed once per text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type TextProfile, textProfile } from "@memo/memory";
 * const p: TextProfile = textProfile("Deploys don't run on Fridays after 15:00");
 * assert.deepEqual(p.words, ["deploy", "run", "friday", "after", "15", "00"]);
 * assert.deepEqual(p.numbers, ["00", "15"]);
 * assert.equal(p.negated, true);
 * ```
 */
export interface TextProfile {
  /** The meaningful words, stemmed, in text order (repeats kept). */
  readonly words: readonly string[];
  /** The numbers and identifiers with digits, sorted. */
  readonly numbers: readonly string[];
  /** Whether the text says "not" (or "no", "never", "n't" …). */
  readonly negated: boolean;
}

/**
 * The profile of a text: its meaningful words, numbers and negation (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textProfile } from "@memo/memory";
 * assert.deepEqual(textProfile("Five business days").numbers, ["5"]);
 * ```
 */
export function textProfile(text: string): TextProfile {
  const words: string[] = [];
  const numbers: string[] = [];
  let negated = false;
  scanTokens(text, (src, start, end, _position, kind, hash) => {
    if (kind === TOKEN_JOINED || kind === TOKEN_CJK_PAIR) return; // they repeat their parts
    const known = WORDS.get(hash);
    const word = known !== undefined && sameToken(src, start, end, known.raw)
      ? known.word
      : analyse(tokenText(src, start, end), hash);
    if (word === NEGATED) negated = true;
    else if (word !== SKIP) {
      words.push(word);
      if (hasDigit(word)) numbers.push(word);
    }
  });
  numbers.sort();
  return { words, numbers, negated };
}

/** What `analyse` answers for a negation word and for a word left out. */
const NEGATED = "\u0000not";
const SKIP = "";
/**
 * Folded tokens already analysed, by their hash (the same words recur across notes, and the
 * lookup then builds no string): bounded. A hash two tokens share keeps the later one.
 */
const WORDS = new Map<number, { raw: string; word: string }>();

/** Whether `src[start, end)` spells `raw` (as `tokenText` spells a token). */
function sameToken(src: string, start: number, end: number, raw: string): boolean {
  let k = 0;
  for (let i = start; i < end; i++) {
    let c = src.charCodeAt(i);
    if (c === 45 || c === 95) continue;
    if (c >= 65 && c <= 90) c += 32;
    else if (c === 0x2019 || c === 0x02bc) c = 39;
    if (raw.charCodeAt(k++) !== c) return false;
  }
  return k === raw.length;
}

/** A folded token as a profile word: stemmed, a number, `SKIP` or `NEGATED`. */
function analyse(raw: string, hash: number): string {
  let out: string;
  if (NEGATIONS.has(raw) || raw.endsWith("n't")) out = NEGATED;
  else {
    const t = NUMBER_WORDS.get(raw) ?? raw;
    if (ENGLISH_STOP_WORDS.has(t) && !MEANINGFUL.has(t)) out = SKIP;
    else out = hasDigit(t) ? t : stemWord(IRREGULAR_FORMS.get(t) ?? t);
  }
  if (WORDS.size >= 100_000) WORDS.clear();
  WORDS.set(hash, { raw, word: out });
  return out;
}

/** Whether `word` holds a digit. */
export function hasDigit(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}
