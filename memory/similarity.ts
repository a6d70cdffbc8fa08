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

import { hasDigit, type TextProfile, textProfile } from "./text_profile.ts";

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
  const match = matchWords(prepared(pa), prepared(pb));
  const score = match.total === 0 ? 0 : (2 * match.shared) / match.total;
  const out: Similarity = { score: Math.round(score * 1000) / 1000, duplicate: false };
  if (pa.negated !== pb.negated) out.conflict = "negation";
  else if (!sameList(pa.numbers, pb.numbers)) out.conflict = "number";
  else if (swapped(pa.words, pb.words)) out.conflict = "order";
  out.duplicate = out.conflict === undefined && score >= TIDY_THRESHOLD &&
    (match.onlyA === 0 || match.onlyB === 0);
  return out;
}

/**
 * Whether two profiles may be duplicates at all, cheaply: without a conflict of numbers or
 * negation, and with enough words in common that the words of one could all be in the other
 * (equal ones counted, the rest at best matched as abbreviations). `memo tidy` asks this
 * before {@linkcode similarity} for each candidate pair.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mayBeDuplicate, textProfile } from "@memo/memory";
 * const a = textProfile("Sprint planning is every other Monday at 10:00.");
 * assert.equal(mayBeDuplicate(a, textProfile("Every other Monday at 10:00 we have sprint planning.")), true);
 * assert.equal(mayBeDuplicate(a, textProfile("Lunch is at noon.")), false);
 * ```
 */
export function mayBeDuplicate(a: TextProfile, b: TextProfile): boolean {
  if (a.negated !== b.negated || !sameList(a.numbers, b.numbers)) return false;
  const pa = prepared(a);
  const pb = prepared(b);
  const [small, large] = pa.distinct.length <= pb.distinct.length ? [pa, pb] : [pb, pa];
  if (small.distinct.length === 0) return false;
  let missing = 0;
  for (const w of small.distinct) if (!large.at.has(w)) missing++;
  // Each missing word needs a word of the other text it begins (or that begins it).
  if (missing > large.distinct.length - (small.distinct.length - missing)) return false;
  // The Dice coefficient is at most this when every missing word is matched.
  return 2 * small.distinct.length / (small.distinct.length + large.distinct.length) >=
    TIDY_THRESHOLD;
}

/**
 * A profile's distinct words, in order of first use (computed once per profile).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { distinctWords, textProfile } from "@memo/memory";
 * assert.deepEqual(distinctWords(textProfile("Deploys deploy on Fridays")), ["deploy", "friday"]);
 * ```
 */
export function distinctWords(profile: TextProfile): readonly string[] {
  return prepared(profile).distinct;
}

/**
 * A profile's distinct words, where each is among them, which hold digits, their total weight,
 * and the key of each word's first three letters (-1 for a word that cannot match as an
 * abbreviation: shorter than three letters, or with a digit).
 */
interface Prepared {
  distinct: string[];
  at: Map<string, number>;
  digit: Uint8Array;
  total: number;
  head: Float64Array;
}

const preparedProfiles = new WeakMap<TextProfile, Prepared>();

function prepared(p: TextProfile): Prepared {
  let out = preparedProfiles.get(p);
  if (!out) {
    const at = new Map<string, number>();
    const distinct: string[] = [];
    for (const w of p.words) {
      if (!at.has(w)) {
        at.set(w, distinct.length);
        distinct.push(w);
      }
    }
    const digit = new Uint8Array(distinct.length);
    const head = new Float64Array(distinct.length);
    let total = 0;
    distinct.forEach((w, i) => {
      digit[i] = hasDigit(w) ? 1 : 0;
      total += digit[i] ? NUMBER_WEIGHT : 1;
      head[i] = digit[i] || w.length < 3
        ? -1
        : w.charCodeAt(0) * 0x100000000 + w.charCodeAt(1) * 0x10000 + w.charCodeAt(2);
    });
    out = { distinct, at, digit, total, head };
    preparedProfiles.set(p, out);
  }
  return out;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Weight of a number or an identifier with digits: it says more than a common word. */
const NUMBER_WEIGHT = 1.5;

/**
 * Matches the distinct words of `a` and `b` one to one: equal words first, then a word that
 * begins a longer one (three letters at least, no digits).
 */
function matchWords(a: Prepared, b: Prepared) {
  let shared = 0;
  let matchedA = 0;
  let matchedB = 0;
  const restA: number[] = [];
  const usedB = new Uint8Array(b.distinct.length);
  const indexB = b.at;
  a.distinct.forEach((w, i) => {
    const j = indexB.get(w);
    if (j === undefined) {
      if (a.head[i] >= 0) restA.push(i); // no digit, three letters at least
      return;
    }
    usedB[j] = 1;
    matchedA++;
    matchedB++;
    shared += a.digit[i] ? NUMBER_WEIGHT : 1;
  });
  const headB = b.head;
  for (const i of restA) {
    const w = a.distinct[i];
    const head = a.head[i];
    for (let j = 0; j < b.distinct.length; j++) {
      // One word begins the other only if they begin alike (and a word of B that cannot
      // match, having a digit or under three letters, has the head -1).
      if (headB[j] !== head || usedB[j]) continue;
      const v = b.distinct[j];
      if (w.length <= v.length ? v.startsWith(w) : w.startsWith(v)) {
        usedB[j] = 1;
        matchedA++;
        matchedB++;
        shared += 1;
        break;
      }
    }
  }
  return {
    shared,
    total: a.total + b.total,
    onlyA: a.distinct.length - matchedA,
    onlyB: b.distinct.length - matchedB,
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
