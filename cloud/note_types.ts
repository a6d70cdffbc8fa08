/**
 * What the Cloud API's projects take and answer: a note with its `revision`, drafts, write results,
 * the change feed's entries, recall hits, the history filters, project stats and batch deletes. The
 * storage contract that uses them is `store.ts`, which re-exports them.
 *
 * @module
 */

import type { Note, NoteDraft, RecallHit, ScoreContribution, SimilarNote } from "@memo/memory";

// The memory package's types that projects take (`correct`, `supersede`, `update`, `tidy`).
export type { CorrectInput, NoteDraft, NotePatch, SupersedeInput, TidyPlan } from "@memo/memory";

/**
 * A note as the Cloud API carries it: the memory package's note plus its server `revision`, the
 * sequence number of its latest change in the project's change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudNote } from "./note_types.ts";
 *
 * const note: CloudNote = {
 *   id: "n1", title: "Deploys", body: "make deploy", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 3,
 * };
 * assert.equal(note.revision, 3);
 * ```
 */
export interface CloudNote extends Note {
  /** Sequence number of the note's latest change (strictly increasing per project). */
  revision: number;
}

/**
 * A draft of a batch upsert: a memory draft plus the id a new note gets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudDraft } from "./note_types.ts";
 *
 * const draft: CloudDraft = { id: "01jreplica", text: "Kept across machines" };
 * assert.equal(draft.id, "01jreplica");
 * ```
 */
export interface CloudDraft extends NoteDraft {
  /**
   * Id of the note when it is new. Ignored when the draft's identity matches a stored note;
   * replaced by a fresh id when a note of another identity holds it. Of several drafts of one
   * identity in a batch, the first id given counts.
   */
  id?: string;
}

/**
 * What happened to one draft of an upsert.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudWriteResult } from "./note_types.ts";
 *
 * const result: CloudWriteResult = {
 *   status: "unchanged",
 *   note: {
 *     id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 * };
 * assert.equal(result.status, "unchanged");
 * ```
 */
export interface CloudWriteResult {
  /** `written` (new), `updated` (same identity, new content) or `unchanged`. */
  status: "written" | "updated" | "unchanged";
  /** The stored note; its id is the canonical id. */
  note: CloudNote;
}

/**
 * One entry of the change feed, ordered by `seq`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudChange } from "./note_types.ts";
 *
 * const tombstone: CloudChange = { seq: 9, op: "delete", id: "n1", revision: 9 };
 * assert.equal(tombstone.op, "delete");
 * ```
 */
export type CloudChange =
  | { seq: number; op: "upsert"; id: string; revision: number; note: CloudNote }
  | { seq: number; op: "delete"; id: string; revision: number };

/**
 * A recall hit with a {@linkcode CloudNote}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudRecallHit } from "./note_types.ts";
 *
 * const hit: CloudRecallHit = {
 *   note: {
 *     id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 *   score: 1.5, engine: "lexical", matched: ["b"],
 * };
 * assert.equal(hit.engine, "lexical");
 * ```
 */
export interface CloudRecallHit extends Omit<RecallHit, "note" | "engine"> {
  /** The note. */
  note: CloudNote;
  /** Always `lexical` in the cloud. */
  engine: "lexical";
  /** Per-term contributions, with `explain`. */
  explain?: ScoreContribution[];
}

/**
 * What {@linkcode CloudProject.remember} did: a write's result plus the stored notes that resemble
 * a written note (lexically, as a local memo finds them; empty otherwise).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudRememberResult } from "./note_types.ts";
 *
 * const result: CloudRememberResult = {
 *   status: "written",
 *   note: {
 *     id: "n2", title: "t", body: "b", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 2,
 *   },
 *   similar: [{ id: "n1", title: "t", score: 0.8 }],
 * };
 * assert.equal(result.similar[0].id, "n1");
 * ```
 */
export interface CloudRememberResult extends CloudWriteResult {
  /** At most 3 stored notes like a written one, most similar first. */
  similar: SimilarNote[];
}

/**
 * What {@linkcode CloudProject.correct} and {@linkcode CloudProject.supersede} did: the note that
 * holds the fact now (with its revision), and the ids it superseded in this call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudSupersedeResult } from "./note_types.ts";
 *
 * const result: CloudSupersedeResult = {
 *   note: {
 *     id: "n2", title: "t", body: "b", labels: [], hash: "h", supersedes: ["n1"],
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 3,
 *   },
 *   superseded: ["n1"],
 * };
 * assert.deepEqual(result.note.supersedes, result.superseded);
 * ```
 */
export interface CloudSupersedeResult {
  /** The superseding note, as stored now. */
  note: CloudNote;
  /** Ids it superseded in this call. */
  superseded: string[];
}

/**
 * What {@linkcode CloudProject.applyTidy} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudTidyApplyResult } from "./note_types.ts";
 *
 * const result: CloudTidyApplyResult = { merged: 0, superseded: [], notes: [] };
 * assert.equal(result.merged, 0);
 * ```
 */
export interface CloudTidyApplyResult {
  /** Merge proposals applied. */
  merged: number;
  /** Ids now superseded by the plan's keepers. */
  superseded: string[];
  /** The keepers, as stored now. */
  notes: CloudNote[];
}

/**
 * The history filters of {@linkcode CloudProject.list} and {@linkcode CloudProject.recall}:
 * superseded notes are left out unless `includeSuperseded`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudHistoryFilter } from "./note_types.ts";
 *
 * const filter: CloudHistoryFilter = { asOf: "2026-03-01", includeSuperseded: false };
 * assert.equal(filter.asOf, "2026-03-01");
 * ```
 */
export interface CloudHistoryFilter {
  /**
   * Also answer with superseded notes (each with `supersededBy`).
   * @default false
   */
  includeSuperseded?: boolean;
  /** What was recorded by then and held then (ISO date or date-time). */
  asOf?: string;
  /** Only notes created at or after this time. */
  since?: string;
  /** Only notes created before this time. */
  until?: string;
}

/**
 * Options of {@linkcode CloudProject.recall}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudRecallOptions } from "./note_types.ts";
 *
 * const options: CloudRecallOptions = { limit: 5, includeSuperseded: true };
 * assert.equal(options.limit, 5);
 * ```
 */
export interface CloudRecallOptions extends CloudHistoryFilter {
  /** Most hits. */
  limit: number;
  /** Only notes that carry every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /** Per-term contributions. */
  explain?: boolean;
}

/**
 * Options of {@linkcode CloudProject.list}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudListOptions } from "./note_types.ts";
 *
 * const options: CloudListOptions = { limit: 25, order: "newest", labels: ["ops"] };
 * assert.equal(options.order, "newest");
 * ```
 */
export interface CloudListOptions extends CloudHistoryFilter {
  /** Opaque cursor from the previous page. */
  cursor?: string;
  /** Page size, 1 to 100. */
  limit: number;
  /** Only notes that carry every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /**
   * `oldest` (store order) or `newest` first.
   * @default "oldest"
   */
  order?: "oldest" | "newest";
}

/**
 * Counts of a project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudStats } from "./note_types.ts";
 *
 * const stats: CloudStats = { notes: 0, labels: {}, sources: {}, revision: 0 };
 * assert.equal(stats.revision, 0);
 * ```
 */
export interface CloudStats {
  /** Number of notes. */
  notes: number;
  /** Notes per label. */
  labels: Record<string, number>;
  /** Notes per source kind (before `:`), plus `none`. */
  sources: Record<string, number>;
  /** Newest `updated` time, if any note exists. */
  lastUpdated?: string;
  /** The project's latest change sequence number (0 when nothing was ever written). */
  revision: number;
}

/**
 * Most notes one `notes:batchDelete` deletes: the ids it names, or the notes a source prefix
 * matches (a prefix that matches more is refused).
 *
 * @example
 * ```ts
 * import { BATCH_DELETE_LIMIT } from "./note_types.ts";
 * const ids = Array.from({ length: BATCH_DELETE_LIMIT }, (_, i) => `n${i}`); // the most one call deletes
 * ```
 */
export const BATCH_DELETE_LIMIT = 10000;

/**
 * Which notes `CloudProject.removeMany` (`store.ts`) deletes: these ids, or every note whose source
 * key starts with this prefix.
 *
 * @example
 * ```ts
 * import type { CloudDeleteSelector } from "./note_types.ts";
 * const bySource: CloudDeleteSelector = { sourcePrefix: "github:acme/api/" };
 * ```
 */
export type CloudDeleteSelector = { ids: readonly string[] } | { sourcePrefix: string };

/**
 * What `CloudProject.removeMany` (`store.ts`) deleted.
 *
 * @example
 * ```ts
 * import type { CloudDeleteResult } from "./note_types.ts";
 * const none: CloudDeleteResult = { deleted: [], notFound: ["01jabsent"] };
 * ```
 */
export interface CloudDeleteResult {
  /** The notes deleted, as they were (with their last revision), in the order deleted. */
  deleted: CloudNote[];
  /** Of the ids asked for, those no note has (always empty for a prefix). */
  notFound: string[];
}
