/**
 * The profile of a text that {@linkcode similarity} compares: its meaningful words (cut and folded
 * by the lexical tokenizer, stop words dropped except the few that turn a fact around, stemmed),
 * its numbers and whether it says "not".
 *
 * @module
 */

import {
  scanTokens,
  TOKEN_CJK_PAIR,
  TOKEN_JOINED,
  tokenCode,
  tokenText,
} from "./recall/text/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "./recall/text/stopwords.ts";
import { stemWord } from "./recall/text/stemmer.ts";
import { IRREGULAR_FORMS } from "./recall/text/irregular.ts";
import { FactCollector, FILLERS } from "./_text_facts.ts";

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

/**
 * Words of negation (folded as the tokenizer folds them), in English and a few other languages
 * (a negation that is missed can merge two opposite notes; one seen where there is none only
 * keeps two notes apart).
 */
const NEGATIONS = new Set(
  (
    "not no never nor neither none cannot without nicht kein keine keinen keinem keiner keines " +
    "nie niemals pas jamais aucun aucune sans nunca jamas ningun ninguna nao nem non niet geen " +
    "nooit inte ikke aldrig aldri не нет никогда 不 没 沒 无 無"
  ).split(" "),
);

const NUMBER_WORDS = new Map<string, string>(
  ([
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
  ].map((w, i): [string, string] => [w, String(i)]) as [string, string][]).concat(
    [
      "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(" ")
        .map((w, i) => [w, String(13 + i)]),
      "twenty thirty forty fifty sixty seventy eighty ninety".split(" ")
        .map((w, i) => [w, String(20 + 10 * i)]),
      [["hundred", "100"], ["thousand", "1000"], ["million", "1000000"], ["dozen", "12"]],
      [["half", "0.5"], ["once", "1x"], ["twice", "2x"], ["thrice", "3x"]],
      // Not "second", which is also a unit of time.
      "first - third fourth fifth sixth seventh eighth ninth tenth".split(" ")
        .map((w, i) => [w, `${i + 1}th`]).filter(([w]) => w !== "-"),
    ].flat() as [string, string][],
  ),
);

/**
 * The facts of a text that make two texts of the same words two different statements (see
 * {@linkcode TextProfile.facts}). Words are as the profile spells them (stemmed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TextFacts } from "@memo/memory";
 * const facts: Pick<TextFacts, "dates" | "label"> = { dates: ["monday"], label: ["head", "up"] };
 * assert.deepEqual(facts.dates, ["monday"]);
 * ```
 */
export interface TextFacts {
  /** Words written as names: a capital not at the start of a sentence, or a capital inside. */
  readonly names: readonly string[];
  /** Words written with a capital anywhere, in order of first use. */
  readonly caps: readonly string[];
  /** Date words, normalised (`mon` and `Mondays` are `monday`), sorted, each once. */
  readonly dates: readonly string[];
  /** Qualifiers such as `modal:may`, `quant:only`, `person:1`, sorted, each once. */
  readonly qualifiers: readonly string[];
  /** Each relation word with the word after it: `from>blue`. */
  readonly roles: readonly string[];
  /** The numbers that are dates or versions (the others are plain numbers). */
  readonly kinds: ReadonlyMap<string, "date" | "version">;
  /** The words beside an "and", "or", "&" or "plus": items of a list ("staging and production"). */
  readonly listed: readonly string[];
  /**
   * The words of a label the text begins with: up to three words before a colon
   * or a dash ("Heads up:", "Decision:", "Update –"). A comma ends no label: "When a customer
   * reports data loss," is a clause.
   */
  readonly label: readonly string[];
}

/**
 * What {@linkcode similarity} compares of a text, computed once per text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type TextProfile, textProfile } from "@memo/memory";
 * const p: TextProfile = textProfile("Deploys don't run on Fridays after 15:00");
 * assert.deepEqual(p.words, ["deploy", "run", "friday", "after", "15", "00"]);
 * assert.deepEqual(p.numbers, ["00", "15", "15:00"]);
 * assert.equal(p.negated, true);
 * ```
 */
export interface TextProfile {
  /** The meaningful words, stemmed, in text order (repeats kept). */
  readonly words: readonly string[];
  /**
   * The numbers and identifiers with digits, sorted; a run of numbers joined by `.`, `:`, `/` or
   * `-` also as a whole ("3.11", "2025-03-04"), and a currency sign kept with its number.
   */
  readonly numbers: readonly string[];
  /** Whether the text says "not" (or "no", "never", "n't", "nicht", "pas" …). */
  readonly negated: boolean;
  /**
   * The facts that make two texts of the same words two statements: names, dates, versions,
   * qualifiers ("may", "only", "we"), the roles of the words after "from", "to", "over" …
   * (absent from a profile made by hand: then none are compared).
   */
  readonly facts?: TextFacts;
}

/**
 * The profile of a text: its meaningful words, numbers and negation (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textProfile } from "@memo/memory";
 * assert.deepEqual(textProfile("Five business days").numbers, ["5"]);
 * const { facts } = textProfile("Heads up: ask Dana, move it from Kafka to ClickHouse on Monday");
 * assert.deepEqual(facts?.names, ["dana", "kafka", "click", "hous"]);
 * assert.deepEqual(facts?.dates, ["monday"]);
 * assert.deepEqual(facts?.label, ["head", "up"]);
 * assert.deepEqual(facts?.roles, ["from>kafka", "to>click"]);
 * ```
 */
export function textProfile(text: string): TextProfile {
  const words: string[] = [];
  const numbers: string[] = [];
  const facts = new FactCollector();
  let negated = false;
  scanTokens(text, (src, start, end, _position, kind, hash) => {
    if (kind === TOKEN_JOINED || kind === TOKEN_CJK_PAIR) return; // they repeat their parts
    let entry = WORDS.get(hash);
    if (entry === undefined || !sameToken(src, start, end, entry.raw)) {
      entry = analyse(tokenText(src, start, end), hash);
    }
    const word = entry.word;
    const number = facts.token(
      src,
      start,
      end,
      entry.raw,
      word === NEGATED || word === SKIP ? undefined : word,
    );
    if (word === NEGATED) negated = true;
    else if (word !== SKIP) {
      words.push(word);
      if (number !== undefined) numbers.push(number);
    }
  });
  const done = facts.finish();
  for (const literal of facts.literals) numbers.push(literal);
  numbers.sort();
  return { words, numbers, negated, facts: done };
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
    const c = tokenCode(src.charCodeAt(i));
    if (c < 0) continue;
    if (raw.charCodeAt(k++) !== c) return false;
  }
  return k === raw.length;
}

/** A folded token as a profile word: stemmed, a number, `SKIP` or `NEGATED`. */
function analyse(raw: string, hash: number): { raw: string; word: string } {
  let out: string;
  if (NEGATIONS.has(raw) || raw.endsWith("n't")) out = NEGATED;
  else {
    const t = NUMBER_WORDS.get(raw) ?? raw;
    if ((ENGLISH_STOP_WORDS.has(t) && !MEANINGFUL.has(t)) || FILLERS.has(t) || QUANTIFIED.has(t)) {
      out = SKIP;
    } else out = hasDigit(t) ? t : stemWord(IRREGULAR_FORMS.get(t) ?? t);
  }
  if (WORDS.size >= 100_000) WORDS.clear();
  const entry = { raw, word: out };
  WORDS.set(hash, entry);
  return entry;
}

/** "every" says what "all" says, a stop word: a qualifier (see `_text_facts.ts`), no word. */
const QUANTIFIED = new Set(["every", "everything", "everyone", "everybody"]);

/** Whether `word` holds a digit. */
export function hasDigit(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}
