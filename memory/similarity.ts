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
 * - **Differences.** Two texts that differ in a number ("30 days" against "90 days"), a date
 *   ("Monday", "May", "2025-03-04"), a version ("Node 20" against "Node 20.1"), a name (a word
 *   written with a capital where no sentence begins: "… in Lisbon"; "Dan" is no abbreviation of
 *   "Dana"), a negation ("not", "never", "nicht", "pas" …), the roles of their words ("from blue
 *   to green" against "from green to blue", "Terraform over Pulumi") or a qualifier ("must"
 *   against "may", "all" against "some" or "only", "we" against "they") state different facts
 *   however alike they read ({@linkcode factDifferences}).
 * - **Merge.** `memo tidy` proposes to merge only what {@linkcode tidyVerdict} merges under
 *   {@linkcode TIDY_RULE}: no difference, a score at or above {@linkcode TIDY_THRESHOLD}, the
 *   words of one text all found in the other, which adds at most a short label ("Heads up:")
 *   and no item to a list ("staging and production"). A pair that differs only in such facts is
 *   listed for review instead.
 *
 * The rule was chosen by 5-fold cross-validation on labelled pairs of project notes, the dev
 * pairs and pairs of our own that change one fact (see `bench/README.md`).
 *
 * @module
 */

import { hasDigit, type TextProfile, textProfile } from "./text_profile.ts";
import { PLAIN_QUALIFIERS } from "./_text_facts.ts";
import type { TidyDifference } from "./history/types.ts";

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
 * Score at or above which `memo tidy` may propose a merge (with no fact they differ in, one
 * text's words all in the other; see {@linkcode TIDY_RULE}). Chosen by 5-fold cross-validation
 * (`bench/dedupe_quality.ts`); 0.6 to 0.8 merge the same pairs there, and the stricter won.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TIDY_THRESHOLD } from "@memo/memory";
 * assert.ok(TIDY_THRESHOLD > 0.5 && TIDY_THRESHOLD <= 1);
 * ```
 */
export const TIDY_THRESHOLD = 0.8;

/**
 * Score at or above which `memo tidy` lists two notes that differ in a fact for review (see
 * {@linkcode tidyVerdict}): the score at which `remember` calls a note similar.
 */
const REVIEW_THRESHOLD = SIMILAR_THRESHOLD;

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
  /** Why the two texts state different facts, if they do (the first of {@linkcode Similarity.differ}). */
  conflict?: TidyDifference;
  /** Every way the two texts differ in a fact, when they do (see {@linkcode factDifferences}). */
  differ?: TidyDifference[];
  /** Whether `memo tidy` may merge them (see the module doc). */
  duplicate: boolean;
}

/**
 * The rule by which `memo tidy` proposes a merge: a score at or above `threshold`, no
 * {@linkcode TidyDifference}, the words of one text all in the other, and at most `maxExtra`
 * words of the other beyond them; with `extra: "lead"`, only before the words they share (a
 * lead-in such as "Heads up:"), since a word added after them adds a fact ("… in Lisbon").
 * Chosen by cross-validation on labelled pairs (`bench/dedupe_quality.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyRule } from "@memo/memory";
 * const strict: TidyRule = { threshold: 0.9, extra: "label", maxExtra: 0 };
 * assert.equal(strict.maxExtra, 0);
 * ```
 */
export interface TidyRule {
  /** Least score of a merge. */
  threshold: number;
  /**
   * Where the longer text's extra words may stand: anywhere; before the shared words; in a label
   * the text begins with ("Heads up:", "Decision:": up to three words before a colon or a dash);
   * or (`moved`) in a label, and anywhere when the shared words come in another order: a text
   * said again in other words, where an added word is mostly grammar ("is deployed" against "we
   * deploy"). When the shared words keep their order, a word inserted among them is an edit of
   * the fact ("the public API").
   */
  extra: "label" | "lead" | "moved" | "any";
  /** Most extra words of the longer text. */
  maxExtra: number;
}

/**
 * The rule `memo tidy` ships (see {@linkcode TidyRule} and `bench/README.md`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TIDY_RULE, TIDY_THRESHOLD } from "@memo/memory";
 * assert.equal(TIDY_RULE.threshold, TIDY_THRESHOLD);
 * ```
 */
export const TIDY_RULE: Readonly<TidyRule> = Object.freeze({
  threshold: TIDY_THRESHOLD,
  extra: "label",
  maxExtra: 2,
});

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
  const verdict = tidyVerdict(pa, pb, TIDY_RULE);
  const out: Similarity = { score: verdict.score, duplicate: verdict.merge };
  if (verdict.differ.length) {
    out.conflict = verdict.differ[0];
    out.differ = verdict.differ;
  }
  return out;
}

/**
 * How `memo tidy` judges a pair of texts under `rule`: the score, the facts they differ in, and
 * whether to propose their merge (`merge`) or list them for a person to look at (`review`: alike,
 * a score of at least {@linkcode SIMILAR_THRESHOLD}, but for the facts they differ in). At most
 * one of the two is true. Below both thresholds `differ` is left empty (not looked for).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TIDY_RULE, textProfile, tidyVerdict } from "@memo/memory";
 * const v = tidyVerdict(
 *   textProfile("Log retention in Datadog is 15 days."),
 *   textProfile("Log retention in Datadog is 30 days."),
 *   TIDY_RULE,
 * );
 * assert.deepEqual([v.merge, v.review, v.differ], [false, true, ["number"]]);
 * ```
 */
export function tidyVerdict(
  pa: TextProfile,
  pb: TextProfile,
  rule: Readonly<TidyRule> = TIDY_RULE,
): { score: number; differ: TidyDifference[]; merge: boolean; review: boolean } {
  const a = prepared(pa);
  const b = prepared(pb);
  const prefixed: [number, number][] = [];
  const match = matchWords(a, b, prefixed);
  const raw = match.total === 0 ? 0 : (2 * match.shared) / match.total;
  const score = Math.round(raw * 1000) / 1000;
  if (raw < Math.min(REVIEW_THRESHOLD, rule.threshold)) {
    // Too unlike to merge or to review: what they differ in is not looked for.
    return { score, differ: [], merge: false, review: false };
  }
  const differ = differences(pa, pb, prefixed.map(([i, j]) => [a.distinct[i], b.distinct[j]]));
  // The shorter text's words all in the longer one, its extra words within the rule.
  let contained = false;
  for (const [small, large, used] of [[a, b, match.usedB], [b, a, match.usedA]] as const) {
    if ((small === a ? match.onlyA : match.onlyB) !== 0) continue;
    let extra = 0;
    let lead = true;
    let labelled = true;
    let listed = false;
    const label = (large === a ? pa : pb).facts?.label ?? [];
    let seenShared = false;
    const items = (large === a ? pa : pb).facts?.listed ?? [];
    for (let j = 0; j < large.distinct.length; j++) {
      if (used[j]) seenShared = true;
      else if (!large.digit[j]) { // a number is judged as a difference, not as a word
        extra++;
        if (seenShared) lead = false;
        if (!label.includes(large.distinct[j])) labelled = false;
        // "Staging and production deploys": an item added to a list is another fact.
        if (items.includes(large.distinct[j])) listed = true;
      }
    }
    const placed = rule.extra === "any" ||
      (rule.extra === "lead"
        ? lead
        : labelled || (rule.extra === "moved" && reordered(match.pairs)));
    if (extra <= rule.maxExtra && placed && !listed) contained = true;
  }
  const alike = raw >= rule.threshold;
  const merge = alike && contained && differ.length === 0;
  // A review: alike, but for the facts they differ in.
  const review = !merge && differ.length > 0 && raw >= Math.min(REVIEW_THRESHOLD, rule.threshold);
  return { score, differ, merge, review };
}

/**
 * The facts in which two texts (or their profiles) differ: a number, a date, a version, a name,
 * a negation, the roles of their words, or a qualifier ({@linkcode TidyDifference}); empty when
 * they state the same facts (each once, in that order).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { factDifferences } from "@memo/memory";
 * assert.deepEqual(factDifferences("The SDK supports Node 20.", "The SDK supports Node 22."), ["version"]);
 * assert.deepEqual(factDifferences("Traffic moves from blue to green.", "Traffic moves from green to blue."), ["order"]);
 * assert.deepEqual(factDifferences("Releases are tagged by Priya.", "Releases are tagged by Priya and Omar."), ["name"]);
 * assert.deepEqual(factDifferences("Config changes must be reviewed.", "Config changes may be reviewed."), ["qualifier"]);
 * assert.deepEqual(factDifferences("Deploys pause on Fridays.", "On Fridays deploys pause."), []);
 * ```
 */
export function factDifferences(
  a: string | TextProfile,
  b: string | TextProfile,
): TidyDifference[] {
  const pa = typeof a === "string" ? textProfile(a) : a;
  const pb = typeof b === "string" ? textProfile(b) : b;
  const prefixed: [number, number][] = [];
  const x = prepared(pa);
  const y = prepared(pb);
  matchWords(x, y, prefixed);
  return differences(pa, pb, prefixed.map(([i, j]) => [x.distinct[i], y.distinct[j]]));
}

const ORDER: readonly TidyDifference[] = [
  "negation",
  "number",
  "date",
  "version",
  "name",
  "order",
  "qualifier",
];

function differences(
  pa: TextProfile,
  pb: TextProfile,
  prefixed: readonly [string, string][],
): TidyDifference[] {
  const found = new Set<TidyDifference>();
  const fa = pa.facts;
  const fb = pb.facts;
  if (pa.negated !== pb.negated) found.add("negation");
  // A number said twice (in a title and its body) is the same number.
  const kinds = (n: string) => fa?.kinds.get(n) ?? fb?.kinds.get(n) ?? "number";
  for (const n of symmetricDifference(pa.numbers, pb.numbers)) found.add(kinds(n));
  if (swapped(pa.words, pb.words)) found.add("order");
  if (fa && fb) {
    if (!sameList(fa.dates, fb.dates)) found.add("date");
    const inA = prepared(pa).at;
    const inB = prepared(pb).at;
    if (fa.names.some((n) => !inB.has(n)) || fb.names.some((n) => !inA.has(n))) found.add("name");
    // "Dan" is not "Dana", nor "Java" "JavaScript": no abbreviation between two names.
    if (prefixed.some(([u, v]) => fa.caps.includes(u) && fb.caps.includes(v))) found.add("name");
    if (
      rolesSwapped(fa.roles, fb.roles, inA, inB) ||
      namesReordered(fa.caps, fb.caps, pa.words, pb.words)
    ) {
      found.add("order");
    }
    if (qualifiersDiffer(fa.qualifiers, fb.qualifiers)) found.add("qualifier");
  }
  return ORDER.filter((d) => found.has(d));
}

/** The values that one list holds and the other does not. */
function symmetricDifference(a: readonly string[], b: readonly string[]): string[] {
  if (sameList(a, b)) return [];
  const sa = new Set(a);
  const sb = new Set(b);
  return [...sa].filter((x) => !sb.has(x)).concat([...sb].filter((x) => !sa.has(x)));
}

/**
 * Whether a relation word that both texts use has, after it, a word of the other text's in each
 * ("from blue … to green" against "from green … to blue").
 */
function rolesSwapped(
  a: readonly string[],
  b: readonly string[],
  inA: ReadonlyMap<string, number>,
  inB: ReadonlyMap<string, number>,
): boolean {
  for (const ra of a) {
    const [rel, x] = ra.split(">");
    for (const rb of b) {
      const [rel2, y] = rb.split(">");
      if (rel !== rel2 || x === y) continue;
      if (inB.has(x) && inA.has(y) && !b.includes(`${rel}>${x}`) && !a.includes(`${rel}>${y}`)) {
        return true;
      }
    }
  }
  return false;
}

/**
 * Whether two names that both texts write with capitals trade places around the same words
 * ("Mei reviews Tom's changes" against "Tom reviews Mei's changes").
 */
function namesReordered(
  capsA: readonly string[],
  capsB: readonly string[],
  a: readonly string[],
  b: readonly string[],
): boolean {
  const common = capsA.filter((w) => capsB.includes(w));
  for (let i = 0; i < common.length; i++) {
    for (let k = i + 1; k < common.length; k++) {
      const [x, y] = [common[i], common[k]];
      const [ax, ay, bx, by] = [a.indexOf(x), a.indexOf(y), b.indexOf(x), b.indexOf(y)];
      if (ax < 0 || ay < 0 || bx < 0 || by < 0 || (ax < ay) === (bx < by)) continue;
      const between = a.slice(Math.min(ax, ay) + 1, Math.max(ax, ay)).join(" ");
      if (between === b.slice(Math.min(bx, by) + 1, Math.max(bx, by)).join(" ")) return true;
    }
  }
  return false;
}

/**
 * Whether the qualifiers differ: each kind (modal, quantifier, person) that both texts use must
 * be the same; one text alone may hold only a plain one ("must", "all") or a person.
 */
function qualifiersDiffer(a: readonly string[], b: readonly string[]): boolean {
  for (const [x, y] of [[a, b], [b, a]]) {
    for (const q of x) {
      if (y.includes(q)) continue;
      const kind = q.slice(0, q.indexOf(":"));
      const other = y.some((r) => r.startsWith(kind + ":"));
      if (other) return true; // both use the kind, differently
      if (!PLAIN_QUALIFIERS.has(q) && kind !== "person") return true;
    }
  }
  return false;
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
/** Whether matched words (index in A, index in B, in A's order) come in another order in B. */
function reordered(pairs: readonly number[]): boolean {
  for (let k = 3; k < pairs.length; k += 2) if (pairs[k] < pairs[k - 2]) return true;
  return false;
}

function matchWords(a: Prepared, b: Prepared, prefixed?: [number, number][]) {
  let shared = 0;
  let matchedA = 0;
  let matchedB = 0;
  const restA: number[] = [];
  const usedA = new Uint8Array(a.distinct.length);
  const usedB = new Uint8Array(b.distinct.length);
  const partner = new Int32Array(a.distinct.length).fill(-1);
  const indexB = b.at;
  a.distinct.forEach((w, i) => {
    const j = indexB.get(w);
    if (j === undefined) {
      if (a.head[i] >= 0) restA.push(i); // no digit, three letters at least
      return;
    }
    usedA[i] = 1;
    usedB[j] = 1;
    partner[i] = j;
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
        usedA[i] = 1;
        usedB[j] = 1;
        partner[i] = j;
        prefixed?.push([i, j]);
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
    usedA,
    usedB,
    /** Flat [i, j, …]: each matched word's index in A and in B, in A's order. */
    get pairs(): number[] {
      const out: number[] = [];
      partner.forEach((j, i) => {
        if (j >= 0) out.push(i, j);
      });
      return out;
    },
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
