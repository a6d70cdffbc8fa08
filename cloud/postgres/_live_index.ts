/**
 * Internal: {@linkcode LiveIndex}, what an instance holds of one project of the PostgreSQL store
 * within its index budget: the project's {@linkcode ProjectIndex}, brought up to date before every
 * read (one indexed query when nothing changed), and the notes of the last hits read; and
 * {@linkcode PgIndexContext}, what every held project of an instance shares.
 *
 * **Cold start.** A project that is not held is loaded from its newest index snapshot in PostgreSQL
 * and the changes after it (read while the snapshot's bytes are), or, without a usable one, built
 * from its notes (read in pages, in one snapshot of the database). Hits and pages are then read by revision: only the notes answered.
 *
 * **Snapshots** are written in the background, never during a request:
 *
 * - when a project of at least `minNotes` notes has no snapshot of this build's format, or the one
 *   it has is `max(minChanges, changeRatio × notes)` changes behind;
 * - `delayMs` after the read that found it due, and later again while a read of the project is
 *   under way (encoding takes the CPU: about 0.1 s per 100 MB of index);
 * - by one instance at a time (`_snapshots.ts`).
 *
 * @module
 */

import type { Sql } from "postgres";
import { unrefTimer } from "../../platform/mod.ts";
import type { Held, IndexBudget } from "../projects/budget.ts";
import { noteBytes } from "../projects/budget.ts";
import { type IndexHit, ProjectIndex } from "../projects/project_index.ts";
import type { CloudNote, SnapshotCounters } from "../store.ts";
import {
  changesAfter,
  currentNotes,
  notesAtRevisions,
  readAllNotes,
  textsAtRevisions,
} from "./_index_reads.ts";
import type { PostgresMemoryStore } from "./memory_store.ts";
import { latestSnapshot, readSnapshot, writeSnapshot } from "./_snapshots.ts";

/**
 * When index snapshots are written (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SNAPSHOT_POLICY } from "./_live_index.ts";
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
 * import type { PgIndexContext } from "./_live_index.ts";
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

/** What {@linkcode changesAfter} answers. */
type Changes = Awaited<ReturnType<typeof changesAfter>>;

/** Notes a project keeps of those it answered lately (hits and pages of repeated reads). */
const NOTES_KEPT = 256;

/** The key of a snapshot of project `pid` covering `seq` (bound into its file). */
function snapshotKey(format: string, pid: number, seq: number): string {
  return `${format}:${pid}:${seq}`;
}

/**
 * A project's index as the budget holds it: loaded at the first read, caught up before each one,
 * one refresh at a time.
 *
 * @example A project of the PostgreSQL store reads through one
 * ```ts
 * import assert from "node:assert/strict";
 * import { LiveIndex } from "./_live_index.ts";
 *
 * assert.equal(typeof LiveIndex.prototype.read, "function");
 * assert.equal(typeof LiveIndex.prototype.notesAt, "function");
 * ```
 */
export class LiveIndex implements Held {
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
   * The notes of `items` as of their revisions, by revision: from the notes read lately (a
   * revision's note never changes), else from the change feed (a revision it no longer holds falls
   * back to the current note of that id when it is still at that revision).
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
   * Runs `fn` on the index brought up to date with the database; a refresh waiting to start is
   * shared by the callers that arrive meanwhile.
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
      // The changes after the snapshot are read while its bytes are (another connection).
      const after: Promise<Changes | "failed"> = changesAfter(ctx.sql, pid, header.seq)
        .catch(() => "failed" as const);
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
        const known = await after;
        if (await this.#catchUp(index, pid, index.seq === header.seq ? known : "failed")) {
          return index;
        }
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

  /**
   * Applies the changes after the index's seq (`known`: already read after it); false when it must
   * be rebuilt.
   */
  async #catchUp(
    index: ProjectIndex,
    pid: number,
    known: Changes | "failed" = "failed",
  ): Promise<boolean> {
    const changes = known === "failed" ? await changesAfter(this.#ctx.sql, pid, index.seq) : known;
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
