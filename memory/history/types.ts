/**
 * The types of "notes that stay true": what `remember` says of near-duplicates, and the inputs
 * and answers of {@linkcode Memo.correct}, {@linkcode Memo.supersede}, {@linkcode Memo.tidy}
 * and {@linkcode Memo.applyTidy}.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import type { SecretRedaction } from "../secrets/guard.ts";

/**
 * A stored note that resembles a note just remembered: a near-duplicate, or a note on the same
 * subject that may contradict it (what `correct`, `supersede` or `forget` are for).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type SimilarNote } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
 * await memo.remember({ text: "The audit log is kept for 12 months." });
 * const { similar } = await memo.remember({ text: "Audit logs are kept for 12 months." });
 * const [first]: SimilarNote[] = similar ?? [];
 * assert.equal(first.title, "The audit log is kept for 12 months.");
 * assert.ok(first.score > 0 && first.score <= 1);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface SimilarNote {
  /** The similar note's id. */
  id: string;
  /** Its title. */
  title: string;
  /** Similarity, 0 to 1 (1: the same words). */
  score: number;
}

/**
 * What {@linkcode Memo.correct} takes: the note whose fact changed, and the new fact.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CorrectInput, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "Deploys run on Fridays", labels: ["ops"] });
 * const input: CorrectInput = { id: note.id, text: "Deploys run on Mondays", validFrom: "2026-03-02" };
 * const { note: fixed, superseded } = await memo.correct(input);
 * assert.deepEqual(superseded, [note.id]);
 * assert.deepEqual(fixed.labels, ["ops"]); // labels not given: the old note's
 * assert.equal((await memo.get(note.id)).validUntil, "2026-03-02");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface CorrectInput {
  /** Id of the note whose fact changed. */
  id: string;
  /** The new fact's text. */
  text: string;
  /** Title of the new note; derived from the text when missing. */
  title?: string;
  /**
   * Labels of the new note.
   * @default the old note's labels
   */
  labels?: readonly string[];
  /**
   * When the new fact starts to hold (ISO date or date-time); the old note's `validUntil`
   * becomes this.
   * @default none (the old note's `validUntil` becomes now)
   */
  validFrom?: string;
}

/**
 * What {@linkcode Memo.correct} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CorrectResult } from "@memo/memory";
 * const result: CorrectResult = {
 *   note: {
 *     id: "n2", title: "Deploys run on Mondays", body: "Deploys run on Mondays", labels: [],
 *     hash: "h", created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z",
 *     supersedes: ["n1"],
 *   },
 *   superseded: ["n1"],
 * };
 * assert.deepEqual(result.note.supersedes, result.superseded);
 * ```
 */
export interface CorrectResult {
  /** The note that holds the new fact (it supersedes the old one). */
  note: Note;
  /** Ids of the notes it superseded in this call (the corrected one). */
  superseded: string[];
  /**
   * What the secrets guard replaced with `[redacted:<rule-id>]` in the new text, title or
   * labels: rule ids and fields, never values; absent when nothing was.
   */
  redacted?: SecretRedaction[];
}

/**
 * What {@linkcode Memo.supersede} takes: notes that say what `by` says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type SupersedeInput } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note: a } = await memo.remember({ text: "Staging lives in eu-west-1" });
 * const { note: b } = await memo.remember({ text: "The staging environment is in eu-west-1" });
 * const input: SupersedeInput = { ids: [a.id], by: b.id };
 * const result = await memo.supersede(input);
 * assert.deepEqual(result.note.supersedes, [a.id]);
 * assert.deepEqual((await memo.get(a.id)).supersededBy, [b.id]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface SupersedeInput {
  /** Ids of the notes to mark as superseded. */
  ids: readonly string[];
  /** Id of the note that supersedes them. */
  by: string;
}

/**
 * What {@linkcode Memo.supersede} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SupersedeResult } from "@memo/memory";
 * const result: SupersedeResult = {
 *   note: {
 *     id: "n2", title: "t", body: "b", labels: [], hash: "h", supersedes: ["n1"],
 *     created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z",
 *   },
 *   superseded: ["n1"],
 * };
 * assert.equal(result.superseded.length, 1);
 * ```
 */
export interface SupersedeResult {
  /** The superseding note, as stored now. */
  note: Note;
  /** The ids it supersedes that this call added (empty when every link was there already). */
  superseded: string[];
}

/**
 * A note named by a tidy proposal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyNoteRef } from "@memo/memory";
 * const ref: TidyNoteRef = { id: "n1", title: "Deploys", created: "2026-01-01T00:00:00.000Z" };
 * assert.equal(ref.id, "n1");
 * ```
 */
export interface TidyNoteRef {
  /** The note's id. */
  id: string;
  /** Its title. */
  title: string;
  /** When memo recorded it. */
  created: string;
}

/**
 * One proposal of {@linkcode Memo.tidy}: a cluster of near-duplicates to merge (keep the newest,
 * supersede the others), or a note whose `validUntil` has passed (for a person to `correct` or
 * `forget`; applying a plan leaves it alone).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyProposal } from "@memo/memory";
 * const merge: TidyProposal = {
 *   kind: "merge",
 *   keep: { id: "n2", title: "Canary deploys hold at 5%", created: "2026-02-01T00:00:00.000Z" },
 *   supersede: [{ id: "n1", title: "Canary deploys hold at 5% of traffic", created: "2026-01-01T00:00:00.000Z", score: 0.9 }],
 * };
 * assert.equal(merge.kind, "merge");
 * ```
 */
export type TidyProposal =
  | {
    /** Near-duplicates: `keep` (the newest) supersedes each of `supersede`. */
    kind: "merge";
    keep: TidyNoteRef;
    /** The notes it would supersede, each with its similarity to `keep`. */
    supersede: (TidyNoteRef & { score: number })[];
  }
  | {
    /** A note whose fact stopped holding (`validUntil` in the past). */
    kind: "expired";
    /** The note, with its `validUntil`. */
    note: TidyNoteRef & { validUntil: string };
  };

/**
 * A way two texts of mostly the same words state different facts: they differ in a number, a
 * date, a version, a name, a negation, the roles of their words ("from X to Y" against "from Y
 * to X"), or a qualifier ("must" against "may", "all" against "some", "we" against "they").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyDifference } from "@memo/memory";
 * const d: TidyDifference[] = ["date", "name"];
 * assert.equal(d.length, 2);
 * ```
 */
export type TidyDifference =
  | "number"
  | "date"
  | "version"
  | "name"
  | "negation"
  | "order"
  | "qualifier";

/**
 * Two notes a tidy plan lists for a person to look at, never to merge: they would be proposed
 * for a merge but for the facts they differ in (`memo tidy` prints "review: … differ in …").
 * `Memo.applyTidy` and `memo tidy --apply` never apply one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyReview } from "@memo/memory";
 * const review: TidyReview = {
 *   notes: [
 *     { id: "n2", title: "Log retention is 30 days", created: "2026-02-01T00:00:00.000Z" },
 *     { id: "n1", title: "Log retention is 15 days", created: "2026-01-01T00:00:00.000Z" },
 *   ],
 *   score: 0.8,
 *   differ: ["number"],
 * };
 * assert.deepEqual(review.differ, ["number"]);
 * ```
 */
export interface TidyReview {
  /** The two notes, the newer first. */
  notes: [TidyNoteRef, TidyNoteRef];
  /** Their similarity, 0 to 1. */
  score: number;
  /** The facts they differ in. */
  differ: TidyDifference[];
}

/**
 * What {@linkcode Memo.tidy} proposes, and what {@linkcode Memo.applyTidy} applies
 * (`memo tidy --json`, `memo tidy --apply PLAN`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyPlan } from "@memo/memory";
 * const plan: TidyPlan = { version: 1, sha256: "0".repeat(64), proposals: [] };
 * assert.equal(plan.proposals.length, 0);
 * ```
 */
export interface TidyPlan {
  /** The plan format; 1. */
  version: 1;
  /**
   * SHA-256 (hex) of the `notes.md` the plan was made from; applying refuses, writing nothing,
   * when the file has changed since. Absent for a store that is not one file.
   */
  sha256?: string;
  /** Merges first (largest first), then expired notes. */
  proposals: TidyProposal[];
  /**
   * Pairs of notes for a person to look at, highest score first: alike but for a number, a
   * date, a version, a name, a negation, an order or a qualifier. Not proposals: applying a plan
   * never merges them. Absent when there is none.
   */
  review?: TidyReview[];
}

/**
 * What {@linkcode Memo.applyTidy} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TidyApplyResult } from "@memo/memory";
 * const result: TidyApplyResult = { merged: 1, superseded: ["n1"], notes: [] };
 * assert.equal(result.merged, 1);
 * ```
 */
export interface TidyApplyResult {
  /** Merge proposals applied. */
  merged: number;
  /** Ids now superseded by the plan's keepers. */
  superseded: string[];
  /** The keepers, as stored now. */
  notes: Note[];
}
