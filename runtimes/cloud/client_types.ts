/**
 * What the Cloud API answers and takes, as {@linkcode MemoCloudClient} returns them: notes with
 * their revision, recall hits, pages of notes, the stats, batch drafts and results, the change feed
 * and the health answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChangesPage } from "./client_types.ts";
 * const page: MemoCloudChangesPage = { changes: [], next: "0", hasMore: false };
 * assert.equal(page.changes.length, 0);
 * ```
 *
 * @module
 */

import type {
  ListResult,
  MemoStats,
  Note,
  NoteDraft,
  NotePatch,
  RecallHit,
  RememberResult,
  SecretRedaction,
  SupersedeResult,
  TidyApplyResult,
} from "@memo/memory";

/**
 * A note as the Cloud API returns it: the memory package's note plus its server `revision`, the
 * sequence number of its latest change in the project's change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudNote } from "@memo/mcp-server";
 * const note: MemoCloudNote = {
 *   id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 3,
 * };
 * assert.equal(note.revision, 3);
 * ```
 */
export interface MemoCloudNote extends Note {
  /** Sequence number of the note's latest change. */
  revision: number;
}

/**
 * What {@linkcode MemoCloudClient.remember} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRememberResult } from "@memo/mcp-server";
 * const result: MemoCloudRememberResult = {
 *   status: "written",
 *   note: {
 *     id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 * };
 * assert.equal(result.status, "written");
 * ```
 */
export interface MemoCloudRememberResult extends Omit<RememberResult, "note"> {
  /** The stored note, with its revision. */
  note: MemoCloudNote;
}

/**
 * A recall hit of the Cloud API (always lexical).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudRecallHit } from "@memo/mcp-server";
 * const hit: MemoCloudRecallHit = {
 *   score: 1.2, engine: "lexical", matched: ["deploy"],
 *   note: {
 *     id: "n1", title: "Deploys", body: "Run make deploy.", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 *   },
 * };
 * assert.equal(hit.engine, "lexical");
 * ```
 */
export interface MemoCloudRecallHit extends Omit<RecallHit, "note"> {
  /** The note. */
  note: MemoCloudNote;
}

/**
 * A page of notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudListResult } from "@memo/mcp-server";
 * const empty: MemoCloudListResult = { notes: [], total: 0 };
 * assert.equal(empty.nextCursor, undefined); // the last page
 * ```
 */
export interface MemoCloudListResult extends Omit<ListResult, "notes"> {
  /** The page's notes, with their revision. */
  notes: MemoCloudNote[];
}

/**
 * A project's counts, and the latest sequence number of its change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudStats } from "@memo/mcp-server";
 * const stats: MemoCloudStats = { notes: 0, labels: {}, sources: {}, revision: 0 };
 * assert.equal(stats.revision, 0); // a project never written
 * ```
 */
export interface MemoCloudStats extends Pick<MemoStats, "notes" | "labels" | "sources"> {
  /** Time of the latest change. */
  lastUpdated?: string;
  /** Latest sequence number of the change feed (0 when empty). */
  revision: number;
}

/**
 * One draft of {@linkcode MemoCloudClient.upsertBatch}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudDraft } from "@memo/mcp-server";
 * const draft: MemoCloudDraft = {
 *   text: "Run make deploy.",
 *   source: "github:acme/handbook/discussions/42",
 *   created: "2024-05-01T10:00:00Z",
 * };
 * assert.equal(draft.id, undefined); // the server picks an id for a new note
 * ```
 */
/** The same shape as the memory package's draft: {@linkcode NoteDraft}. */
export type MemoCloudDraft = NoteDraft;

/**
 * What {@linkcode MemoCloudClient.upsertBatch} did: `results[i]` answers `drafts[i]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudBatchResult } from "@memo/mcp-server";
 * const none: MemoCloudBatchResult = { results: [], written: 0, updated: 0, unchanged: 0 };
 * assert.equal(none.results.length, 0);
 * ```
 */
export interface MemoCloudBatchResult {
  /** One per draft, in order. */
  results: { status: "written" | "updated" | "unchanged"; note: MemoCloudNote }[];
  /** Notes added. */
  written: number;
  /** Notes changed. */
  updated: number;
  /** Drafts already stored as they are. */
  unchanged: number;
  /** What the server's secrets guard replaced, with each draft's `index`; absent when nothing was. */
  redacted?: SecretRedaction[];
}

/**
 * Which notes `MemoCloudClient.deleteBatch` deletes: these ids (1 to 10,000), or every note whose
 * source key starts with a prefix (refused with 400 when it matches more than 10,000 notes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudDeleteSelector } from "@memo/mcp-server";
 * const selector: MemoCloudDeleteSelector = { sourcePrefix: "notion:page/" };
 * assert.ok("sourcePrefix" in selector);
 * ```
 */
export type MemoCloudDeleteSelector = { ids: readonly string[] } | { sourcePrefix: string };

/**
 * What one `POST notes:batchDelete` deleted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudDeleteResult } from "@memo/mcp-server";
 * const result: MemoCloudDeleteResult = { deleted: [], notFound: ["01jmissing"] };
 * assert.equal(result.notFound.length, 1);
 * ```
 */
export interface MemoCloudDeleteResult {
  /** The notes deleted, as they were, in the order deleted. */
  deleted: MemoCloudNote[];
  /** Ids asked for that no note has (empty for a prefix). */
  notFound: string[];
}

/**
 * One entry of the change feed: an upsert with the note, or a tombstone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChange } from "@memo/mcp-server";
 * const tombstone: MemoCloudChange = { seq: 9, op: "delete", id: "n1", revision: 9 };
 * assert.equal(tombstone.op, "delete");
 * ```
 */
export type MemoCloudChange =
  | { seq: number; op: "upsert"; id: string; revision: number; note: MemoCloudNote }
  | { seq: number; op: "delete"; id: string; revision: number };

/**
 * A page of the change feed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudChangesPage } from "@memo/mcp-server";
 * const page: MemoCloudChangesPage = { changes: [], next: "12", hasMore: false };
 * assert.equal(page.next, "12"); // pass it as `since` to resume
 * ```
 */
export interface MemoCloudChangesPage {
  /** Changes in `seq` order. */
  changes: MemoCloudChange[];
  /** Token to resume from (`since` of the next call). */
  next: string;
  /** More changes wait after this page. */
  hasMore: boolean;
}

/**
 * `GET /v1/health`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudHealth } from "@memo/mcp-server";
 * const health: MemoCloudHealth = { status: "ok", version: "0.1.0", store: "file" };
 * assert.equal(health.status, "ok");
 * ```
 */
export interface MemoCloudHealth {
  /** `ok`. */
  status: string;
  /** The server's package version. */
  version: string;
  /** `file` or `postgres`. */
  store: string;
}

/**
 * The change `PATCH notes/{id}` makes ({@linkcode MemoCloudClient.update}): the fields given
 * replace the note's; `null` removes a validity bound.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudPatch } from "@memo/mcp-server";
 * const patch: MemoCloudPatch = { title: "Deploying", validUntil: null };
 * assert.equal(patch.validUntil, null);
 * ```
 */
/** The same shape as the memory package's patch: {@linkcode NotePatch}. */
export type MemoCloudPatch = NotePatch;

/**
 * What {@linkcode MemoCloudClient.correct} and {@linkcode MemoCloudClient.supersede} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudSupersedeResult } from "@memo/mcp-server";
 * const result: MemoCloudSupersedeResult = {
 *   note: {
 *     id: "n2", title: "Deploys run on Mondays", body: "Deploys run on Mondays", labels: [],
 *     hash: "h", supersedes: ["n1"], revision: 3,
 *     created: "2026-03-02T00:00:00.000Z", updated: "2026-03-02T00:00:00.000Z",
 *   },
 *   superseded: ["n1"],
 * };
 * assert.deepEqual(result.note.supersedes, result.superseded);
 * ```
 */
export interface MemoCloudSupersedeResult extends Omit<SupersedeResult, "note"> {
  /** The note that holds the fact now (it supersedes the others), with its revision. */
  note: MemoCloudNote;
  /**
   * `notes:correct`: what the server's secrets guard replaced in the new text, title or labels
   * (rule ids and fields); absent when nothing was.
   */
  redacted?: SecretRedaction[];
}

/**
 * What {@linkcode MemoCloudClient.applyTidy} did.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudTidyApplyResult } from "@memo/mcp-server";
 * const result: MemoCloudTidyApplyResult = { merged: 0, superseded: [], notes: [] };
 * assert.equal(result.merged, 0);
 * ```
 */
export interface MemoCloudTidyApplyResult extends Omit<TidyApplyResult, "notes"> {
  /** The keepers, as stored now. */
  notes: MemoCloudNote[];
}
