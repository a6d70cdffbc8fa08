/**
 * The storage contract of the reference Cloud API server: a {@linkcode CloudStore}
 * holds projects ({@linkcode CloudProject}) and idempotency records
 * ({@linkcode IdempotencyStore}). Two implementations: the file store (one box)
 * and the PostgreSQL store (any number of instances).
 *
 * @module
 */

import type {
  CorrectInput,
  MemoryStore,
  Note,
  NoteDraft,
  NotePatch,
  RecallHit,
  ReplicaApplyResult,
  ReplicaChanges,
  ScoreContribution,
  SimilarNote,
  SupersedeInput,
  TidyPlan,
} from "@memo/memory";
import type { BudgetStats } from "./_budget.ts";
import type { RateLimiter } from "./_rate_limit.ts";

/**
 * A note as the Cloud API carries it: the memory package's note plus its
 * server `revision`, the sequence number of its latest change in the
 * project's change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudNote } from "./store.ts";
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
 * import type { CloudDraft } from "./store.ts";
 *
 * const draft: CloudDraft = { id: "01jreplica", text: "Kept across machines" };
 * assert.equal(draft.id, "01jreplica");
 * ```
 */
export interface CloudDraft extends NoteDraft {
  /**
   * Id of the note when it is new. Ignored when the draft's identity matches
   * a stored note; replaced by a fresh id when a note of another identity holds it.
   * Of several drafts of one identity in a batch, the first id given counts.
   */
  id?: string;
}

/**
 * What happened to one draft of an upsert.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudWriteResult } from "./store.ts";
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
 * import type { CloudChange } from "./store.ts";
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
 * import type { CloudRecallHit } from "./store.ts";
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
 * What {@linkcode CloudProject.remember} did: a write's result plus the stored notes that
 * resemble a written note (lexically, as a local memo finds them; empty otherwise).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudRememberResult } from "./store.ts";
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
 * What {@linkcode CloudProject.correct} and {@linkcode CloudProject.supersede} did: the note
 * that holds the fact now (with its revision), and the ids it superseded in this call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudSupersedeResult } from "./store.ts";
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
 * import type { CloudTidyApplyResult } from "./store.ts";
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
 * The history filters of {@linkcode CloudProject.list} and {@linkcode CloudProject.recall}
 * (issue 23): superseded notes are left out unless `includeSuperseded`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudHistoryFilter } from "./store.ts";
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
 * import type { CloudRecallOptions } from "./store.ts";
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
 * import type { CloudListOptions } from "./store.ts";
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
 * import type { CloudStats } from "./store.ts";
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
 * Most notes one `notes:batchDelete` deletes: the ids it names, or the notes
 * a source prefix matches (a prefix that matches more is refused).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BATCH_DELETE_LIMIT } from "./store.ts";
 *
 * assert.equal(BATCH_DELETE_LIMIT, 10000);
 * ```
 */
export const BATCH_DELETE_LIMIT = 10000;

/**
 * Which notes {@linkcode CloudProject.removeMany} deletes: these ids, or every
 * note whose source key starts with this prefix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudDeleteSelector } from "./store.ts";
 *
 * const bySource: CloudDeleteSelector = { sourcePrefix: "github:acme/api/" };
 * assert.ok("sourcePrefix" in bySource);
 * ```
 */
export type CloudDeleteSelector = { ids: readonly string[] } | { sourcePrefix: string };

/**
 * What {@linkcode CloudProject.removeMany} deleted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudDeleteResult } from "./store.ts";
 *
 * const none: CloudDeleteResult = { deleted: [], notFound: ["01jabsent"] };
 * assert.equal(none.deleted.length, 0);
 * ```
 */
export interface CloudDeleteResult {
  /** The notes deleted, as they were (with their last revision), in the order deleted. */
  deleted: CloudNote[];
  /** Of the ids asked for, those no note has (always empty for a prefix). */
  notFound: string[];
}

/**
 * Thrown by {@linkcode CloudProject.update} and {@linkcode CloudProject.remove}
 * when `ifMatch` names a revision the note has moved on from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CloudConflictError } from "./store.ts";
 *
 * const current = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 7,
 * };
 * const error = new CloudConflictError(current);
 * assert.equal(error.current.revision, 7);
 * assert.match(error.message, /revision 7/);
 * ```
 */
export class CloudConflictError extends Error {
  /** The note as it is now. */
  readonly current: CloudNote;
  /** Creates the error for the note as it is now. */
  constructor(current: CloudNote) {
    super(`Cannot change note ${current.id}: it is at revision ${current.revision}`);
    this.name = "CloudConflictError";
    this.current = current;
  }
}

/**
 * The `If-Match` rule of every store: throws {@linkcode CloudConflictError}
 * with the note as it is when `ifMatch` is given and is not its revision.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkIfMatch, CloudConflictError } from "./store.ts";
 *
 * const current = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 7,
 * };
 * checkIfMatch(current, undefined); // no condition
 * checkIfMatch(current, 7); // still at revision 7
 * assert.throws(() => checkIfMatch(current, 6), CloudConflictError);
 * ```
 */
export function checkIfMatch(current: CloudNote, ifMatch: number | undefined): void {
  if (ifMatch !== undefined && ifMatch !== current.revision) throw new CloudConflictError(current);
}

/**
 * One project's notes. Every method sees the writes of every instance
 * sharing the store. Validation errors are `MemoryValidationError`s of
 * `@memo/memory`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudProject } from "./store.ts";
 *
 * // Any store's project answers the same calls.
 * async function count(project: CloudProject): Promise<number> {
 *   return (await project.stats()).notes;
 * }
 * assert.equal(typeof count, "function");
 * ```
 */
export interface CloudProject {
  /**
   * Stores drafts all-or-nothing (one transaction), deduplicating by
   * identity; result `i` answers draft `i`. Drafts of one identity make one
   * note (the last draft's content, the first `id` given) and all answer with
   * it; the first carries its status, later ones are `unchanged`.
   */
  upsert(
    drafts: readonly CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CloudWriteResult[]>;
  /**
   * Stores one note as `Memo.remember` does: deduplicated by identity, `supersedes` checked
   * (an unknown id, the note itself or a cycle is a `MemoryValidationError`, and nothing is
   * written), and the stored notes most like a written one listed in `similar`.
   */
  remember(draft: NoteDraft): Promise<CloudRememberResult>;
  /** One note with its derived `supersededBy`, or `undefined`. */
  get(id: string): Promise<CloudNote | undefined>;
  /**
   * Changes a note; `undefined` for an unknown id. Throws
   * {@linkcode CloudConflictError} when `ifMatch` is not its revision. A patch
   * that changes nothing keeps the revision. The ids a patch adds to `supersedes` are checked
   * as `remember`'s, unless the patch gives `updated` (a replica copying its own note: its
   * links may name notes it has not pushed yet).
   */
  update(id: string, patch: NotePatch, ifMatch?: number): Promise<CloudNote | undefined>;
  /**
   * The fact of a note changed: a new note that supersedes it, and the old note's validity
   * ended, written together (one transaction, one rewrite), as `Memo.correct` does. Unknown
   * id: `NoteNotFoundError`.
   */
  correct(input: CorrectInput): Promise<CloudSupersedeResult>;
  /** Note `by` gains `ids` in its `supersedes` (one write), as `Memo.supersede` does. */
  supersede(input: SupersedeInput): Promise<CloudSupersedeResult>;
  /** Proposals to tidy the notes up, writing nothing (`Memo.tidy`; no `sha256`). */
  tidy(): Promise<TidyPlan>;
  /**
   * Applies a plan's merges in one write; refuses (`MemoryValidationError`), writing nothing,
   * when a note it names is gone.
   */
  applyTidy(plan: TidyPlan): Promise<CloudTidyApplyResult>;
  /** Deletes a note and returns it as it was; `undefined` for an unknown id. Same `ifMatch` rule. */
  remove(id: string, ifMatch?: number): Promise<CloudNote | undefined>;
  /**
   * Deletes the notes `selector` names in one transaction, a tombstone each.
   * Duplicate ids count once. A source prefix that matches more than
   * {@linkcode BATCH_DELETE_LIMIT} notes deletes nothing and throws a
   * `MemoryValidationError` with `details: { limit, matched }`.
   */
  removeMany(selector: CloudDeleteSelector): Promise<CloudDeleteResult>;
  /** A page of notes. Throws `MemoryValidationError` for a bad cursor. */
  list(
    options: CloudListOptions,
  ): Promise<{ notes: CloudNote[]; nextCursor?: string; total: number }>;
  /** memo's lexical ranking over the project's notes. */
  recall(query: string, options: CloudRecallOptions): Promise<CloudRecallHit[]>;
  /** Changes with `seq > since`, oldest first, at most `limit`. */
  changes(since: number, limit: number): Promise<{ changes: CloudChange[]; hasMore: boolean }>;
  /**
   * The project's latest change sequence number (0 when nothing was ever
   * written), read from the store now; cheap (no note is loaded).
   */
  revision(): Promise<number>;
  /** Counts. */
  stats(): Promise<CloudStats>;
}

/**
 * What a store keeps per project beneath {@linkcode CloudProject}: a
 * `MemoryStore` (so that a `Memo` client can read and rank it) that also
 * keeps revisions and the change feed. `MemoCloudProject` (`_project.ts`)
 * turns one into a {@linkcode CloudProject}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RevisionedStore } from "./store.ts";
 *
 * async function latest(store: RevisionedStore): Promise<number> {
 *   return await store.lastRevision();
 * }
 * assert.equal(typeof latest, "function");
 * ```
 */
export interface RevisionedStore extends MemoryStore {
  /** {@linkcode CloudProject.upsert}. */
  upsert(
    drafts: readonly CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CloudWriteResult[]>;
  /** One note with its revision, read from the store now. */
  get(id: string): Promise<CloudNote | undefined>;
  /** {@linkcode CloudProject.update}. */
  updateIf(id: string, patch: NotePatch, ifMatch?: number): Promise<CloudNote | undefined>;
  /** {@linkcode CloudProject.remove}. */
  removeIf(id: string, ifMatch?: number): Promise<CloudNote | undefined>;
  /**
   * Writes whole notes and removes ids in one atomic step, with `expect` checked in it
   * (`MemoryStore.applyReplica`): what corrections, supersede links and tidy merges write.
   */
  applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult>;
  /** {@linkcode CloudProject.removeMany}. */
  removeMany(selector: CloudDeleteSelector): Promise<CloudDeleteResult>;
  /** {@linkcode CloudProject.changes}. */
  changes(since: number, limit: number): Promise<{ changes: CloudChange[]; hasMore: boolean }>;
  /** The latest change sequence number in the store now (0 when none). */
  lastRevision(): Promise<number>;
  /**
   * The revision of a note as of the latest `changesSince` answer (what a
   * `Memo` client over this store holds), without a round trip.
   */
  revisionOf(id: string): number | undefined;
}

/**
 * A kept answer to a write, for idempotent retries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IdempotentAnswer } from "./store.ts";
 *
 * const answer: IdempotentAnswer = { status: 201, body: '{"note":{}}' };
 * assert.equal(answer.status, 201);
 * ```
 */
export interface IdempotentAnswer {
  /** HTTP status of the first answer. */
  status: number;
  /** Its JSON body, as sent. */
  body: string;
}

/**
 * What {@linkcode IdempotencyStore.claim} found.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IdempotencyClaim } from "./store.ts";
 *
 * const claim: IdempotencyClaim = { kind: "replay", answer: { status: 200, body: "{}" } };
 * assert.equal(claim.kind, "replay");
 * ```
 */
export type IdempotencyClaim =
  /** The key is new (or expired): the caller runs the write, then `complete` or `release`. */
  | { kind: "claimed" }
  /** The key was answered within 24 h for the same request. */
  | { kind: "replay"; answer: IdempotentAnswer }
  /** The key was used for another request (another fingerprint). */
  | { kind: "mismatch" }
  /** The same request is still running elsewhere. */
  | { kind: "pending" };

/**
 * Idempotency keys, kept 24 h per workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IdempotencyStore } from "./store.ts";
 *
 * async function once(store: IdempotencyStore): Promise<string> {
 *   const claim = await store.claim("team", "key-1", "fingerprint");
 *   return claim.kind;
 * }
 * assert.equal(typeof once, "function");
 * ```
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request with this fingerprint. A claim left pending
   * longer than 60 s (its holder died) may be claimed again.
   */
  claim(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyClaim>;
  /** Records the answer of a claimed key. */
  complete(workspaceId: string, key: string, answer: IdempotentAnswer): Promise<void>;
  /** Frees a claimed key without an answer (the write failed with a 5xx). */
  release(workspaceId: string, key: string): Promise<void>;
  /**
   * Deletes, in every workspace, the answers kept for keys answered before `before` (all of
   * them with the current time), so that an operator can drop records from before the secrets
   * guard (`memo cloud purge-idempotency`); returns how many. A repeat of a purged key runs
   * again (the write dedupes by content, so it changes nothing twice).
   */
  purge(before: Date): Promise<number>;
}

/**
 * Default memory for the recall indexes of the projects an instance holds, in
 * MiB (`MEMO_CLOUD_INDEX_BUDGET_MB`): a quarter of a 1 GB container, which
 * leaves room for the runtime, the requests in flight, a project being built
 * from its notes (its notes are read page by page, but its index grows while
 * the old ones are still held) and the garbage collector's slack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_INDEX_BUDGET_MB } from "./store.ts";
 *
 * assert.equal(DEFAULT_INDEX_BUDGET_MB, 256);
 * ```
 */
export const DEFAULT_INDEX_BUDGET_MB = 256;

/**
 * Whether a store can serve ({@linkcode CloudStore.ready}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudReadiness } from "./store.ts";
 *
 * const down: CloudReadiness = { ready: false, reason: "the database cannot be reached" };
 * assert.equal(down.ready, false);
 * ```
 */
export interface CloudReadiness {
  /** True when it can serve. */
  ready: boolean;
  /** Why not, when not (never a secret). */
  reason?: string;
}

/**
 * Counts of the snapshot work of an instance (`GET /v1/stats`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotCounters } from "./store.ts";
 *
 * const counters: SnapshotCounters = { loaded: 0, rejected: 0, built: 0, written: 0, skipped: 0, failed: 0 };
 * assert.equal(counters.loaded, 0);
 * ```
 */
export interface SnapshotCounters {
  /** Projects loaded from a snapshot. */
  loaded: number;
  /** Snapshots found unusable (damaged, of another project or shape) and rebuilt. */
  rejected: number;
  /** Projects built from their notes. */
  built: number;
  /** Snapshots written by this instance. */
  written: number;
  /** Snapshot writes left to another instance, or found already done. */
  skipped: number;
  /** Snapshot writes that failed (logged). */
  failed: number;
}

/**
 * The figures of one instance's store ({@linkcode CloudStore.stats}, in
 * `GET /v1/stats`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudInstanceStats } from "./store.ts";
 *
 * const stats: CloudInstanceStats = {
 *   index: {
 *     budgetBytes: 268435456, bytes: 0, projects: 0, evictions: 0, hits: 0, misses: 0,
 *     hitRate: null, oversized: [],
 *   },
 * };
 * assert.equal(stats.index.projects, 0);
 * ```
 */
export interface CloudInstanceStats {
  /** The projects held in memory and the budget they are held within. */
  index: BudgetStats;
  /** The PostgreSQL store's index snapshots: loaded, rejected, built, written … */
  snapshots?: SnapshotCounters;
}

/**
 * Where the server keeps everything.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CloudStore } from "./store.ts";
 *
 * function describe(store: CloudStore): string {
 *   return `${store.kind} store`;
 * }
 * assert.equal(typeof describe, "function");
 * ```
 */
export interface CloudStore {
  /** `file` or `postgres`, as `GET /v1/health` reports it. */
  readonly kind: "file" | "postgres";
  /** The project `projectId` of workspace `workspaceId` (ids already checked). */
  project(workspaceId: string, projectId: string): Promise<CloudProject>;
  /** The idempotency keys. */
  readonly idempotency: IdempotencyStore;
  /**
   * The rate limit's counts, when the store keeps them (the PostgreSQL store
   * shares them with every instance); by default the handler counts in its
   * own process.
   */
  readonly rateLimiter?: RateLimiter;
  /** Whether the store can serve now (`GET /readyz`); ready when absent. */
  ready?(): Promise<CloudReadiness>;
  /** The instance's figures (`GET /v1/stats`). */
  stats?(): CloudInstanceStats;
  /** Releases connections, timers and handles. */
  close(): Promise<void>;
}
