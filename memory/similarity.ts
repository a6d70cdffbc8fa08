/**
 * Near-duplicate detection without a model: how alike two notes' texts are, over the words that
 * carry their meaning, with an eye on the numbers and negations that make two similar sentences
 * two different facts.
 *
 * - **Words.** The texts are cut and folded by the lexical engine's tokenizer, English stop
 *   words are dropped (except the few that turn a fact around: `before`, `after`, `over`,
 *   `under`…), and each word is stemmed (Porter2), so "deploys" and "deploying" match. A word
 *   also matches a longer one it begins (three letters at least): "env" and "environments",
 *   "prod" and "production".
 * - **Score.** The Dice coefficient of the two word sets, 0 to 1, where each word counts by its
 *   weight (a number or an identifier with digits weighs more; see {@linkcode textProfile}).
 * - **Conflicts.** Two texts whose numbers differ ("12 months" against "12 weeks" is no
 *   conflict, "30 days" against "90 days" is), or where one says "not" and the other does not,
 *   state different facts however alike they read.
 * - **Merge.** `memo tidy` proposes to merge only what {@linkcode similarity} calls `duplicate`:
 *   no conflict, a score at or above {@linkcode TIDY_THRESHOLD}, the words of one text all found
 *   in the other, and the shared words mostly in the same order (so "Terraform over Pulumi" is
 *   not "Pulumi over Terraform").
 *
 * The thresholds were tuned on labelled pairs of project notes (see `bench/README.md`).
 *
 * @module
 */

import { tokenize } from "./recall/tokenizer.ts";
import { ENGLISH_STOP_WORDS } from "./recall/stopwords.ts";
import { stemWord } from "./recall/stemmer.ts";
import { IRREGULAR_FORMS } from "./recall/irregular.ts";

/**
 * Score at or above which `remember` lists a stored note as similar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { similarity, SIMILAR_THRESHOLD } from "@memo/memory";
 * const s = similarity("The audit log is kept for 12 months.", "Audit logs are kept 12 months");
 * assert.ok(s.score >= SIMILAR_THRESHOLD);
 * ```
 */
export const SIMILAR_THRESHOLD = 0.6;

/**
 * Score at or above which `memo tidy` may propose a merge (with no conflict, one text's words
 * all in the other, in the same order).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TIDY_THRESHOLD } from "@memo/memory";
 * assert.ok(TIDY_THRESHOLD > 0.5 && TIDY_THRESHOLD <= 1);
 * ```
 */
export const TIDY_THRESHOLD = 0.6;

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
  for (const token of tokenize(text)) {
    if (token.kind === 2 || token.kind === 4) continue; // joined forms and CJK pairs repeat parts
    let t = token.text;
    if (NEGATIONS.has(t) || t.endsWith("n't")) {
      negated = true;
      continue;
    }
    t = NUMBER_WORDS.get(t) ?? t;
    if (ENGLISH_STOP_WORDS.has(t) && !MEANINGFUL.has(t)) continue;
    const word = /\d/.test(t) ? t : stemWord(IRREGULAR_FORMS.get(t) ?? t);
    if (/\d/.test(word)) numbers.push(word);
    words.push(word);
  }
  numbers.sort();
  return { words, numbers, negated };
}

/**
 * How alike two texts are.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { similarity, type Similarity } from "@memo/memory";
 * const s: Similarity = similarity("Log retention is 15 days.", "Log retention is 30 days.");
 * assert.equal(s.conflict, "number");
 * assert.equal(s.duplicate, false);
 * ```
 */
export interface Similarity {
  /** 0 to 1: the weighted Dice coefficient of the two word sets. */
  score: number;
  /** Why the two texts state different facts, if they do. */
  conflict?: "number" | "negation" | "order";
  /** Whether `memo tidy` may merge them (see the module doc). */
  duplicate: boolean;
}

/**
 * Compares two texts (or their profiles).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { similarity } from "@memo/memory";
 * const same = similarity(
 *   "Sprint planning is every other Monday at 10:00.",
 *   "Every other Monday at 10:00 we have sprint planning.",
 * );
 * assert.equal(same.score, 1);
 * assert.equal(same.duplicate, true);
 * const swapped = similarity("We chose Terraform over Pulumi.", "We chose Pulumi over Terraform.");
 * assert.equal(swapped.duplicate, false); // the same words in another order
 * const negated = similarity("Weekend on-call is paid as overtime.", "Weekend on-call is not paid as overtime.");
 * assert.equal(negated.conflict, "negation");
 * ```
 */
export function similarity(a: string | TextProfile, b: string | TextProfile): Similarity {
  const pa = typeof a === "string" ? textProfile(a) : a;
  const pb = typeof b === "string" ? textProfile(b) : b;
  const match = matchWords(pa.words, pb.words);
  const score = match.total === 0 ? 0 : (2 * match.shared) / match.total;
  const out: Similarity = { score: Math.round(score * 1000) / 1000, duplicate: false };
  if (pa.negated !== pb.negated) out.conflict = "negation";
  else if (!sameList(pa.numbers, pb.numbers)) out.conflict = "number";
  else if (swapped(pa.words, pb.words)) out.conflict = "order";
  out.duplicate = out.conflict === undefined && score >= TIDY_THRESHOLD &&
    (match.onlyA === 0 || match.onlyB === 0);
  return out;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Weight of a word: numbers and identifiers with digits say more than a common word. */
function weight(word: string): number {
  return /\d/.test(word) ? 1.5 : 1;
}

/**
 * Matches the distinct words of `a` and `b` one to one (equal words first, then a word that
 * begins a longer one, three letters at least), and says whether the matched words come in the
 * same order in both.
 */
function matchWords(a: readonly string[], b: readonly string[]) {
  const setA = [...new Set(a)];
  const setB = [...new Set(b)];
  const pairOf = new Map<string, string>(); // word of a → its match in b
  const usedB = new Set<string>();
  const inB = new Set(setB);
  for (const w of setA) {
    if (inB.has(w)) {
      pairOf.set(w, w);
      usedB.add(w);
    }
  }
  for (const w of setA) {
    if (pairOf.has(w) || /\d/.test(w)) continue;
    for (const v of setB) {
      if (usedB.has(v) || /\d/.test(v)) continue;
      const [short, long] = w.length <= v.length ? [w, v] : [v, w];
      if (short.length >= 3 && long.startsWith(short)) {
        pairOf.set(w, v);
        usedB.add(v);
        break;
      }
    }
  }
  let shared = 0;
  let total = 0;
  for (const w of setA) total += weight(w);
  for (const v of setB) total += weight(v);
  for (const [w, v] of pairOf) shared += (weight(w) + weight(v)) / 2;
  return {
    shared,
    total,
    onlyA: setA.length - pairOf.size,
    onlyB: setB.length - usedB.size,
  };
}

/** Words that relate the word before them to the word after them ("X over Y"). */
const RELATIONS = new Set([
  "over",
  "under",
  "before",
  "after",
  "above",
  "below",
  "than",
  "versus",
  "vs",
]);

/**
 * Whether the two word lists put the same two words in reversed roles around a relation word
 * that both hold: "Terraform over Pulumi" against "Pulumi over Terraform".
 */
function swapped(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 1; i < a.length - 1; i++) {
    if (!RELATIONS.has(a[i])) continue;
    const j = b.indexOf(a[i]);
    if (j <= 0 || j >= b.length - 1) continue;
    if (a[i - 1] === b[j + 1] && a[i + 1] === b[j - 1] && a[i - 1] !== a[i + 1]) return true;
  }
  return false;
}
