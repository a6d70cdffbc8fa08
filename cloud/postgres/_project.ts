/**
 * Internal: {@linkcode PostgresCloudProject}, the {@linkcode CloudProject} of the PostgreSQL store.
 * Writes, single reads and the change feed go to the project's {@linkcode PostgresMemoryStore};
 * recall, list and stats go to the project's {@linkcode ProjectIndex}, which the instance holds
 * within its index budget (`IndexBudget`) and brings up to date before every read (one indexed
 * query when nothing changed): `_live_index.ts`.
 *
 * **Notes that stay true.** The held index keeps each note's `created`, `supersedes` and validity,
 * and the derived `supersededBy` links, so that the history filters of list and recall
 * (`includeSuperseded`, `asOf`, `since`, `until`) run on it, within the budget, and every answered
 * note carries its `supersededBy`. `get` reads the note and the ids of the notes that name it (one
 * query each). `remember` writes through the store (deduplicated by identity) and lists `similar`
 * from the held index, reading only the few candidates it compares. `correct`, `supersede` and the
 * link check of a draft that names `supersedes` run `@memo/memory`'s own planning over targeted
 * reads (`PgHistoryView`: the notes named, their `supersedes` chains, the notes of the same text)
 * and write in one transaction (`applyReplica` guarded by the hashes read; planned again when
 * another writer got there first). Only `tidy` and `applyTidy`, which compare every note by design,
 * run on a transient `Memo` client over the project (`MemoCloudProject`), one at a time per
 * instance: it reads every note of the project for the call and is dropped after it (about the
 * memory of the project's full index and notes while it runs).
 *
 * @module
 */

import {
  checkDraftLinks,
  correctNote,
  type HistoryWriteParts,
  type Note,
  prepareHistory,
  supersedeNotes,
} from "@memo/memory";
import { LiveIndex, type PgIndexContext } from "./_live_index.ts";
import { PostgresMemoryStore } from "./memory_store.ts";
import { MemoCloudProject } from "../projects/memo_project.ts";
import { PgHistoryView } from "./_history.ts";
import type { ProjectIndex } from "../projects/project_index.ts";
import { StoreProject } from "../projects/store_project.ts";
import type * as C from "../store.ts";

/**
 * The {@linkcode CloudProject} of the PostgreSQL store; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore } from "./store.ts";
 * import { startPostgres } from "../../tests/_postgres.ts";
 *
 * const pg = await startPostgres();
 * const store = await PostgresCloudStore.open({ url: pg.url, max: 2 });
 * try {
 *   const project = await store.project("team", "default");
 *   const [{ note }] = await project.upsert([{ text: "Deploys run with make deploy" }]);
 *   const [hit] = await project.recall("deploy", { limit: 5 });
 *   assert.equal(hit.note.id, note.id);
 *   assert.equal(hit.note.revision, note.revision);
 *   assert.equal((await project.list({ limit: 10 })).total, 1);
 * } finally {
 *   await store.close();
 *   await pg.stop();
 * }
 * ```
 */
export class PostgresCloudProject extends StoreProject<PostgresMemoryStore> {
  readonly #ctx: PgIndexContext;
  readonly #key: string;

  /** The project `key` (`workspace/project`) over its store. */
  constructor(store: PostgresMemoryStore, ctx: PgIndexContext, key: string) {
    super(store);
    this.#ctx = ctx;
    this.#key = key;
  }

  /** {@linkcode CloudProject.recall}: memo's lexical ranking; the hits are read as ranked. */
  recall(query: string, options: C.CloudRecallOptions): Promise<C.CloudRecallHit[]> {
    return this.#read(async (index, pid, live) => {
      const hits = index.search(query, options);
      const notes = await live.notesAt(pid, hits);
      return hits.flatMap((hit) => {
        const note = notes.get(hit.revision);
        if (!note) return [];
        const out: C.CloudRecallHit = {
          note: index.withLinks(note),
          score: hit.score,
          engine: "lexical",
          matched: hit.matched,
        };
        if (hit.explain) out.explain = hit.explain;
        return [out];
      });
    });
  }

  /** {@linkcode CloudProject.list}: a page as `Memo.list` pages it. */
  list(
    options: C.CloudListOptions,
  ): Promise<{ notes: C.CloudNote[]; nextCursor?: string; total: number }> {
    return this.#read(async (index, pid, live) => {
      const page = index.list(options);
      const notes = await live.notesAt(pid, page.items);
      const out: { notes: C.CloudNote[]; nextCursor?: string; total: number } = {
        notes: page.items.flatMap((item) => {
          const note = notes.get(item.revision);
          return note ? [index.withLinks(note)] : [];
        }),
        total: page.total,
      };
      if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
      return out;
    });
  }

  /** {@linkcode CloudProject.stats}: memo's counts plus the latest revision. */
  stats(): Promise<C.CloudStats> {
    return this.#read((index) => this.statsOf(index.stats()));
  }

  /**
   * {@linkcode CloudProject.get}: the note read now, with the ids of the notes naming it (fields in
   * a `Memo` client's order: `supersededBy` before `revision`).
   */
  async get(id: string): Promise<C.CloudNote | undefined> {
    const note = await this.store.get(id);
    if (!note) return undefined;
    const by = await this.store.supersededBy(id);
    if (!by.length) return note;
    const { revision, ...plain } = note;
    return { ...plain, supersededBy: by, revision };
  }

  /**
   * {@linkcode CloudProject.remember}: the store's upsert (deduplicated by identity), with the
   * `similar` notes of a written one from the held index; the links of a draft that names
   * `supersedes` are checked first, as `Memo.remember` checks them, over the notes they name and
   * their chains (`PgHistoryView`).
   */
  async remember(draft: C.NoteDraft): Promise<C.CloudRememberResult> {
    if (draft?.supersedes !== undefined) {
      prepareHistory(draft); // a malformed list is refused as such, before the lookups
      await checkDraftLinks(this.#history(), draft);
    }
    const [result] = await this.store.upsert([draft]);
    const note = result.status === "written" ? result.note : (await this.get(result.note.id)) ??
      result.note;
    if (result.status !== "written") return { status: result.status, note, similar: [] };
    const similar = await this.#read((index, pid, live) =>
      index.similar(note, async (items) => {
        const read = await live.notesAt(pid, items);
        const out = new Map<string, Note>();
        for (const item of items) {
          const found = read.get(item.revision);
          if (found) out.set(item.id, found);
        }
        return out;
      })
    );
    return { status: result.status, note, similar };
  }

  /**
   * {@linkcode CloudProject.correct}: `Memo.correct`'s planning and write (one `applyReplica`: one
   * transaction) over the notes it names, their chains and the notes of the same text.
   */
  async correct(input: C.CorrectInput): Promise<C.CloudSupersedeResult> {
    const { note, superseded } = await correctNote(this.#history(), input);
    return { note: await this.#answer(note), superseded };
  }

  /** {@linkcode CloudProject.supersede}: `Memo.supersede`'s, over the notes it names. */
  async supersede(input: C.SupersedeInput): Promise<C.CloudSupersedeResult> {
    const { note, superseded } = await supersedeNotes(this.#history(), input);
    return { note: await this.#answer(note), superseded };
  }

  /** {@linkcode CloudProject.tidy}: `Memo.tidy`, on a transient `Memo`. */
  tidy(): Promise<C.TidyPlan> {
    return this.#transient((p) => p.tidy());
  }

  /** {@linkcode CloudProject.applyTidy}: `Memo.applyTidy`, on a transient `Memo`. */
  applyTidy(plan: C.TidyPlan): Promise<C.CloudTidyApplyResult> {
    return this.#transient((p) => p.applyTidy(plan));
  }

  /** What `@memo/memory`'s writes use, over targeted reads of this project. */
  #history(): HistoryWriteParts {
    return {
      view: new PgHistoryView(this.#ctx.sql, () => this.store.pid()),
      apply: (changes) => this.store.applyReplica(changes),
      // As a `Memo` client's (the file store's projects too): the times of the write.
      clock: () => new Date(),
      // The routes guarded the text with the server's policy already.
      secrets: "allow",
    };
  }

  /** A written note as the store holds it now (`get`); as written, revision 0, when gone since. */
  async #answer(note: Note): Promise<C.CloudNote> {
    return (await this.get(note.id)) ?? { ...note, revision: 0 };
  }

  /**
   * Runs `fn` on a `MemoCloudProject` over a store of its own for this project (it reads every
   * note), after the instance's previous transient one ended; both are dropped after.
   */
  #transient<T>(fn: (project: MemoCloudProject) => Promise<T>): Promise<T> {
    const ctx = this.#ctx;
    const run = ctx.transient.tail.then(async () => {
      const store = new PostgresMemoryStore({
        sql: ctx.sql,
        workspaceId: this.store.workspaceId,
        projectId: this.store.projectId,
        clock: ctx.clock,
      });
      const project = new MemoCloudProject(store, { recallCacheSize: 0 });
      try {
        return await fn(project);
      } finally {
        await project.close();
      }
    });
    ctx.transient.tail = run.catch(() => {});
    return run;
  }

  #read<T>(
    fn: (index: ProjectIndex, pid: number | undefined, live: LiveIndex) => Promise<T>,
  ): Promise<T> {
    return this.#ctx.budget.use(
      this.#key,
      () => new LiveIndex(this.store, this.#ctx, this.#key),
      (live) => live.read(fn),
    );
  }
}
