/**
 * Internal: {@linkcode MemoCloudProject}, the one {@linkcode CloudProject} of
 * every store. Writes, single reads and the change feed go to the store's
 * {@linkcode RevisionedStore}; listing, recall and stats go through a `Memo`
 * client over it (which catches up with the store before every read), so that
 * the cloud ranks and counts exactly as a local memo does over the same notes.
 *
 * @module
 */

import { type Bm25LexicalIndex, createLexicalIndex, Memo, type Note } from "@memo/memory";
import { StoreProject } from "./_store_project.ts";
import type {
  CloudListOptions,
  CloudNote,
  CloudRecallHit,
  CloudStats,
  RevisionedStore,
} from "./store.ts";

/**
 * Options of {@linkcode MemoCloudProject}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudProjectOptions } from "./_project.ts";
 *
 * const options: MemoCloudProjectOptions = { closeStore: false, recallCacheSize: 0 };
 * assert.equal(options.closeStore, false);
 * ```
 */
export interface MemoCloudProjectOptions {
  /**
   * Whether {@linkcode MemoCloudProject.close} closes the store too.
   * @default true
   */
  closeStore?: boolean;
  /**
   * Recall answers kept for repeated identical recalls (emptied whenever the notes change);
   * `0` turns the cache off.
   * @default 256
   */
  recallCacheSize?: number;
}

/**
 * A {@linkcode CloudProject} over a {@linkcode RevisionedStore}. The `Memo`
 * client is opened (and the store loaded) on the first list, recall or stats.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileRevisionedStore } from "./file_store.ts";
 * import { MemoCloudProject } from "./_project.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const project = new MemoCloudProject(new FileRevisionedStore({ dir }));
 * const [first] = await project.upsert([{ text: "Deploys run with make deploy", labels: ["ops"] }]);
 * assert.equal(first.status, "written");
 * const [hit] = await project.recall("deploys", { limit: 5 });
 * assert.equal(hit.note.id, first.note.id);
 * assert.equal(hit.note.revision, first.note.revision);
 * assert.equal((await project.stats()).revision, first.note.revision);
 * await project.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class MemoCloudProject extends StoreProject {
  readonly #memo: Memo;
  readonly #index: Bm25LexicalIndex = createLexicalIndex();
  readonly #closeStore: boolean;
  #ready: Promise<void> | undefined;
  #closed = false;

  /** Creates the project; nothing is read until the first call. */
  constructor(store: RevisionedStore, options: MemoCloudProjectOptions = {}) {
    super(store);
    this.#closeStore = options.closeStore ?? true;
    this.#memo = new Memo({
      store,
      engine: "lexical",
      index: this.#index,
      indexCache: false,
      recallCacheSize: options.recallCacheSize,
    });
  }

  /** {@linkcode CloudProject.list}: a page of the `Memo` client's list, with revisions. */
  async list(
    options: CloudListOptions,
  ): Promise<{ notes: CloudNote[]; nextCursor?: string; total: number }> {
    await this.#open();
    const page = await this.#memo.list({
      cursor: options.cursor,
      limit: options.limit,
      labels: options.labels,
      source: options.source,
      order: options.order,
    });
    const out: { notes: CloudNote[]; nextCursor?: string; total: number } = {
      notes: await Promise.all(page.notes.map((note) => this.#withRevision(note))),
      total: page.total,
    };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  }

  /** {@linkcode CloudProject.recall}: memo's lexical ranking, with revisions. */
  async recall(
    query: string,
    options: { limit: number; labels?: readonly string[]; source?: string; explain?: boolean },
  ): Promise<CloudRecallHit[]> {
    await this.#open();
    const hits = await this.#memo.recall(query, {
      limit: options.limit,
      labels: options.labels,
      source: options.source,
      explain: options.explain,
      engine: "lexical",
    });
    return await Promise.all(hits.map(async (hit) => {
      const out: CloudRecallHit = {
        note: await this.#withRevision(hit.note),
        score: hit.score,
        engine: "lexical",
        matched: hit.matched,
      };
      if (hit.explain) out.explain = hit.explain;
      return out;
    }));
  }

  /** {@linkcode CloudProject.stats}: memo's counts plus the latest revision. */
  async stats(): Promise<CloudStats> {
    await this.#open();
    const stats = await this.#memo.stats();
    const out: CloudStats = {
      notes: stats.notes,
      labels: stats.labels,
      sources: stats.sources,
      revision: await this.store.lastRevision(),
    };
    if (stats.lastUpdated !== undefined) out.lastUpdated = stats.lastUpdated;
    return out;
  }

  /**
   * An estimate of the memory the project takes: the recall index, plus the
   * notes the store holds when it tells (`heldBytes()`; the `Memo` client
   * holds the same note objects).
   */
  byteLength(): number {
    const held = (this.store as { heldBytes?: () => number }).heldBytes?.() ?? 0;
    return this.#index.byteLength() + held;
  }

  /** Closes the `Memo` client and (unless `closeStore` is false) the store. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ready?.catch(() => {});
    if (this.#closeStore) await this.#memo.close();
  }

  #open(): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new Error("Cannot read the project: it is closed"));
    }
    if (!this.#ready) {
      const ready = this.#memo.load().then(() => {});
      // A failed load (the disk briefly unreadable, the database down) is tried again next call.
      ready.catch(() => {
        if (this.#ready === ready) this.#ready = undefined;
      });
      this.#ready = ready;
    }
    return this.#ready;
  }

  /** The note with its revision as of the client's latest catch-up (a round trip if unknown). */
  async #withRevision(note: Note): Promise<CloudNote> {
    const revision = this.store.revisionOf(note.id);
    if (revision !== undefined) return { ...note, revision };
    const current = await this.store.get(note.id);
    return current ?? { ...note, revision: 0 };
  }
}
