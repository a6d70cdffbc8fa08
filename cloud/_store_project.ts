/**
 * Internal: {@linkcode StoreProject}, what every {@linkcode CloudProject}
 * does the same way: writes, single reads and the change feed go straight to
 * the project's {@linkcode RevisionedStore}. Subclasses answer list, recall
 * and stats (from a `Memo`, or from a held index).
 *
 * @module
 */

import type { NotePatch } from "@memo/memory";
import type {
  CloudChange,
  CloudDeleteResult,
  CloudDeleteSelector,
  CloudDraft,
  CloudListOptions,
  CloudNote,
  CloudProject,
  CloudRecallHit,
  CloudStats,
  CloudWriteResult,
  RevisionedStore,
} from "./store.ts";

/**
 * A project over a {@linkcode RevisionedStore}; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StoreProject } from "./_store_project.ts";
 * import { MemoCloudProject } from "./_project.ts";
 *
 * assert.ok(MemoCloudProject.prototype instanceof StoreProject);
 * ```
 */
export abstract class StoreProject<S extends RevisionedStore = RevisionedStore>
  implements CloudProject {
  /** The store beneath. */
  readonly store: S;

  /** A project over `store`. */
  constructor(store: S) {
    this.store = store;
  }

  /** {@linkcode CloudProject.upsert}: the store's upsert. */
  upsert(
    drafts: readonly CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<CloudWriteResult[]> {
    return this.store.upsert(drafts, options);
  }

  /** {@linkcode CloudProject.get}: read from the store now. */
  get(id: string): Promise<CloudNote | undefined> {
    return this.store.get(id);
  }

  /** {@linkcode CloudProject.update}: the store's `updateIf`. */
  update(id: string, patch: NotePatch, ifMatch?: number): Promise<CloudNote | undefined> {
    return this.store.updateIf(id, patch, ifMatch);
  }

  /** {@linkcode CloudProject.remove}: the store's `removeIf`. */
  remove(id: string, ifMatch?: number): Promise<CloudNote | undefined> {
    return this.store.removeIf(id, ifMatch);
  }

  /** {@linkcode CloudProject.removeMany}: the store's `removeMany`. */
  removeMany(selector: CloudDeleteSelector): Promise<CloudDeleteResult> {
    return this.store.removeMany(selector);
  }

  /** {@linkcode CloudProject.changes}: the store's change feed. */
  changes(since: number, limit: number): Promise<{ changes: CloudChange[]; hasMore: boolean }> {
    return this.store.changes(since, limit);
  }

  /** {@linkcode CloudProject.revision}: the store's latest change number. */
  revision(): Promise<number> {
    return this.store.lastRevision();
  }

  /** {@linkcode CloudProject.list}. */
  abstract list(
    options: CloudListOptions,
  ): Promise<{ notes: CloudNote[]; nextCursor?: string; total: number }>;

  /** {@linkcode CloudProject.recall}. */
  abstract recall(
    query: string,
    options: { limit: number; labels?: readonly string[]; source?: string; explain?: boolean },
  ): Promise<CloudRecallHit[]>;

  /** {@linkcode CloudProject.stats}. */
  abstract stats(): Promise<CloudStats>;
}
