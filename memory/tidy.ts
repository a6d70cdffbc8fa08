/**
 * `memo tidy`'s proposals, computed from a list of notes: clusters of near-duplicates (keep the
 * newest, supersede the others) and notes whose `validUntil` has passed. Pure: nothing is
 * written; a person reviews the plan, and `Memo.applyTidy` applies its merges.
 *
 * - **Merges** join only pairs that {@linkcode tidyVerdict} merges under {@linkcode TIDY_RULE}:
 *   no difference in a number, a date, a version, a name, a negation, an order or a qualifier,
 *   the words of one note all in the other (the other may add a short lead-in such as "Heads
 *   up:"), a score of at least {@linkcode TIDY_THRESHOLD}. Each cluster is a star around its
 *   newest note: every other member is a duplicate of that note itself, so no chain of
 *   resemblances pulls in a note that does not say the same thing as the one kept.
 * - **Review.** A pair alike but for the facts it differs in is listed in the plan's `review`
 *   ("these differ in a number …"), for a person; applying a plan never merges it. A note the
 *   plan's merges supersede is left out of it (its keeper stands for it); at most
 *   {@linkcode MAX_REVIEW} pairs, the most alike first.
 * - **Candidates.** A note is compared only with the notes of its numbers and negation that hold
 *   one of its two rarest words, and, for review, with any note that holds its rarest word
 *   without a digit when at most 16 notes do: a tidy of 100,000 notes compares each with a few
 *   others, not with all.
 * - Superseded notes are history and take no part; notes valid over different times are never
 *   merged (expired ones are reported). A merge keeps the newest note, with every label of the notes
 *   it joins.
 *
 * @module
 */

import { contentHash, type Note } from "./notes/note.ts";
import { MemoryValidationError } from "./errors.ts";
import { isValidAt, SupersedeLinks, validTimeMs } from "./history/history.ts";
import { serializeNote } from "./store/codec.ts";
import { parseNotes } from "./store/parse.ts";
import {
  distinctWords,
  SIMILAR_THRESHOLD,
  TIDY_RULE,
  type TidyRule,
  tidyVerdict,
} from "./similarity.ts";
import { noteProfile } from "./similar_notes.ts";
import { hasDigit } from "./text_profile.ts";
import type { TidyNoteRef, TidyPlan, TidyProposal, TidyReview } from "./history/types.ts";

/** Rarest words of a note whose holders are its merge candidates. */
const RARE_WORDS = 2;
/** Most holders of the word through which a note finds the notes it may be reviewed with. */
const REVIEW_HOLDERS = 16;
/** A word held by more notes than this finds no candidates (it says nothing about a note). */
const MAX_HOLDERS = 2000;
/**
 * Most pairs a plan lists for review, and most pairs one note is in (its most alike): a store of
 * templated notes ("INC-1 resolved", "INC-2 resolved" …) would list every pair of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_REVIEW, type Note, planTidy } from "@memo/memory";
 * const note = (i: number): Note => ({
 *   id: `n${i}`, title: `Incident INC-${i} was resolved by a restart.`,
 *   body: `Incident INC-${i} was resolved by a restart.`, labels: [], hash: `h${i}`,
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * });
 * const plan = planTidy(Array.from({ length: 12 }, (_, i) => note(i)));
 * assert.equal(plan.proposals.length, 0); // each is another incident
 * const review = plan.review ?? [];
 * assert.ok(review.length > 0 && review.length <= 12); // each note in at most 2 pairs
 * ```
 */
export const MAX_REVIEW: Readonly<{ pairs: number; perNote: number }> = Object.freeze({
  pairs: 200,
  perNote: 2,
});

/**
 * Options of {@linkcode planTidy}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlanTidyOptions } from "@memo/memory";
 * const options: PlanTidyOptions = { now: new Date("2026-03-01T00:00:00Z"), sha256: "ab" };
 * assert.equal(options.sha256, "ab");
 * ```
 */
export interface PlanTidyOptions {
  /**
   * The time against which `validUntil` has passed.
   * @default new Date()
   */
  now?: Date;
  /** SHA-256 of the `notes.md` the notes were read from, carried by the plan. */
  sha256?: string;
  /**
   * The rule of a merge (for benchmarks that tune it).
   * @default TIDY_RULE
   */
  rule?: Readonly<TidyRule>;
}

/**
 * The tidy plan of a set of notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Note, planTidy } from "@memo/memory";
 * const note = (id: string, body: string, extra: Partial<Note> = {}): Note => ({
 *   id, title: body, body, labels: [], hash: id, created: `2026-01-0${id.slice(1)}T00:00:00.000Z`,
 *   updated: "2026-01-01T00:00:00.000Z", ...extra,
 * });
 * const plan = planTidy([
 *   note("n1", "Canary deploys hold at 5% of traffic for 30 minutes."),
 *   note("n2", "Heads up: canary deploys hold at 5% of traffic for 30 minutes."),
 *   note("n3", "Canary deploys hold at 10% of traffic for 30 minutes."),
 *   note("n4", "The beta API is open", { validUntil: "2026-02-01" }),
 * ], { now: new Date("2026-03-01T00:00:00Z") });
 * assert.deepEqual(plan.proposals.map((p) => p.kind), ["merge", "expired"]);
 * const [merge] = plan.proposals;
 * assert.ok(merge.kind === "merge");
 * assert.equal(merge.keep.id, "n2"); // the newest is kept
 * assert.deepEqual(merge.supersede.map((s) => s.id), ["n1"]); // 10% is another fact
 * ```
 */
export function planTidy(notes: readonly Note[], options: PlanTidyOptions = {}): TidyPlan {
  const nowMs = (options.now ?? new Date()).getTime();
  const links = new SupersedeLinks();
  for (const note of notes) links.upsert(note, undefined);
  const current = notes.filter((n) => links.of(n.id) === undefined);
  // A merge never crosses scopes, nor does a review pair: each scope's notes are compared among
  // themselves.
  const byScope = new Map<string | undefined, Note[]>();
  for (const note of current) {
    const group = byScope.get(note.scope);
    if (group) group.push(note);
    else byScope.set(note.scope, [note]);
  }
  const merges: TidyProposal[] = [];
  const review: TidyReview[] = [];
  for (const group of byScope.values()) {
    const one = mergeProposals(group, options.rule ?? TIDY_RULE);
    merges.push(...one.merges);
    review.push(...one.review);
  }
  if (byScope.size > 1) review.sort((a, b) => b.score - a.score).splice(MAX_REVIEW.pairs);
  const expired: TidyProposal[] = current
    .filter((n) => n.validUntil !== undefined && !isValidAt({ validUntil: n.validUntil }, nowMs))
    .sort((a, b) => validTimeMs(a.validUntil!) - validTimeMs(b.validUntil!))
    .map((n) => ({ kind: "expired", note: { ...ref(n), validUntil: n.validUntil! } }));
  const plan: TidyPlan = { version: 1, proposals: [...merges, ...expired] };
  if (options.sha256 !== undefined) plan.sha256 = options.sha256;
  if (review.length) plan.review = review;
  return plan;
}

function ref(note: Note): TidyNoteRef {
  return { id: note.id, title: note.title, created: note.created };
}

/** Newest first: the later `created`, then the larger id. */
function newer(a: Note, b: Note): number {
  const ta = Date.parse(a.created);
  const tb = Date.parse(b.created);
  if (ta !== tb) return (Number.isNaN(tb) ? -Infinity : tb) - (Number.isNaN(ta) ? -Infinity : ta);
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function mergeProposals(
  notes: readonly Note[],
  rule: Readonly<TidyRule>,
): { merges: TidyProposal[]; review: TidyReview[] } {
  // A merge joins notes of the same numbers, negation and validity: compared only within their
  // group (the other differences are looked for pair by pair).
  const groups = new Map<string, number>();
  const group = new Int32Array(notes.length);
  const holders = new Map<string, number[]>();
  const words = notes.map((note, i) => {
    const profile = noteProfile(note);
    // Notes valid over different times are never one note: one may expire while the other holds.
    const key = `${profile.negated ? 1 : 0}${[...new Set(profile.numbers)].join(" ")}|${
      note.validFrom ?? ""
    }|${note.validUntil ?? ""}`;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, g = groups.size);
    group[i] = g;
    const distinct = distinctWords(profile);
    for (const w of distinct) {
      const list = holders.get(w);
      if (list) list.push(i);
      else holders.set(w, [i]);
    }
    return distinct;
  });
  // Duplicate pairs, looked for among the holders of each note's rarest words; pairs to review
  // (of any group) among the holders of its rarest word without a digit, when few hold it.
  const edges = new Map<number, Map<number, number>>();
  const link = (i: number, j: number, score: number) => {
    for (const [x, y] of [[i, j], [j, i]]) {
      let m = edges.get(x);
      if (!m) edges.set(x, m = new Map());
      m.set(y, score);
    }
  };
  const review: TidyReview[] = [];
  // The least score of a merge or a review (tidyVerdict reviews from SIMILAR_THRESHOLD).
  const least = Math.min(SIMILAR_THRESHOLD, rule.threshold);
  const seen = new Int32Array(notes.length).fill(-1);
  const rare: number[][] = [];
  for (let i = 0; i < notes.length; i++) {
    rare.length = 0;
    let reviewList: number[] | undefined;
    for (const w of words[i]) {
      const list = holders.get(w)!;
      if (list.length <= 1 || list.length > MAX_HOLDERS) continue;
      rare.push(list);
      if (
        list.length <= REVIEW_HOLDERS && !hasDigit(w) &&
        (reviewList === undefined || list.length < reviewList.length)
      ) reviewList = list;
    }
    rare.sort((a, b) => a.length - b.length);
    if (reviewList !== undefined) rare.splice(RARE_WORDS, 0, reviewList);
    const size = words[i].length;
    for (let r = 0; r < rare.length && r <= RARE_WORDS; r++) {
      const anyGroup = rare[r] === reviewList;
      for (const j of rare[r]) {
        if (j === i || seen[j] === i || (!anyGroup && group[j] !== group[i])) continue;
        seen[j] = i;
        // Only the note with fewer words looks (the other finds it through its own words).
        const other = words[j].length;
        if (other < size || (other === size && j < i)) continue;
        if (!mayBeAlike(words[i], words[j], least)) continue;
        const v = tidyVerdict(noteProfile(notes[i]), noteProfile(notes[j]), rule);
        if (v.merge) {
          if (group[j] === group[i]) link(i, j, v.score);
        } else if (v.review) {
          const [x, y] = newer(notes[i], notes[j]) <= 0 ? [i, j] : [j, i];
          review.push({ notes: [ref(notes[x]), ref(notes[y])], score: v.score, differ: v.differ });
        }
      }
    }
  }
  // Stars around the newest notes.
  const order = [...edges.keys()].sort((a, b) => newer(notes[a], notes[b]));
  const taken = new Set<number>();
  const superseded = new Set<string>();
  const proposals: (TidyProposal & { kind: "merge" })[] = [];
  for (const k of order) {
    if (taken.has(k)) continue;
    const members = [...edges.get(k)!]
      .filter(([j]) => !taken.has(j) && newer(notes[k], notes[j]) < 0)
      .sort((a, b) => b[1] - a[1] || newer(notes[a[0]], notes[b[0]]));
    if (!members.length) continue;
    taken.add(k);
    for (const [j] of members) {
      taken.add(j);
      superseded.add(notes[j].id);
    }
    proposals.push({
      kind: "merge",
      keep: ref(notes[k]),
      supersede: members.map(([j, score]) => ({ ...ref(notes[j]), score })),
    });
  }
  proposals.sort((a, b) =>
    b.supersede.length - a.supersede.length || (a.keep.created < b.keep.created ? 1 : -1)
  );
  // A note this plan supersedes is reviewed through its keeper (a duplicate of it).
  review.sort((a, b) =>
    b.score - a.score || (a.notes[0].created < b.notes[0].created ? 1 : -1) ||
    (a.notes[0].id < b.notes[0].id ? -1 : 1)
  );
  const reviews: TidyReview[] = [];
  const perNote = new Map<string, number>();
  for (const r of review) {
    if (reviews.length >= MAX_REVIEW.pairs) break;
    const ids = r.notes.map((n) => n.id);
    if (ids.some((id) => superseded.has(id) || (perNote.get(id) ?? 0) >= MAX_REVIEW.perNote)) {
      continue;
    }
    for (const id of ids) perNote.set(id, (perNote.get(id) ?? 0) + 1);
    reviews.push(r);
  }
  return { merges: proposals, review: reviews };
}

/** A distinct word list as a set, and each word's first three letters (once per list). */
interface Lookup {
  set: Set<string>;
  /** Each word's first three letters as a number, -1 for one that cannot be an abbreviation. */
  heads: Float64Array;
  headSet: Set<number>;
}
const lookups = new WeakMap<readonly string[], Lookup>();

function lookupOf(words: readonly string[]): Lookup {
  let out = lookups.get(words);
  if (!out) {
    const heads = new Float64Array(words.length);
    const headSet = new Set<number>();
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      heads[i] = w.length < 3 || hasDigit(w)
        ? -1
        : w.charCodeAt(0) * 0x100000000 + w.charCodeAt(1) * 0x10000 + w.charCodeAt(2);
      if (heads[i] >= 0) headSet.add(heads[i]);
    }
    out = { set: new Set(words), heads, headSet };
    lookups.set(words, out);
  }
  return out;
}

/**
 * Whether two notes' distinct words may score `threshold` or more at all, cheaply: as if every
 * word of the smaller that the other lacks matched one of its words beginning alike. Counted by
 * words, not weights, with a little room for numbers, which weigh more.
 */
function mayBeAlike(
  small: readonly string[],
  large: readonly string[],
  threshold: number,
): boolean {
  const n = small.length + large.length;
  if (n === 0 || 2 * small.length / n < threshold - 0.05) return false;
  const l = lookupOf(large);
  const heads = lookupOf(small).heads;
  let equal = 0;
  let abbreviable = 0;
  for (let i = 0; i < small.length; i++) {
    if (l.set.has(small[i])) equal++;
    else if (heads[i] >= 0 && l.headSet.has(heads[i])) abbreviable++;
  }
  const shared = equal + Math.min(abbreviable, large.length - equal);
  return 2 * shared / n >= threshold - 0.05;
}

/**
 * The merges of a plan, checked: `keep` and the ids it supersedes, for each merge proposal (the
 * expired ones are left out). Throws `MemoryValidationError` for what is not a tidy plan.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tidyMerges } from "@memo/memory";
 * const keep = { id: "n2", title: "t", created: "c" };
 * const plan = { version: 1 as const, proposals: [{ kind: "merge" as const, keep, supersede: [{ ...keep, id: "n1", score: 1 }] }] };
 * assert.deepEqual(tidyMerges(plan), [{ keep: "n2", supersede: ["n1"] }]);
 * assert.throws(() => tidyMerges({ version: 2 } as never), /not a tidy plan/);
 * ```
 */
export function tidyMerges(
  plan: TidyPlan,
  action = "apply the tidy plan",
): { keep: string; supersede: string[] }[] {
  const bad = (why: string) => new MemoryValidationError(`Cannot ${action}: ${why}`);
  if (!plan || typeof plan !== "object" || plan.version !== 1 || !Array.isArray(plan.proposals)) {
    throw bad("it is not a tidy plan (version 1, with proposals)");
  }
  if (plan.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(String(plan.sha256))) {
    throw bad("its sha256 is not a SHA-256 in hex");
  }
  const out: { keep: string; supersede: string[] }[] = [];
  for (const p of plan.proposals) {
    if (p?.kind === "expired") continue;
    const ids = p?.kind === "merge" && Array.isArray(p.supersede)
      ? p.supersede.map((s) => s?.id)
      : undefined;
    if (
      !ids || typeof p.keep?.id !== "string" || !ids.length ||
      !ids.every((id) => typeof id === "string")
    ) {
      throw bad("a proposal is neither a merge (keep, supersede) nor an expired note");
    }
    out.push({ keep: p.keep.id, supersede: ids as string[] });
  }
  return out;
}

/**
 * The keepers of a plan's merges as they will be stored: each gains the ids it supersedes in its
 * `supersedes` (those it has already are not added twice), with `updated` and a new hash; a
 * keeper that gains nothing is left out. Also the ids newly superseded, and the first id the
 * plan names that `get` does not know (the plan is stale then).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergedKeepers, type Note } from "@memo/memory";
 * const note = (id: string): Note => ({ id, title: id, body: id, labels: [], hash: id, created: "c", updated: "c" });
 * const notes = new Map([["n1", note("n1")], ["n2", note("n2")]]);
 * const { keepers, superseded, missing } = mergedKeepers(
 *   [{ keep: "n2", supersede: ["n1"] }], (id) => notes.get(id), "2026-03-01T00:00:00.000Z",
 * );
 * assert.deepEqual(keepers.map((k) => k.supersedes), [["n1"]]);
 * assert.deepEqual([superseded, missing], [["n1"], undefined]);
 * ```
 */
export function mergedKeepers(
  merges: readonly { keep: string; supersede: readonly string[] }[],
  get: (id: string) => Note | undefined,
  updated: string,
): { keepers: Note[]; superseded: string[]; missing?: string } {
  const keepers = new Map<string, Note>();
  const superseded: string[] = [];
  for (const merge of merges) {
    const keeper = keepers.get(merge.keep) ?? get(merge.keep);
    if (!keeper) return { keepers: [], superseded: [], missing: merge.keep };
    const gone = merge.supersede.find((id) => !get(id));
    if (gone !== undefined) return { keepers: [], superseded: [], missing: gone };
    const had = keeper.supersedes ?? [];
    const adds = merge.supersede.filter((id) => !had.includes(id) && id !== keeper.id);
    if (!adds.length) continue;
    superseded.push(...adds);
    const { supersededBy: _derived, ...stored } = keeper;
    // The kept note is found under every label the notes it joins had.
    const labels = [...new Set([...keeper.labels, ...adds.flatMap((id) => get(id)!.labels)])];
    const next: Note = { ...stored, labels, supersedes: [...had, ...adds], updated };
    next.hash = contentHash(next);
    keepers.set(merge.keep, next);
  }
  return { keepers: [...keepers.values()], superseded };
}

/**
 * What `notes.md` would hold once the merges of `plan` are applied to `text` (the preview
 * `memo tidy` prints as a diff): each keeper's section is written again, every other byte kept.
 * Throws `MemoryValidationError` when the plan names a note the text does not hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTES_PREAMBLE, type Note, planTidy, serializeNote, tidyText } from "@memo/memory";
 * const note = (id: string, body: string, created: string): Note =>
 *   ({ id, title: body, body, labels: [], hash: id, created, updated: created });
 * const a = note("n1", "Canary deploys hold at 5% of traffic.", "2026-01-01T00:00:00.000Z");
 * const b = note("n2", "FYI canary deploys hold at 5% of traffic.", "2026-01-02T00:00:00.000Z");
 * const text = NOTES_PREAMBLE + serializeNote(a) + serializeNote(b);
 * const after = tidyText(text, planTidy([a, b]), new Date("2026-03-01T00:00:00Z"));
 * assert.ok(after.includes('"supersedes":["n1"]'));
 * assert.ok(after.startsWith(NOTES_PREAMBLE + serializeNote(a))); // the rest is kept
 * ```
 */
export function tidyText(text: string, plan: TidyPlan, now: Date = new Date()): string {
  const { sections, byId } = parseNotes(text);
  const merges = tidyMerges(plan, "preview the tidy plan");
  const { keepers, missing } = mergedKeepers(
    merges,
    (id) => byId.get(id)?.note,
    now.toISOString(),
  );
  if (missing !== undefined) {
    throw new MemoryValidationError(
      `Cannot preview the tidy plan: notes.md holds no note ${missing}; make a new plan`,
    );
  }
  const raws = new Map(keepers.map((k) => [byId.get(k.id)!, serializeNote(k)]));
  return sections.map((s) => raws.get(s) ?? s.raw).join("");
}
