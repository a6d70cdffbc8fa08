/**
 * `FileMemoryStore`: the default {@linkcode MemoryStore}, on `.memo/memory/notes.md` (format, lock
 * and crash recovery: docs/notes-format.md). A commit is all-or-nothing: one append and one fsync,
 * or an atomic rewrite when it updates a note. Readers never lock and never see a write in flight.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { MemoryValidationError, NotesConflictError } from "../errors.ts";
import type { UnresolvedMerge } from "./conflict_markers.ts";
import type { Note, NotePatch } from "../notes/note.ts";
import type { MemoPaths } from "./paths.ts";
import type {
  CommitBatch,
  CommitOptions,
  CommitResult,
  MemoryStore,
  NotePage,
  ReplicaApplyResult,
  ReplicaChanges,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
  WriteOptions,
} from "./store.ts";
import { cursorStart, decodeCursor, encodeCursor, OrderRanks } from "../notes/cursor.ts";
import type { NotesSection } from "./parse.ts";
import {
  acquireLock,
  type HeldLock,
  type LockSettings,
  readLock,
  recoverStaleLock,
  staleReason,
} from "./_lock.ts";
import { LoadedNotes } from "./_loaded_notes.ts";
import { type FileMemoryStoreOptions, storeSettings } from "./file_store_options.ts";
import { offerLoadDigests } from "./load_digest.ts";
import { patchNote, planCommit, type PreparedDraft, prepareDrafts } from "./_commit_plan.ts";
import { checkReplicaChanges, planReplica, staleIds } from "./_replica_plan.ts";

const MAX_PAGE = 1000;

/**
 * The file-backed memory store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.load();
 * const { written } = await store.commit({ notes: [{ text: "Deploys run with make deploy" }] });
 * const again = await store.commit({ notes: [{ text: "Deploys run with make deploy" }] });
 * assert.equal(written.length, 1);
 * assert.equal(again.unchanged.length, 1); // the same content is not written twice
 * assert.equal(again.bytesWritten, 0);
 * assert.ok((await Deno.readTextFile(store.paths.notes)).includes("Deploys run with make deploy"));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FileMemoryStore implements MemoryStore {
  /** Where the store's files are. */
  readonly paths: MemoPaths;
  readonly #clock: () => Date;
  readonly #lock: Omit<LockSettings, "create" | "signal">;
  readonly #file: LoadedNotes;
  /** Ranks of the notes in file order, for list cursors that outlive removals. */
  readonly #ranks = new OrderRanks();
  #events: StoreIssue[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  /** No operation queued or running (the last one queued has settled). */
  #idle = true;

  /** Creates a store on `options.rootDir`; nothing is read or created until the first call. */
  constructor(options: FileMemoryStoreOptions) {
    const { paths, lock, mergeCache, digestCache } = storeSettings(options);
    this.paths = paths;
    this.#clock = options.clock ?? (() => new Date());
    this.#lock = lock;
    const file = new LoadedNotes(
      paths.notes,
      paths.lock,
      options.conflictBase,
      mergeCache,
      digestCache,
    );
    this.#file = file;
    offerLoadDigests(this, {
      request: (mark) => file.requestDigests(mark),
      taken: () => file.digests,
    });
  }

  /** Problems known now: recoveries since the last `load()`, then damaged sections. */
  get issues(): StoreIssue[] {
    return [...this.#events, ...this.#file.issues];
  }

  /**
   * Set while `notes.md` holds git's conflict markers (as of the last read): reads then return the
   * merge `memo resolve` writes ({@linkcode FileMemoryStore.resolveMerge}), and every write throws
   * `NotesConflictError`, touching nothing.
   */
  get unresolvedMerge(): UnresolvedMerge | undefined {
    return this.#file.unresolvedMerge;
  }

  /**
   * Writes the merge of a conflicted `notes.md` over it in one atomic rewrite (what `memo
   * resolve` does); `undefined`, writing nothing, when the file holds no conflict markers.
   * Throws `MemoryValidationError` when a side cannot be read as notes.
   */
  resolveMerge(): Promise<UnresolvedMerge | undefined> {
    return this.#exclusive(async () => {
      await this.#file.refresh(false);
      if (!this.#file.unresolvedMerge) return undefined;
      const lock = await this.#acquire(false);
      try {
        await this.#file.refresh(true);
        const merge = this.#file.unresolvedMerge;
        if (!merge) return undefined;
        if (merge.text === undefined) {
          throw new MemoryValidationError(
            `Cannot resolve the merge in ${merge.path}: a side cannot be read as notes; ` +
              "fix the damaged note by hand, or run `git merge-file`",
            { details: { path: merge.path } },
          );
        }
        await this.#file.rewrite(new Map());
        return merge;
      } finally {
        await lock.release();
      }
    });
  }

  /** Throws while the file holds git's conflict markers. */
  #refuseConflict(): void {
    const merge = this.#file.unresolvedMerge;
    if (merge) throw new NotesConflictError(merge.path);
  }

  /** Reads the whole file (creating nothing), first recovering a stale lock if one is left. */
  load(): Promise<StoreLoadReport> {
    return this.#exclusive(async () => {
      const lock = await readLock(this.paths.lock);
      if (lock && staleReason(lock, this.#settings(false)) !== undefined) {
        this.#report((await recoverStaleLock(this.#settings(false), lock)).issues);
      }
      await this.#file.fullReload(false);
      const report = { notes: this.#file.table.size, issues: this.issues };
      this.#events = [];
      return report;
    });
  }

  /** Stores a batch all-or-nothing, deduplicating by identity; see the module doc. */
  async commit(batch: CommitBatch, options: CommitOptions = {}): Promise<CommitResult> {
    const drafts: PreparedDraft[] = prepareDrafts(batch);
    options.signal?.throwIfAborted();
    return await this.#exclusive(async () => {
      await this.#file.refresh(false);
      this.#refuseConflict();
      let plan = planCommit(this.#file.table, drafts, this.#clock());
      // "Unchanged" is an answer from the table: it must hold the file's every byte (an edit in
      // place above another process's append looked like growth), or a note is not written.
      if (plan.unchanged.length > 0 && await this.#file.exact(false)) {
        this.#refuseConflict();
        plan = planCommit(this.#file.table, drafts, this.#clock());
      }
      if (!plan.written.length && !plan.updated.length) return plan.result(0);
      const planned = this.#file.table.revision;
      const lock = await this.#acquire(true, options.signal);
      try {
        await this.#file.refresh(true);
        this.#refuseConflict();
        // Planned again only when another writer changed the file meanwhile.
        if (this.#file.table.revision !== planned) {
          plan = planCommit(this.#file.table, drafts, this.#clock());
          if (!plan.written.length && !plan.updated.length) return plan.result(0);
        }
        // A rewrite writes the whole file from the table: it must hold the file's every byte.
        if (
          (plan.updated.length > 0 || plan.unchanged.length > 0) && await this.#file.exact(true)
        ) {
          this.#refuseConflict();
          plan = planCommit(this.#file.table, drafts, this.#clock());
          if (!plan.written.length && !plan.updated.length) return plan.result(0);
        }
        options.signal?.throwIfAborted();
        if (plan.updated.length === 0) {
          const written = plan.written;
          const whileDurable = options.whileDurable && (() => options.whileDurable!(written));
          return plan.result(await this.#file.append(written, lock, whileDurable));
        }
        const replace = new Map<NotesSection, Note>();
        for (const note of plan.updated) replace.set(this.#file.table.section(note.id)!, note);
        return plan.result(await this.#file.rewrite(replace, undefined, plan.written));
      } finally {
        await lock.release();
      }
    });
  }

  /** Changes a note's text, title or labels; `undefined` when the id is unknown. */
  update(id: string, patch: NotePatch, options: WriteOptions = {}): Promise<Note | undefined> {
    return this.#exclusive(async () => {
      options.signal?.throwIfAborted();
      await this.#file.refresh(false);
      this.#refuseConflict();
      const current = typeof id === "string" ? this.#file.table.get(id) : undefined;
      if (!current) return undefined;
      // Bad input is refused, and a patch that changes nothing returns, before any lock.
      if (patchNote(current, patch, this.#clock()) === current) return current;
      const lock = await this.#acquire(false, options.signal);
      try {
        await this.#file.refresh(true);
        await this.#file.exact(true);
        this.#refuseConflict();
        const section = this.#file.table.section(id);
        if (!section?.note) return undefined;
        const note = patchNote(section.note, patch, this.#clock());
        if (note === section.note) return note;
        options.signal?.throwIfAborted();
        await this.#file.rewrite(new Map([[section, note]]));
        return note;
      } finally {
        await lock.release();
      }
    });
  }

  /** Removes a note; false when the id is unknown. */
  remove(id: string, options: WriteOptions = {}): Promise<boolean> {
    return this.#exclusive(async () => {
      options.signal?.throwIfAborted();
      await this.#file.refresh(false);
      this.#refuseConflict();
      if (typeof id !== "string" || !this.#file.table.has(id)) return false;
      const lock = await this.#acquire(false, options.signal);
      try {
        await this.#file.refresh(true);
        await this.#file.exact(true);
        this.#refuseConflict();
        const section = this.#file.table.section(id);
        if (!section) return false;
        options.signal?.throwIfAborted();
        await this.#file.rewrite(new Map(), section);
        return true;
      } finally {
        await lock.release();
      }
    });
  }

  /**
   * Writes notes verbatim (ids, hashes and times kept) and removes ids, in one step: only new notes
   * are appended; anything else is one atomic rewrite. With `expect`, writes only when every id
   * still has the hash expected (checked under the lock). Refuses a note whose hash does not match
   * its content, an id given twice, and an id both put and removed.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { FileMemoryStore } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const store = new FileMemoryStore({ rootDir: dir });
   * const { written: [a, b] } = await store.commit({ notes: [{ text: "a" }, { text: "b" }] });
   * const edited = { ...a, labels: ["x"], hash: "", updated: "2030-01-01T00:00:00.000Z" };
   * const { contentHash } = await import("@memo/memory");
   * edited.hash = contentHash(edited);
   * const result = await store.applyReplica({ put: [edited], remove: [b.id] });
   * assert.deepEqual([result.updated, result.removed], [[a.id], [b.id]]);
   * assert.equal((await store.get(a.id))?.updated, "2030-01-01T00:00:00.000Z");
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    let put: Note[];
    let remove: string[];
    try {
      ({ put, remove } = checkReplicaChanges(changes));
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#exclusive(async () => {
      const none: ReplicaApplyResult = { written: [], updated: [], removed: [], bytesWritten: 0 };
      const plan = () => planReplica(this.#file.table, put, remove);
      await this.#file.refresh(false);
      this.#refuseConflict();
      let todo = plan();
      if (!todo.added.length && !todo.replace.size && !todo.drop.size) return none;
      const lock = await this.#acquire(true);
      try {
        await this.#file.refresh(true);
        await this.#file.exact(true);
        this.#refuseConflict();
        const stale = staleIds(this.#file.table, changes.expect);
        if (stale.length) return { ...none, stale };
        if (changes.expectSha256 !== undefined && changes.expectSha256 !== this.#sha256()) {
          throw new MemoryValidationError(
            "Cannot apply the replica changes: notes.md changed since (its SHA-256 differs)",
            { details: { expectSha256: changes.expectSha256 } },
          );
        }
        todo = plan();
        const { added, replace, drop } = todo;
        if (!added.length && !replace.size && !drop.size) return none;
        const result: ReplicaApplyResult = {
          written: added.map((n) => n.id),
          updated: [...replace.values()].map((n) => n.id),
          removed: [...drop].map((s) => s.note!.id),
          bytesWritten: 0,
        };
        result.bytesWritten = replace.size || drop.size
          ? await this.#file.rewrite(replace, drop, added)
          : await this.#file.append(added, lock);
        return result;
      } finally {
        await lock.release();
      }
    });
  }

  /** One note by id. */
  get(id: string): Promise<Note | undefined> {
    return this.#exclusive(async () => {
      await this.#file.refresh(false);
      return typeof id === "string" ? this.#file.table.get(id) : undefined;
    });
  }

  /** Notes in file order, `limit` (1 to 1000, default 25) at a time. */
  list(cursor?: string, limit = 25): Promise<NotePage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      return Promise.reject(
        new MemoryValidationError(
          `Cannot list notes: limit must be an integer from 1 to ${MAX_PAGE}`,
        ),
      );
    }
    let state: { id: string; position: number } | undefined;
    try {
      state = cursor === undefined ? undefined : decodeCursor(cursor, "list notes");
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#exclusive(async () => {
      await this.#file.refresh(false);
      const order = this.#file.table.order();
      const ranks = this.#ranks.of(order);
      const start = cursorStart(
        order.length,
        false,
        state,
        (id) => this.#file.table.position(id),
        (i) => ranks[i],
      );
      const notes = order.slice(start, start + limit);
      const page: NotePage = { notes };
      const last = start + notes.length - 1;
      if (last + 1 < order.length && notes.length) {
        page.nextCursor = encodeCursor({ id: order[last].id, position: ranks[last] });
      }
      return page;
    });
  }

  /**
   * The SHA-256 (hex) of `notes.md` as read now (what `sha256sum` prints for valid UTF-8) and its
   * notes, in one step: what a tidy plan is made from. No file: the digest of an empty text.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { createHash } from "node:crypto";
   * import { FileMemoryStore } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const store = new FileMemoryStore({ rootDir: dir });
   * await store.commit({ notes: [{ text: "hello" }] });
   * const { sha256, notes } = await store.snapshot();
   * const bytes = await Deno.readFile(store.paths.notes);
   * assert.equal(sha256, createHash("sha256").update(bytes).digest("hex"));
   * assert.equal(notes.length, 1);
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  snapshot(): Promise<{ sha256: string; notes: Note[] }> {
    return this.#exclusive(async () => {
      await this.#file.refresh(false);
      return { sha256: this.#sha256(), notes: [...this.#file.table.order()] };
    });
  }

  /** The SHA-256 of the file's text as loaded (the sections joined give the file back). */
  #sha256(): string {
    const hash = createHash("sha256");
    for (const section of this.#file.table.sections) hash.update(section.raw);
    return hash.digest("hex");
  }

  /** Changes since `token`; when nothing changed on disk this costs one `stat`. */
  changesSince(token?: string): Promise<StoreChanges> {
    // With nothing queued, the check runs now, as the queue would run it next: a recall's check of
    // an unchanged file is a stat, with no queue step and no await.
    if (this.#idle) {
      let now: StoreChanges | undefined;
      try {
        now = this.#file.changesIfCurrent(token);
      } catch {
        now = undefined; // a stat that fails: the queued path fails the same way, as a rejection
      }
      if (now !== undefined) return Promise.resolve(now);
    }
    return this.#exclusive(async () => {
      await this.#file.refresh(false);
      return this.#file.table.changes(token);
    });
  }

  /** Waits for pending operations and drops the in-memory copy (the next call reloads). */
  close(): Promise<void> {
    return this.#exclusive(() => Promise.resolve(this.#file.reset()));
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    const settled: Promise<unknown> = run.then(
      () => this.#settle(settled),
      () => this.#settle(settled),
    );
    this.#queue = settled;
    this.#idle = false;
    return run;
  }

  /** The queue is idle once its last operation (`last`) has settled. */
  #settle(last: Promise<unknown>): void {
    if (this.#queue === last) this.#idle = true;
  }

  #settings(create: boolean, signal?: AbortSignal): LockSettings {
    return { ...this.#lock, create, signal };
  }

  async #acquire(create: boolean, signal?: AbortSignal): Promise<HeldLock> {
    const lock = await acquireLock(this.#settings(create, signal));
    this.#report(lock.issues);
    return lock;
  }

  /** Keeps recovery events for the next `load()` report (the latest 100). */
  #report(issues: StoreIssue[]): void {
    this.#events.push(...issues);
    if (this.#events.length > 100) this.#events.splice(0, this.#events.length - 100);
  }
}
