/**
 * {@linkcode MemoCloudProject}, the one {@linkcode CloudProject} of the file store (`StoreProject`:
 * batch writes, patches, deletes and the change feed go to the store's
 * {@linkcode RevisionedStore}); reads (a note with its derived `supersededBy`, lists, recall,
 * stats), `remember` (links checked, similar notes listed), corrections, supersede links and tidy
 * go through a `Memo` client over it (which catches up with the store before every call), so that
 * the cloud ranks, counts, checks and corrects exactly as a local memo does over the same notes. A
 * `Memo` write is one `applyReplica` of the store (one transaction) guarded by the hashes of the
 * notes it read, so writers on other instances never lose one another's corrections. The cloud is
 * lexical: the client embeds nothing.
 *
 * @module
 */

import { type Bm25LexicalIndex, createLexicalIndex, Memo, type Note } from "@memo/memory";
import { StoreProject } from "./store_project.ts";
import type * as C from "../store.ts";

/**
 * Options of {@linkcode MemoCloudProject}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudProjectOptions } from "./memo_project.ts";
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
   * Recall answers kept for repeated identical recalls (emptied whenever the notes change); `0`
   * turns the cache off.
   * @default 256
   */
  recallCacheSize?: number;
}

/**
 * A {@linkcode CloudProject} over a {@linkcode RevisionedStore}. The `Memo` client is opened (and
 * the store loaded) on the first list, recall or stats.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileRevisionedStore } from "../file/store.ts";
 * import { MemoCloudProject } from "./memo_project.ts";
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
  constructor(store: C.RevisionedStore, options: MemoCloudProjectOptions = {}) {
    super(store);
    this.#closeStore = options.closeStore ?? true;
    this.#memo = new Memo({
      store,
      engine: "lexical",
      index: this.#index,
      localEmbeddings: false,
      indexCache: false,
      recallCacheSize: options.recallCacheSize,
      // The routes run the guard with the server's own policy (`MEMO_CLOUD_SECRETS`) before
      // they call the project: a second pass here would redact under `allow` too, unsaid.
      secrets: "allow",
    });
  }

  /** {@linkcode CloudProject.remember}: `Memo.remember` over the store, with the revision. */
  async remember(draft: C.NoteDraft): Promise<C.CloudRememberResult> {
    await this.#open();
    const { note, status, similar } = await this.#memo.remember(draft);
    return { status, note: await this.#withRevision(note), similar: similar ?? [] };
  }

  /** {@linkcode CloudProject.get}: the note as the store holds it now, with its links. */
  async get(id: string): Promise<C.CloudNote | undefined> {
    if (typeof id !== "string") return undefined;
    await this.#open();
    let note: Note;
    try {
      note = await this.#memo.get(id);
    } catch (e) {
      if ((e as { code?: unknown })?.code === "NOTE_NOT_FOUND") return undefined;
      throw e;
    }
    return await this.#withRevision(note);
  }

  /** {@linkcode CloudProject.correct}: `Memo.correct` (one `applyReplica`: one transaction). */
  async correct(input: C.CorrectInput): Promise<C.CloudSupersedeResult> {
    await this.#open();
    const { note, superseded } = await this.#memo.correct(input);
    return { note: await this.#withRevision(note), superseded };
  }

  /** {@linkcode CloudProject.supersede}: `Memo.supersede`. */
  async supersede(input: C.SupersedeInput): Promise<C.CloudSupersedeResult> {
    await this.#open();
    const { note, superseded } = await this.#memo.supersede(input);
    return { note: await this.#withRevision(note), superseded };
  }

  /** {@linkcode CloudProject.tidy}: `Memo.tidy`. */
  async tidy(): Promise<C.TidyPlan> {
    await this.#open();
    return await this.#memo.tidy();
  }

  /** {@linkcode CloudProject.applyTidy}: `Memo.applyTidy`. */
  async applyTidy(plan: C.TidyPlan): Promise<C.CloudTidyApplyResult> {
    await this.#open();
    const { merged, superseded, notes } = await this.#memo.applyTidy(plan);
    return {
      merged,
      superseded,
      notes: await Promise.all(notes.map((note) => this.#withRevision(note))),
    };
  }

  /** {@linkcode CloudProject.list}: a page of the `Memo` client's list, with revisions. */
  async list(
    options: C.CloudListOptions,
  ): Promise<{ notes: C.CloudNote[]; nextCursor?: string; total: number }> {
    await this.#open();
    const page = await this.#memo.list(options);
    const out: { notes: C.CloudNote[]; nextCursor?: string; total: number } = {
      notes: await Promise.all(page.notes.map((note) => this.#withRevision(note))),
      total: page.total,
    };
    if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
    return out;
  }

  /** {@linkcode CloudProject.recall}: memo's lexical ranking, with revisions. */
  async recall(query: string, options: C.CloudRecallOptions): Promise<C.CloudRecallHit[]> {
    await this.#open();
    const hits = await this.#memo.recall(query, {
      limit: options.limit,
      labels: options.labels,
      source: options.source,
      explain: options.explain,
      engine: "lexical",
      includeSuperseded: options.includeSuperseded,
      asOf: options.asOf,
      since: options.since,
      until: options.until,
    });
    return await Promise.all(hits.map(async (hit) => {
      const out: C.CloudRecallHit = {
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
  async stats(): Promise<C.CloudStats> {
    await this.#open();
    return await this.statsOf(await this.#memo.stats());
  }

  /**
   * An estimate of the memory the project takes: the recall index, plus the notes the store holds
   * when it tells (`heldBytes()`; the `Memo` client holds the same note objects).
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
  async #withRevision(note: Note): Promise<C.CloudNote> {
    const revision = this.store.revisionOf(note.id) ??
      (await this.store.get(note.id))?.revision ?? 0;
    return { ...note, revision };
  }
}
