/**
 * The storage contract of the reference Cloud API server: a {@linkcode CloudStore} holds projects
 * ({@linkcode CloudProject}) and idempotency records ({@linkcode IdempotencyStore}). Two
 * implementations: the file store (one box) and the PostgreSQL store (any number of instances).
 * What projects take and answer is in `note_types.ts`, re-exported here.
 *
 * @module
 */

import type {
  CorrectInput,
  MemoryStore,
  NoteDraft,
  NotePatch,
  ReplicaApplyResult,
  ReplicaChanges,
  SupersedeInput,
  TidyPlan,
} from "@memo/memory";
import type { BudgetStats } from "./projects/budget.ts";
import type { RateLimiter } from "./rate_limit.ts";
import type {
  CloudChange,
  CloudDeleteResult,
  CloudDeleteSelector,
  CloudDraft,
  CloudListOptions,
  CloudNote,
  CloudRecallHit,
  CloudRecallOptions,
  CloudRememberResult,
  CloudStats,
  CloudSupersedeResult,
  CloudTidyApplyResult,
  CloudWriteResult,
} from "./note_types.ts";

export * from "./note_types.ts";

/**
 * Thrown by {@linkcode CloudProject.update} and {@linkcode CloudProject.remove} when `ifMatch`
 * names a revision the note has moved on from.
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
 * The `If-Match` rule of every store: throws {@linkcode CloudConflictError} with the note as it is
 * when `ifMatch` is given and is not its revision; returns the note.
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
 * assert.equal(checkIfMatch(current, 7), current); // still at revision 7
 * assert.throws(() => checkIfMatch(current, 6), CloudConflictError);
 * ```
 */
export function checkIfMatch(current: CloudNote, ifMatch: number | undefined): CloudNote {
  if (ifMatch !== undefined && ifMatch !== current.revision) throw new CloudConflictError(current);
  return current;
}

/**
 * One project's notes. Every method sees the writes of every instance sharing the store. Validation
 * errors are `MemoryValidationError`s of `@memo/memory`.
 *
 * @example
 * ```ts
 * import type { CloudProject } from "./store.ts";
 * // Any store's project answers the same calls.
 * const count = async (project: CloudProject) => (await project.stats()).notes;
 * ```
 */
export interface CloudProject {
  /**
   * Stores drafts all-or-nothing (one transaction), deduplicating by identity; result `i` answers
   * draft `i`. Drafts of one identity make one note (the last draft's content, the first `id`
   * given) and all answer with it; the first carries its status, later ones are `unchanged`.
   */
  upsert(
    drafts: readonly CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CloudWriteResult[]>;
  /**
   * Stores one note as `Memo.remember` does: deduplicated by identity, `supersedes` checked (an
   * unknown id, the note itself or a cycle is a `MemoryValidationError`, and nothing is written),
   * and the stored notes most like a written one listed in `similar`.
   */
  remember(draft: NoteDraft): Promise<CloudRememberResult>;
  /** One note with its derived `supersededBy`, or `undefined`. */
  get(id: string): Promise<CloudNote | undefined>;
  /**
   * Changes a note; `undefined` for an unknown id. Throws {@linkcode CloudConflictError} when
   * `ifMatch` is not its revision. A patch that changes nothing keeps the revision. The ids a patch
   * adds to `supersedes` are checked as `remember`'s, unless the patch gives `updated` (a replica
   * copying its own note: its links may name notes it has not pushed yet).
   */
  update(id: string, patch: NotePatch, ifMatch?: number): Promise<CloudNote | undefined>;
  /**
   * The fact of a note changed: a new note that supersedes it, and the old note's validity ended,
   * written together (one transaction, one rewrite), as `Memo.correct` does. Unknown id:
   * `NoteNotFoundError`.
   */
  correct(input: CorrectInput): Promise<CloudSupersedeResult>;
  /** Note `by` gains `ids` in its `supersedes` (one write), as `Memo.supersede` does. */
  supersede(input: SupersedeInput): Promise<CloudSupersedeResult>;
  /** Proposals to tidy the notes up, writing nothing (`Memo.tidy`; no `sha256`). */
  tidy(): Promise<TidyPlan>;
  /**
   * Applies a plan's merges in one write; refuses (`MemoryValidationError`), writing nothing, when
   * a note it names is gone.
   */
  applyTidy(plan: TidyPlan): Promise<CloudTidyApplyResult>;
  /** Deletes a note and returns it as it was; `undefined` for an unknown id. Same `ifMatch` rule. */
  remove(id: string, ifMatch?: number): Promise<CloudNote | undefined>;
  /**
   * Deletes the notes `selector` names in one transaction, a tombstone each. Duplicate ids count
   * once. A source prefix that matches more than {@linkcode BATCH_DELETE_LIMIT} notes deletes
   * nothing and throws a `MemoryValidationError` with `details: { limit, matched }`.
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
   * The project's latest change sequence number (0 when nothing was ever written), read from the
   * store now; cheap (no note is loaded).
   */
  revision(): Promise<number>;
  /** Counts. */
  stats(): Promise<CloudStats>;
}

/**
 * What a store keeps per project beneath {@linkcode CloudProject}: a `MemoryStore` (so that a
 * `Memo` client can read and rank it) that also keeps revisions and the change feed.
 * `MemoCloudProject` (`projects/memo_project.ts`) turns one into a {@linkcode CloudProject}.
 *
 * @example
 * ```ts
 * import type { RevisionedStore } from "./store.ts";
 * const latest = (store: RevisionedStore): Promise<number> => store.lastRevision();
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
   * The revision of a note as of the latest `changesSince` answer (what a `Memo` client over this
   * store holds), without a round trip.
   */
  revisionOf(id: string): number | undefined;
}

/**
 * A kept answer to a write, for idempotent retries.
 *
 * @example
 * ```ts
 * import type { IdempotentAnswer } from "./store.ts";
 * const answer: IdempotentAnswer = { status: 201, body: '{"note":{}}' };
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
 * import type { IdempotencyClaim } from "./store.ts";
 * const claim: IdempotencyClaim = { kind: "replay", answer: { status: 200, body: "{}" } };
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
 * import type { IdempotencyStore } from "./store.ts";
 * const once = async (store: IdempotencyStore) => (await store.claim("team", "key-1", "fp")).kind;
 * ```
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a request with this fingerprint. A claim left pending longer than 60 s (its
   * holder died) may be claimed again.
   */
  claim(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyClaim>;
  /**
   * Records the answer of a claimed key, when the claim pending is still the one made with this
   * `fingerprint` (a claim taken over after 60 s by another request keeps that request's answer).
   */
  complete(
    workspaceId: string,
    key: string,
    answer: IdempotentAnswer,
    fingerprint: string,
  ): Promise<void>;
  /**
   * Frees a claimed key without an answer (the write failed with a 5xx), when the claim pending is
   * still the one made with this `fingerprint`.
   */
  release(workspaceId: string, key: string, fingerprint: string): Promise<void>;
  /**
   * Deletes, in every workspace, the answers kept for keys answered before `before` (all of them
   * with the current time), so that an operator can drop records from before the secrets guard
   * (`memo cloud purge-idempotency`); returns how many. A repeat of a purged key runs again (the
   * write dedupes by content, so it changes nothing twice).
   */
  purge(before: Date): Promise<number>;
}

/**
 * Default memory for the recall indexes of the projects an instance holds, in MiB
 * (`MEMO_CLOUD_INDEX_BUDGET_MB`). An instance settles within one project's RSS plus 2 × the budget
 * (measured: plus 1.3 ×, peaks of plus 2 × while it cycles through projects), so 192 MiB keeps a
 * 1 GB container under about 0.5 GB and leaves the other half for the requests in flight, a project
 * being built beside the ones held and a snapshot being encoded (docs/cloud.md, "Memory per
 * instance").
 *
 * @example
 * ```ts
 * import { DEFAULT_INDEX_BUDGET_MB } from "./store.ts";
 * const budgetBytes = DEFAULT_INDEX_BUDGET_MB * 1024 * 1024;
 * ```
 */
export const DEFAULT_INDEX_BUDGET_MB = 192;

/**
 * Whether a store can serve ({@linkcode CloudStore.ready}).
 *
 * @example
 * ```ts
 * import type { CloudReadiness } from "./store.ts";
 * const down: CloudReadiness = { ready: false, reason: "the database cannot be reached" };
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
 * import type { SnapshotCounters } from "./store.ts";
 * const counters: SnapshotCounters = { loaded: 0, rejected: 0, built: 0, written: 0, skipped: 0, failed: 0 };
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
 * The figures of one instance's store ({@linkcode CloudStore.stats}, in `GET /v1/stats`).
 *
 * @example
 * ```ts
 * import type { CloudInstanceStats } from "./store.ts";
 * const stats: CloudInstanceStats = {
 *   index: {
 *     budgetBytes: 201326592, bytes: 0, projects: 0, evictions: 0, hits: 0, misses: 0,
 *     hitRate: null, oversized: [], collections: 0,
 *   },
 * };
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
 * import type { CloudStore } from "./store.ts";
 * const describe = (store: CloudStore) => `${store.kind} store`;
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
   * The rate limit's counts, when the store keeps them (the PostgreSQL store shares them with every
   * instance); by default the handler counts in its own process.
   */
  readonly rateLimiter?: RateLimiter;
  /** Whether the store can serve now (`GET /readyz`); ready when absent. */
  ready?(): Promise<CloudReadiness>;
  /** The instance's figures (`GET /v1/stats`). */
  stats?(): CloudInstanceStats;
  /** Releases connections, timers and handles. */
  close(): Promise<void>;
}
