/**
 * What both stores of the reference Cloud API server build their projects from:
 * {@linkcode StoreProject} (batch writes, patches, deletes and the change feed straight to a
 * `RevisionedStore`), {@linkcode MemoCloudProject} (reads, recall and notes' history through a
 * `Memo` client, the file store's project), {@linkcode ProjectIndex} (what an instance holds of a
 * project to answer recall, list and stats, the PostgreSQL store's) and {@linkcode IndexBudget}
 * (the projects held in memory kept within `MEMO_CLOUD_INDEX_BUDGET_MB`), and the batch of drafts
 * both stores check and deduplicate alike ({@linkcode prepareCloudDrafts}).
 *
 * @example A budget holds nothing at first
 * ```ts
 * import assert from "node:assert/strict";
 * import { IndexBudget } from "./mod.ts";
 *
 * const budget = new IndexBudget(1024 * 1024);
 * assert.equal(budget.stats().projects, 0);
 * ```
 *
 * @module
 */

export { type BudgetStats, type Held, IndexBudget, noteBytes } from "./budget.ts";
export {
  answerDrafts,
  dedupeDrafts,
  prepareCloudDrafts,
  type PreparedCloudDraft,
} from "./drafts.ts";
export { MemoCloudProject, type MemoCloudProjectOptions } from "./memo_project.ts";
export {
  type IndexableNote,
  type IndexedText,
  type IndexHit,
  ProjectIndex,
} from "./project_index.ts";
export {
  decodeIndexSnapshot,
  encodeIndexSnapshot,
  type LexicalSnapshot,
  snapshotFormat,
  type SnapshotRow,
} from "./index_snapshot.ts";
export { StoreProject } from "./store_project.ts";
