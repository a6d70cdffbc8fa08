/**
 * The tidy rule's k-fold cross-validation (issue 35), for `dedupe_quality.ts`: which merges
 * `planTidy` proposes over labelled pairs, under each candidate {@linkcode TidyRule}, fold by
 * fold; on k − 1 folds the rule is chosen, on the one left out it is scored.
 *
 * - **Counting.** The notes of a set of pairs go into one plan (each pair's `a` a day older than
 *   its `b`). A merge is right when it joins the two notes of a `duplicate` pair; every other pair
 *   of notes a merge joins is wrong (a distinct pair, or notes of two pairs). Precision is right
 *   over all merged pairs (1 when nothing is merged); recall, the duplicate pairs merged over the
 *   duplicate pairs. Review items are counted apart: they are never merged.
 * - **Choosing.** Among the candidate rules, the one with the best recall over the training folds
 *   whose *worst* training fold keeps a precision of at least {@linkcode PRECISION_GOAL}; a tie
 *   goes to the stricter rule (the earlier in the list).
 *
 * @module
 */

import { type Note, planTidy, type TidyRule } from "../memory/mod.ts";

/** A labelled pair of notes. */
export interface Pair {
  a: string;
  b: string;
  label: "duplicate" | "distinct";
  kind: string;
}

/** The precision every fold must keep. */
export const PRECISION_GOAL = 0.95;

/** What one plan over some pairs merged. */
export interface TidyCounts {
  right: number;
  wrong: number;
  duplicates: number;
  /** The pairs reviewed rather than merged: duplicates and distinct ones. */
  reviewedDuplicates: number;
  reviewedDistinct: number;
  wrongPairs: string[];
}

const note = (id: string, text: string, created: string): Note => ({
  id,
  title: text,
  body: text,
  labels: [],
  hash: id,
  created,
  updated: created,
});

/** The merges and reviews of one plan over `pairs` (ids `a<i>`, `b<i>` by index in `pairs`). */
export function tidyCounts(pairs: readonly Pair[], rule: TidyRule): TidyCounts {
  const notes = pairs.flatMap((p, i) => [
    note(`a${i}`, p.a, "2026-01-01T00:00:00.000Z"),
    note(`b${i}`, p.b, "2026-01-02T00:00:00.000Z"),
  ]);
  const plan = planTidy(notes, { now: new Date("2026-02-01T00:00:00Z"), rule });
  const c: TidyCounts = {
    right: 0,
    wrong: 0,
    duplicates: pairs.filter((p) => p.label === "duplicate").length,
    reviewedDuplicates: 0,
    reviewedDistinct: 0,
    wrongPairs: [],
  };
  const samePair = (x: string, y: string) => x.slice(1) === y.slice(1) ? Number(x.slice(1)) : -1;
  for (const p of plan.proposals) {
    if (p.kind !== "merge") continue;
    for (const other of p.supersede) {
      const i = samePair(p.keep.id, other.id);
      if (i >= 0 && pairs[i].label === "duplicate") c.right++;
      else {
        c.wrong++;
        c.wrongPairs.push(
          i >= 0 ? `${pairs[i].a} | ${pairs[i].b}` : `${p.keep.title} | ${other.title}`,
        );
      }
    }
  }
  for (const r of plan.review ?? []) {
    const i = samePair(r.notes[0].id, r.notes[1].id);
    if (i < 0) continue;
    if (pairs[i].label === "duplicate") c.reviewedDuplicates++;
    else c.reviewedDistinct++;
  }
  return c;
}

/** Precision and recall of counts (summed). */
export function rates(counts: readonly TidyCounts[]) {
  const sum = (k: "right" | "wrong" | "duplicates") => counts.reduce((n, c) => n + c[k], 0);
  const merged = sum("right") + sum("wrong");
  return {
    precision: merged ? sum("right") / merged : 1,
    recall: sum("duplicates") ? sum("right") / sum("duplicates") : 0,
    merges: merged,
    wrong: sum("wrong"),
  };
}

/** The fold of each pair: its index modulo `k` within its own file, so each file spreads evenly. */
export function foldsOf(sets: readonly (readonly Pair[])[], k: number): Pair[][] {
  const folds: Pair[][] = Array.from({ length: k }, () => []);
  for (const set of sets) set.forEach((p, i) => folds[i % k].push(p));
  return folds;
}

/** One held-out fold's result. */
export interface HeldOut {
  fold: number;
  rule: TidyRule;
  precision: number;
  recall: number;
  merges: number;
  wrong: string[];
}

/**
 * k-fold cross-validation of the choice among `rules`: for each fold, the rule chosen on the
 * others (see the module doc) and its precision and recall on the fold left out. Also the rule
 * chosen on all folds, with its worst fold.
 */
export function crossValidate(folds: readonly Pair[][], rules: readonly TidyRule[]) {
  // Every rule on every fold, once.
  const table = rules.map((rule) => folds.map((fold) => tidyCounts(fold, rule)));
  const choose = (use: readonly number[]) => {
    let best = -1;
    let bestRecall = -1;
    rules.forEach((_, r) => {
      const worst = Math.min(...use.map((f) => rates([table[r][f]]).precision));
      const recall = rates(use.map((f) => table[r][f])).recall;
      if (worst >= PRECISION_GOAL && recall > bestRecall + 1e-9) [best, bestRecall] = [r, recall];
    });
    return best < 0 ? 0 : best;
  };
  const all = folds.map((_, f) => f);
  const heldOut: HeldOut[] = folds.map((_, f) => {
    const r = choose(all.filter((g) => g !== f));
    const c = table[r][f];
    const { precision, recall, merges } = rates([c]);
    return { fold: f, rule: rules[r], precision, recall, merges, wrong: c.wrongPairs };
  });
  const chosen = choose(all);
  return {
    heldOut,
    chosen: rules[chosen],
    chosenFolds: all.map((f) => rates([table[chosen][f]])),
    table: rules.map((rule, r) => ({
      rule,
      ...rates(table[r]),
      worst: Math.min(...all.map((f) => rates([table[r][f]]).precision)),
    })),
  };
}

/**
 * The candidate rules: thresholds × where and how many extra words: none, in a label ("Heads
 * up:"), in a label or anywhere in a text said in another order (`moved`), anywhere; and `withLead`, before the shared words without a label's colon (left out by
 * default: it cannot tell "Heads up" from "Error" in "Error logs are shipped …", and with it the
 * held-out fold that holds such a pair drops to 0.857; see `bench/README.md`).
 */
export function candidateRules(withLead = false): TidyRule[] {
  const out: TidyRule[] = [];
  for (const threshold of [0.9, 0.8, 0.7, 0.6]) {
    for (
      const [extra, maxExtra] of [
        ["lead", 0],
        ["label", 1],
        ["label", 2],
        ["label", 3],
        ["moved", 1],
        ["moved", 2],
        ["moved", 3],
        ["any", 1],
        ["any", 2],
        ["any", 3],
        ...(withLead ? [["lead", 1], ["lead", 2], ["lead", 3]] as const : []),
      ] as const
    ) {
      out.push({ threshold, extra, maxExtra });
    }
  }
  return out;
}

/** "0.8/lead≤2". */
export const ruleName = (r: TidyRule) => `${r.threshold}/${r.extra}≤${r.maxExtra}`;
