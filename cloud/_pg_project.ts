/**
 * Internal: {@linkcode PostgresCloudProject}, the {@linkcode CloudProject} of
 * the PostgreSQL store. Writes, single reads and the change feed go to the
 * project's {@linkcode PostgresMemoryStore}; recall, list and stats go to the
 * project's {@linkcode ProjectIndex}, which the instance holds within its
 * index budget ({@linkcode IndexBudget}) and brings up to date before every
 * read (one indexed query when nothing changed).
 *
 * **Cold start.** A project that is not held is loaded from its newest index
 * snapshot in PostgreSQL and the changes after it, or, without a usable one,
 * built from its notes (read in pages, in one snapshot of the database).
 * Hits and pages are then read by revision: only the notes answered.
 *
 * **Notes that stay true.** The held index keeps each note's `created`,
 * `supersedes` and validity, and the derived `supersededBy` links, so that the
 * history filters of list and recall (`includeSuperseded`, `asOf`, `since`,
 * `until`) run on it, within the budget, and every answered note carries its
 * `supersededBy`. `get` reads the note and the ids of the notes that name it
 * (one query each). `remember` writes through the store (deduplicated by
 * identity) and lists `similar` from the held index, reading only the few
 * candidates it compares. `correct`, `supersede` and the link check of a
 * draft that names `supersedes` run `@memo/memory`'s own planning over
 * targeted reads (`PgTruthView`: the notes named, their `supersedes` chains,
 * the notes of the same text) and write in one transaction (`applyReplica`
 * guarded by the hashes read; planned again when another writer got there
 * first). Only `tidy` and `applyTidy`, which compare every note by design,
 * run on a transient `Memo` client over the project (`MemoCloudProject`), one
 * at a time per instance: it reads every note of the project for the call
 * and is dropped after it (about the memory of the project's full index and
 * notes while it runs).
 *
 * **Snapshots** are written in the background, never during a request:
 *
 * - when a project of at least `minNotes` notes has no snapshot of this
 *   build's format, or the one it has is `max(minChanges, changeRatio ×
 *   notes)` changes behind;
 * - `delayMs` after the read that found it due, and later again while a read
 *   of the project is under way (encoding takes the CPU: about 0.1 s per 100 MB
 *   of index);
 * - by one instance at a time (`_pg_snapshots.ts`).
 *
 * @module
 */

import type { Sql } from "postgres";
import {
  checkDraftLinks,
  type CorrectInput,
  correctNote,
  type HistoryWriteParts,
  type Note,
  type NoteDraft,
  prepareHistory,
  type SupersedeInput,
  supersedeNotes,
  type TidyPlan,
} from "@memo/memory";
import { unrefTimer } from "../platform/mod.ts";
import { type Held, type IndexBudget, noteBytes } from "./_budget.ts";
import {
  changesAfter,
  currentNotes,
  notesAtRevisions,
  readAllNotes,
  textsAtRevisions,
} from "./_pg_index_reads.ts";
import { PostgresMemoryStore } from "./_pg_memory_store.ts";
import { MemoCloudProject } from "./_project.ts";
import { PgTruthView } from "./_pg_truth.ts";
import { latestSnapshot, readSnapshot, writeSnapshot } from "./_pg_snapshots.ts";
import { type IndexHit, ProjectIndex } from "./_project_index.ts";
import { StoreProject } from "./_store_project.ts";
import type {
  CloudListOptions,
  CloudNote,
  CloudRecallHit,
  CloudRecallOptions,
  CloudRememberResult,
  CloudStats,
  CloudSupersedeResult,
  CloudTidyApplyResult,
  SnapshotCounters,
} from "./store.ts";

/**
 * When index snapshots are written (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SNAPSHOT_POLICY } from "./_pg_project.ts";
 *
 * assert.equal(DEFAULT_SNAPSHOT_POLICY.minNotes, 1000);
 * ```
 */
export interface SnapshotPolicy {
  /** Smallest project that gets a snapshot (a smaller one builds in a few ms). */
  minNotes: number;
  /** Fewest changes behind that make a new snapshot due … */
  minChanges: number;
  /** … or this share of the project's notes, whichever is larger. */
  changeRatio: number;
  /** How long after the read that found it due the snapshot is taken, in ms. */
  delayMs: number;
}

/** The default snapshot policy: 1000 notes; 1000 changes or 10 %; 100 ms. */
export const DEFAULT_SNAPSHOT_POLICY: Readonly<SnapshotPolicy> = {
  minNotes: 1000,
  minChanges: 1000,
  changeRatio: 0.1,
  delayMs: 100,
};

/**
 * What every project of one PostgreSQL store shares.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PgIndexContext } from "./_pg_project.ts";
 *
 * const keys: (keyof PgIndexContext)[] = ["sql", "budget", "format", "clock"];
 * assert.equal(keys.length, 4);
 * ```
 */
export interface PgIndexContext {
  /** The pool. */
  sql: Sql;
  /** A new connection of its own, for a binary copy (the caller closes it). */
  dedicated: () => Sql;
  /** The instance's index budget. */
  budget: IndexBudget;
  /** This build's snapshot format (`snapshotFormat`). */
  format: string;
  /** When snapshots are written; `undefined`: never (they are still read). */
  snapshots?: SnapshotPolicy;
  /** Counts, for `GET /v1/stats`. */
  counters: SnapshotCounters;
  /** Snapshot writes under way (the store waits for them when it closes). */
  background: Set<Promise<void>>;
  /** Receives a line for each background failure. */
  log?: (line: string) => void;
  /** The store's clock (the times of writes). */
  clock: () => Date;
  /** The transient `Memo` clients run one at a time: the last one's end. */
  transient: { tail: Promise<unknown> };
}

/** Notes a project keeps of those it answered lately (hits and pages of repeated reads). */
const NOTES_KEPT = 256;

/** The key of a snapshot of project `pid` covering `seq` (bound into its file). */
function snapshotKey(format: string, pid: number, seq: number): string {
  return `${format}:${pid}:${seq}`;
}

/**
 * A project's index as the budget holds it: loaded at the first read, caught
 * up before each one, one refresh at a time.
 */
class LiveIndex implements Held {
  readonly #store: PostgresMemoryStore;
  readonly #ctx: PgIndexContext;
  readonly #name: string;
  #index: ProjectIndex | undefined;
  /** Notes read by revision lately, least recently used first. */
  readonly #notes = new Map<number, CloudNote>();
  #notesBytes = 0;
  #running: Promise<unknown> = Promise.resolve();
  #queued: Promise<ProjectIndex> | undefined;
  #reads = 0;
  /** The seq of the newest snapshot known of this format; -1: none usable. */
  #snapshotSeq = -1;
  /** The seq of a snapshot found damaged (replaced by the next write). */
  #damaged: number | undefined;
  #writing = false;
  #closed = false;

  constructor(store: PostgresMemoryStore, ctx: PgIndexContext, name: string) {
    this.#store = store;
    this.#ctx = ctx;
    this.#name = name;
  }

  byteLength(): number {
    return (this.#index?.byteLength() ?? 0) + this.#notesBytes;
  }

  close(): void {
    this.#closed = true;
    this.#index = undefined;
    this.#notes.clear();
    this.#notesBytes = 0;
  }

  /**
   * The notes of `items` as of their revisions, by revision: from the notes
   * read lately (a revision's note never changes), else from the change feed
   * (a revision it no longer holds falls back to the current note of that id
   * when it is still at that revision).
   */
  async notesAt(
    pid: number | undefined,
    items: readonly Pick<IndexHit, "id" | "revision">[],
  ): Promise<Map<number, CloudNote>> {
    const out = new Map<number, CloudNote>();
    if (pid === undefined || !items.length) return out;
    const wanted: Pick<IndexHit, "id" | "revision">[] = [];
    for (const item of items) {
      const note = this.#notes.get(item.revision);
      if (!note) {
        wanted.push(item);
        continue;
      }
      out.set(item.revision, note);
      this.#notes.delete(item.revision); // the most recently used last
      this.#notes.set(item.revision, note);
    }
    if (!wanted.length) return out;
    const sql = this.#ctx.sql;
    const read = await notesAtRevisions(sql, pid, wanted.map((i) => i.revision));
    const missing = wanted.filter((i) => !read.has(i.revision));
    if (missing.length) {
      const current = await currentNotes(sql, pid, missing.map((i) => i.id));
      for (const item of missing) {
        const note = current.get(item.id);
        if (note?.revision === item.revision) read.set(item.revision, note);
      }
    }
    for (const [revision, note] of read) {
      out.set(revision, note);
      if (this.#closed || this.#notes.has(revision)) continue;
      this.#notes.set(revision, note);
      this.#notesBytes += noteBytes(note);
      if (this.#notes.size > NOTES_KEPT) {
        const [oldest, dropped] = this.#notes.entries().next().value!;
        this.#notes.delete(oldest);
        this.#notesBytes -= noteBytes(dropped);
      }
    }
    return out;
  }

  /**
   * Runs `fn` on the index brought up to date with the database; a refresh
   * waiting to start is shared by the callers that arrive meanwhile.
   */
  async read<T>(
    fn: (index: ProjectIndex, pid: number | undefined, live: LiveIndex) => Promise<T>,
  ): Promise<T> {
    this.#reads++;
    try {
      let next = this.#queued;
      if (!next) {
        const queued: Promise<ProjectIndex> = this.#running.then(() => {
          if (this.#queued === queued) this.#queued = undefined;
          return this.#refresh();
        });
        this.#queued = next = queued;
        this.#running = queued.catch(() => {});
      }
      const index = await next;
      return await fn(index, await this.#store.pid(), this);
    } finally {
      this.#reads--;
    }
  }

  async #refresh(): Promise<ProjectIndex> {
    if (this.#closed) throw new Error("Cannot read the project: its index was evicted");
    const pid = await this.#store.pid();
    if (pid === undefined) return this.#index ??= new ProjectIndex();
    const current = this.#index &&
      (await this.#catchUp(this.#index, pid) ? this.#index : undefined);
    const index = current ?? await this.#load(pid);
    if (this.#closed) throw new Error("Cannot read the project: its index was evicted");
    this.#index = index;
    this.#considerSnapshot(pid);
    return index;
  }

  async #load(pid: number): Promise<ProjectIndex> {
    const ctx = this.#ctx;
    const header = await latestSnapshot(ctx.sql, pid, ctx.format);
    if (header) {
      this.#snapshotSeq = header.seq;
      let bytes: Uint8Array | undefined;
      try {
        bytes = await readSnapshot(ctx.dedicated, pid, ctx.format, header);
      } catch (e) {
        // Not read (the database, the connection): built this time, the snapshot left as it is.
        ctx.log?.(`memo-cloud: cannot read the index snapshot of ${this.#name}: ${reason(e)}`);
      }
      const index = bytes &&
        ProjectIndex.importSnapshot(bytes, snapshotKey(ctx.format, pid, header.seq));
      if (index) {
        ctx.counters.loaded++;
        if (await this.#catchUp(index, pid)) return index;
      } else if (bytes) {
        // Read but unusable (damaged, another project's): the next snapshot replaces it.
        ctx.counters.rejected++;
        this.#snapshotSeq = -1;
        this.#damaged = header.seq;
      }
    }
    const index = new ProjectIndex();
    const head = await readAllNotes(ctx.sql, pid, (page) => index.add(page));
    index.finish(head);
    ctx.counters.built++;
    return index;
  }

  /** Applies the changes after the index's seq; false when it must be rebuilt. */
  async #catchUp(index: ProjectIndex, pid: number): Promise<boolean> {
    const changes = await changesAfter(this.#ctx.sql, pid, index.seq);
    if (!changes) return false;
    if (!changes.upserted.length && !changes.removed.length) {
      index.seq = changes.head;
      return true;
    }
    const needed = index.needed(changes.upserted, changes.removed);
    const texts = await textsAtRevisions(this.#ctx.sql, pid, needed);
    return index.apply(changes.upserted, changes.removed, texts, changes.head);
  }

  /** Schedules a snapshot write when one is due (see the module doc). */
  #considerSnapshot(pid: number): void {
    const policy = this.#ctx.snapshots;
    const index = this.#index;
    if (!policy || !index || this.#writing || this.#closed || index.size < policy.minNotes) return;
    if (this.#snapshotSeq >= 0) {
      const behind = index.seq - this.#snapshotSeq;
      if (behind < Math.max(policy.minChanges, policy.changeRatio * index.size)) return;
    }
    this.#writing = true;
    const ctx = this.#ctx;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    ctx.background.add(finished);
    const run = async () => {
      if (this.#closed || !this.#index) return;
      // Not while a read of this project is under way: encoding holds the CPU.
      if (this.#reads > 0 || this.#queued) {
        await new Promise((resolve) => unrefTimer(setTimeout(resolve, policy.delayMs)));
        return await run();
      }
      const seq = this.#index.seq;
      const notes = this.#index.size;
      const bytes = this.#index.exportSnapshot(snapshotKey(ctx.format, pid, seq));
      if (!bytes) return;
      const outcome = await writeSnapshot(ctx.dedicated, {
        pid,
        format: ctx.format,
        seq,
        notes,
        bytes,
        damaged: this.#damaged,
      });
      if (outcome === "written") {
        ctx.counters.written++;
        this.#damaged = undefined;
      } else ctx.counters.skipped++;
      // Written here or elsewhere: the next one is due counting from here.
      this.#snapshotSeq = Math.max(this.#snapshotSeq, seq);
    };
    unrefTimer(setTimeout(() => {
      run().catch((e) => {
        ctx.counters.failed++;
        ctx.log?.(`memo-cloud: cannot write the index snapshot of ${this.#name}: ${reason(e)}`);
      }).finally(() => {
        this.#writing = false;
        ctx.background.delete(finished);
        done();
      });
    }, policy.delayMs));
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The {@linkcode CloudProject} of the PostgreSQL store; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresCloudStore } from "./postgres_store.ts";
 * import { startPostgres } from "../tests/_postgres.ts";
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
  recall(query: string, options: CloudRecallOptions): Promise<CloudRecallHit[]> {
    return this.#read(async (index, pid, live) => {
      const hits = index.search(query, options);
      const notes = await live.notesAt(pid, hits);
      return hits.flatMap((hit) => {
        const note = notes.get(hit.revision);
        if (!note) return [];
        const out: CloudRecallHit = {
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
    options: CloudListOptions,
  ): Promise<{ notes: CloudNote[]; nextCursor?: string; total: number }> {
    return this.#read(async (index, pid, live) => {
      const page = index.list(options);
      const notes = await live.notesAt(pid, page.items);
      const out: { notes: CloudNote[]; nextCursor?: string; total: number } = {
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
  stats(): Promise<CloudStats> {
    return this.#read(async (index) => {
      const stats = index.stats();
      const out: CloudStats = {
        notes: stats.notes,
        labels: stats.labels,
        sources: stats.sources,
        revision: await this.store.lastRevision(),
      };
      if (stats.lastUpdated !== undefined) out.lastUpdated = stats.lastUpdated;
      return out;
    });
  }

  /**
   * {@linkcode CloudProject.get}: the note read now, with the ids of the notes naming it (fields
   * in a `Memo` client's order: `supersededBy` before `revision`).
   */
  async get(id: string): Promise<CloudNote | undefined> {
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
   * `supersedes` are checked first, as `Memo.remember` checks them, over the notes they name
   * and their chains (`PgTruthView`).
   */
  async remember(draft: NoteDraft): Promise<CloudRememberResult> {
    if (draft?.supersedes !== undefined) {
      prepareHistory(draft); // a malformed list is refused as such, before the lookups
      await checkDraftLinks(this.#truth(), draft);
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
   * {@linkcode CloudProject.correct}: `Memo.correct`'s planning and write (one `applyReplica`:
   * one transaction) over the notes it names, their chains and the notes of the same text.
   */
  async correct(input: CorrectInput): Promise<CloudSupersedeResult> {
    const { note, superseded } = await correctNote(this.#truth(), input);
    return { note: await this.#answer(note), superseded };
  }

  /** {@linkcode CloudProject.supersede}: `Memo.supersede`'s, over the notes it names. */
  async supersede(input: SupersedeInput): Promise<CloudSupersedeResult> {
    const { note, superseded } = await supersedeNotes(this.#truth(), input);
    return { note: await this.#answer(note), superseded };
  }

  /** {@linkcode CloudProject.tidy}: `Memo.tidy`, on a transient `Memo`. */
  tidy(): Promise<TidyPlan> {
    return this.#transient((p) => p.tidy());
  }

  /** {@linkcode CloudProject.applyTidy}: `Memo.applyTidy`, on a transient `Memo`. */
  applyTidy(plan: TidyPlan): Promise<CloudTidyApplyResult> {
    return this.#transient((p) => p.applyTidy(plan));
  }

  /** What `@memo/memory`'s writes use, over targeted reads of this project. */
  #truth(): HistoryWriteParts {
    return {
      view: new PgTruthView(this.#ctx.sql, () => this.store.pid()),
      apply: (changes) => this.store.applyReplica(changes),
      // As a `Memo` client's (the file store's projects too): the times of the write.
      clock: () => new Date(),
      // The routes guarded the text with the server's policy already.
      secrets: "allow",
    };
  }

  /** A written note as the store holds it now (`get`); as written, revision 0, when gone since. */
  async #answer(note: Note): Promise<CloudNote> {
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
