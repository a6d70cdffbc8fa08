/**
 * {@linkcode StoreProject}, what every {@linkcode CloudProject} does the same way: batch writes,
 * patches (with the check of the links they add), deletes and the change feed go straight to the
 * project's {@linkcode RevisionedStore}. Subclasses answer the rest: reads with the derived
 * `supersededBy`, `remember`, corrections, supersede links and tidy (from a `Memo`, or from a held
 * index).
 *
 * @module
 */

import { checkSupersedes, MemoryValidationError } from "@memo/memory";
import type * as C from "../store.ts";

/** Most notes a link check reads while it follows `supersedes` (a longer chain is not walked). */
const MAX_CHAIN = 1000;

/**
 * A project over a {@linkcode RevisionedStore}; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StoreProject } from "./store_project.ts";
 * import { MemoCloudProject } from "./memo_project.ts";
 *
 * assert.ok(MemoCloudProject.prototype instanceof StoreProject);
 * ```
 */
export abstract class StoreProject<S extends C.RevisionedStore = C.RevisionedStore>
  implements C.CloudProject {
  /** The store beneath. */
  readonly store: S;

  /** A project over `store`. */
  constructor(store: S) {
    this.store = store;
  }

  /** {@linkcode CloudProject.upsert}: the store's upsert. */
  upsert(
    drafts: readonly C.CloudDraft[],
    options?: { signal?: AbortSignal },
  ): Promise<C.CloudWriteResult[]> {
    return this.store.upsert(drafts, options);
  }

  /**
   * {@linkcode CloudProject.update}: the store's `updateIf`, after the check of the links the patch
   * adds (unless it gives `updated`: a replica's copy).
   */
  async update(id: string, patch: C.NotePatch, ifMatch?: number): Promise<C.CloudNote | undefined> {
    const links = patch?.supersedes;
    if (patch?.updated === undefined && Array.isArray(links) && links.length) {
      await this.#checkLinks(id, links);
    }
    return await this.store.updateIf(id, patch, ifMatch);
  }

  /** {@linkcode CloudProject.remove}: the store's `removeIf`. */
  remove(id: string, ifMatch?: number): Promise<C.CloudNote | undefined> {
    return this.store.removeIf(id, ifMatch);
  }

  /** {@linkcode CloudProject.removeMany}: the store's `removeMany`. */
  removeMany(selector: C.CloudDeleteSelector): Promise<C.CloudDeleteResult> {
    return this.store.removeMany(selector);
  }

  /** {@linkcode CloudProject.changes}: the store's change feed. */
  changes(since: number, limit: number): Promise<{ changes: C.CloudChange[]; hasMore: boolean }> {
    return this.store.changes(since, limit);
  }

  /** {@linkcode CloudProject.revision}: the store's latest change number. */
  revision(): Promise<number> {
    return this.store.lastRevision();
  }

  /** What `stats` answers: the counts given (memo's) plus the store's latest revision. */
  protected async statsOf(stats: Omit<C.CloudStats, "revision">): Promise<C.CloudStats> {
    const out: C.CloudStats = {
      notes: stats.notes,
      labels: stats.labels,
      sources: stats.sources,
      revision: await this.store.lastRevision(),
    };
    if (stats.lastUpdated !== undefined) out.lastUpdated = stats.lastUpdated;
    return out;
  }

  /** {@linkcode CloudProject.get}. */
  abstract get(id: string): Promise<C.CloudNote | undefined>;

  /** {@linkcode CloudProject.remember}. */
  abstract remember(draft: C.NoteDraft): Promise<C.CloudRememberResult>;

  /** {@linkcode CloudProject.correct}. */
  abstract correct(input: C.CorrectInput): Promise<C.CloudSupersedeResult>;

  /** {@linkcode CloudProject.supersede}. */
  abstract supersede(input: C.SupersedeInput): Promise<C.CloudSupersedeResult>;

  /** {@linkcode CloudProject.tidy}. */
  abstract tidy(): Promise<C.TidyPlan>;

  /** {@linkcode CloudProject.applyTidy}. */
  abstract applyTidy(plan: C.TidyPlan): Promise<C.CloudTidyApplyResult>;

  /** {@linkcode CloudProject.list}. */
  abstract list(
    options: C.CloudListOptions,
  ): Promise<{ notes: C.CloudNote[]; nextCursor?: string; total: number }>;

  /** {@linkcode CloudProject.recall}. */
  abstract recall(query: string, options: C.CloudRecallOptions): Promise<C.CloudRecallHit[]>;

  /** {@linkcode CloudProject.stats}. */
  abstract stats(): Promise<C.CloudStats>;

  /**
   * The checks of the links a patch of note `id` gives, as `Memo.update` makes them: each id it
   * adds names a stored note, and none is `id` itself or leads back to it (a cycle). The notes are
   * read from the store now. Throws `MemoryValidationError`.
   */
  async #checkLinks(id: string, supersedes: readonly string[]): Promise<void> {
    const action = "update note";
    const note = await this.store.get(id);
    if (!note) return; // the update answers the unknown id
    const had = note.supersedes ?? [];
    const after = [...new Set(supersedes)];
    const links = new Map<string, readonly string[] | undefined>([[id, after]]);
    const queue = after.filter((t) => t !== id);
    while (queue.length && links.size < MAX_CHAIN) {
      const at = queue.pop()!;
      if (links.has(at)) continue;
      const found = await this.store.get(at);
      links.set(at, found ? found.supersedes ?? [] : undefined);
      queue.push(...(found?.supersedes ?? []));
    }
    const unknown = after.find((t) => t !== id && !had.includes(t) && !links.get(t));
    if (unknown !== undefined) {
      throw new MemoryValidationError(
        `Cannot ${action}: supersedes names unknown note ${unknown}`,
        {
          details: { id, supersedes: unknown },
        },
      );
    }
    // Links the note had already may name notes forgotten since: they are left alone.
    const known = after.filter((t) => t === id || links.get(t));
    checkSupersedes(id, known, { supersedesOf: (other) => links.get(other) }, action);
  }
}
