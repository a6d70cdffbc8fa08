/**
 * Internal: {@linkcode FileRevisionedStore}, one project of the file store: a `FileMemoryStore` on
 * `<dir>/notes.md` plus the change journal `<dir>/changes.jsonl` (see `_journal.ts`) that gives
 * every change its sequence number.
 *
 * - **One writer.** Every call of a store runs after the previous one has finished (in-process).
 *   Several processes on one folder are not supported: running several server instances needs the
 *   PostgreSQL store.
 * - **The journal follows `notes.md`.** Before every call the store catches up with `notes.md` and
 *   journals what differs from the journal's view (a note whose title, body, labels, source, times
 *   or marker hash changed is an upsert, a journaled note that is gone is a delete). Writes go the
 *   same way: `notes.md` first, then the journal. So a hand edit of `notes.md`, and a crash between
 *   the two writes, heal at the next call (and at every open).
 * - **The change feed** holds the latest entry of each id (an older change of the same note is
 *   superseded), tombstones included, in `seq` order.
 *
 * @module
 */

import { join } from "node:path";
import {
  type CommitBatch,
  type CommitResult,
  FileMemoryStore,
  MemoryValidationError,
  type Note,
  noteIdentity,
  type NotePage,
  type NotePatch,
  type ReplicaApplyResult,
  type ReplicaChanges,
  type StoreChanges,
  type StoreIssue,
  type StoreLoadReport,
} from "@memo/memory";
import {
  BATCH_DELETE_LIMIT,
  checkIfMatch,
  type CloudChange,
  type CloudDeleteResult,
  type CloudDeleteSelector,
  type CloudDraft,
  type CloudNote,
  type CloudWriteResult,
  type RevisionedStore,
} from "../store.ts";
import { noteBytes } from "../projects/budget.ts";
import {
  appendJournal,
  type JournalEntry,
  noteDigest,
  noteSignature,
  readJournal,
  rewriteJournal,
  upsertEntry,
} from "./_journal.ts";
import {
  answerDrafts,
  dedupeDrafts,
  prepareCloudDrafts,
  type PreparedCloudDraft,
} from "../projects/drafts.ts";

/**
 * Options of {@linkcode FileRevisionedStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { FileRevisionedStoreOptions } from "./_revisioned_store.ts";
 *
 * const options: FileRevisionedStoreOptions = { dir: "/data/team/default" };
 * assert.equal(options.dir, "/data/team/default");
 * ```
 */
export interface FileRevisionedStoreOptions {
  /** The project's folder: `notes.md`, its lock and `changes.jsonl` live there. */
  dir: string;
  /**
   * Source of the current time for `created`, `updated` and new ids.
   * @default () => new Date()
   */
  clock?: () => Date;
}

interface Latest {
  seq: number;
  /** The journaled signature of a live note; `undefined` for a tombstone. */
  signature?: string;
}

/** Compaction rewrites the journal once it holds this many superseded lines and more. */
const COMPACT_SLACK = 1024;

/**
 * A project of the file store: notes in `<dir>/notes.md`, revisions and the change feed in
 * `<dir>/changes.jsonl`. Nothing is created until the first write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileRevisionedStore } from "./_revisioned_store.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const store = new FileRevisionedStore({ dir });
 * const [{ note }] = await store.upsert([{ text: "Deploys run with make deploy" }]);
 * const updated = await store.updateIf(note.id, { labels: ["ops"] }, note.revision);
 * assert.ok(updated!.revision > note.revision);
 * const { changes } = await store.changes(0, 10);
 * assert.deepEqual(changes.map((c) => [c.op, c.revision]), [["upsert", updated!.revision]]);
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FileRevisionedStore implements RevisionedStore {
  /** The notes store beneath. */
  readonly notes: FileMemoryStore;
  /** The journal's path. */
  readonly journalPath: string;
  #open = false;
  #token: string | undefined;
  #latest = new Map<string, Latest>();
  /** Journal entries in seq order (superseded ones included until compaction). */
  #history: { seq: number; id: string }[] = [];
  #lastSeq = 0;
  #current = new Map<string, Note>();
  /** What the notes of `#current` take, estimated (see {@linkcode FileRevisionedStore.heldBytes}). */
  #held = 0;
  /** Revisions as of the latest `changesSince` answer. */
  #seen = new Map<string, number>();
  #queue: Promise<unknown> = Promise.resolve();

  /** Creates the store on `options.dir`; nothing is read until the first call. */
  constructor(options: FileRevisionedStoreOptions) {
    if (!options || typeof options.dir !== "string" || options.dir === "") {
      throw new MemoryValidationError("Cannot open project: dir must be a non-empty path");
    }
    this.notes = new FileMemoryStore({
      rootDir: options.dir,
      notesPath: join(options.dir, "notes.md"),
      clock: options.clock,
    });
    this.journalPath = join(options.dir, "changes.jsonl");
  }

  /**
   * An estimate of the memory the notes read from `notes.md` take (their text as UTF-16, plus a
   * fixed cost per note), kept as they change.
   */
  heldBytes(): number {
    return this.#held;
  }

  #setCurrent(note: Note): void {
    const before = this.#current.get(note.id);
    if (before) this.#held -= noteBytes(before);
    this.#current.set(note.id, note);
    this.#held += noteBytes(note);
  }

  #deleteCurrent(id: string): void {
    const before = this.#current.get(id);
    if (before) this.#held -= noteBytes(before);
    this.#current.delete(id);
  }

  /** Problems the notes store knows of. */
  get issues(): StoreIssue[] {
    return this.notes.issues;
  }

  /** Reads `notes.md` and the journal, and journals what differs. */
  load(): Promise<StoreLoadReport> {
    return this.#exclusive(async () => {
      const report = await this.notes.load();
      this.#open = false;
      await this.#ready();
      return report;
    });
  }

  /**
   * {@linkcode RevisionedStore.upsert}: one all-or-nothing commit, results in draft order. The
   * drafts of one identity are one draft (the last one's content, the first `id` given among them);
   * only the first of them carries the note's status, later ones answer `unchanged` with the same
   * note.
   */
  upsert(
    drafts: readonly CloudDraft[],
    options: { signal?: AbortSignal } = {},
  ): Promise<CloudWriteResult[]> {
    return this.#exclusive(async () => {
      await this.#ready();
      let result: CommitResult;
      let slotOf: number[];
      let unique: PreparedCloudDraft[];
      try {
        const prepared = prepareCloudDrafts(drafts);
        const deduped = dedupeDrafts(prepared);
        ({ slotOf, unique } = deduped);
        const merged = deduped.lastOf.map((index, slot) => {
          const { id: _, ...draft } = drafts[index];
          const id = unique[slot].id;
          return id === undefined ? draft : { ...draft, id };
        });
        result = await this.notes.commit({ notes: merged }, options);
      } catch (e) {
        // A batch of one is refused without an index; the API always names the draft.
        if (e instanceof MemoryValidationError && e.details?.index === undefined) {
          throw new MemoryValidationError(e.message, { cause: e, details: { index: 0 } });
        }
        throw e;
      }
      await this.#catchUp();
      const byIdentity = new Map<string, { status: CloudWriteResult["status"]; note: Note }>();
      for (const note of result.written) {
        byIdentity.set(noteIdentity(note), { status: "written", note });
      }
      for (const note of result.updated) {
        byIdentity.set(noteIdentity(note), { status: "updated", note });
      }
      for (const note of result.unchanged) {
        byIdentity.set(noteIdentity(note), { status: "unchanged", note });
      }
      const bySlot = unique.map((draft) => {
        const found = byIdentity.get(draft.identity)!;
        return { status: found.status, note: this.#revised(found.note) };
      });
      return answerDrafts(slotOf, bySlot);
    });
  }

  /** One note with its revision, read from `notes.md` now. */
  get(id: string): Promise<CloudNote | undefined> {
    return this.#exclusive(async () => {
      await this.#ready();
      const note = typeof id === "string" ? this.#current.get(id) : undefined;
      return note && this.#revised(note);
    });
  }

  /** {@linkcode RevisionedStore.updateIf}. */
  updateIf(id: string, patch: NotePatch, ifMatch?: number): Promise<CloudNote | undefined> {
    return this.#exclusive(async () => {
      const before = await this.#matching(id, ifMatch);
      if (!before) return undefined;
      if (
        !patch || typeof patch !== "object" ||
        (patch.text === undefined && patch.title === undefined && patch.labels === undefined &&
          patch.supersedes === undefined && patch.validFrom === undefined &&
          patch.validUntil === undefined)
      ) {
        throw new MemoryValidationError("Cannot update note: nothing to change");
      }
      const note = await this.notes.update(id, patch);
      await this.#catchUp();
      return note && this.#revised(note);
    });
  }

  /** {@linkcode RevisionedStore.removeIf}: the note as it was, with its last revision. */
  removeIf(id: string, ifMatch?: number): Promise<CloudNote | undefined> {
    return this.#exclusive(async () => {
      const before = await this.#matching(id, ifMatch);
      if (!before) return undefined;
      const removed = await this.notes.remove(id);
      await this.#catchUp();
      return removed ? before : undefined;
    });
  }

  /**
   * {@linkcode RevisionedStore.removeMany}: one atomic rewrite of `notes.md` without the notes,
   * then their tombstones in the journal. A prefix that matches more than `limit` notes deletes
   * nothing.
   */
  removeMany(
    selector: CloudDeleteSelector,
    limit: number = BATCH_DELETE_LIMIT,
  ): Promise<CloudDeleteResult> {
    return this.#exclusive(async () => {
      await this.#ready();
      let targets: Note[];
      let notFound: string[] = [];
      if ("ids" in selector) {
        const ids = [...new Set(selector.ids)];
        targets = ids.flatMap((id) => {
          const note = this.#current.get(id);
          return note ? [note] : [];
        });
        notFound = ids.filter((id) => !this.#current.has(id));
      } else {
        const prefix = selector.sourcePrefix;
        targets = [...this.#current.values()].filter((n) => n.source?.startsWith(prefix));
        if (targets.length > limit) {
          throw new MemoryValidationError(
            `Cannot delete the notes: ${targets.length} notes have a source starting with the ` +
              `prefix, more than the limit of ${limit}; delete them by id, ${limit} at a time`,
            { details: { limit, matched: targets.length } },
          );
        }
      }
      const deleted = targets.map((note) => this.#revised(note));
      if (!deleted.length) return { deleted, notFound };
      await this.notes.applyReplica({ put: [], remove: deleted.map((n) => n.id) });
      await this.#catchUp();
      return { deleted, notFound };
    });
  }

  /** {@linkcode RevisionedStore.changes}: the latest entry of each id with `seq > since`. */
  changes(since: number, limit: number): Promise<{ changes: CloudChange[]; hasMore: boolean }> {
    if (!Number.isSafeInteger(since) || since < 0 || !Number.isSafeInteger(limit) || limit < 1) {
      return Promise.reject(
        new MemoryValidationError(
          "Cannot read changes: since must be an integer of at least 0 and limit at least 1",
        ),
      );
    }
    return this.#exclusive(async () => {
      await this.#ready();
      const history = this.#history;
      let lo = 0, hi = history.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (history[mid].seq <= since) lo = mid + 1;
        else hi = mid;
      }
      const changes: CloudChange[] = [];
      for (let i = lo; i < history.length; i++) {
        const { seq, id } = history[i];
        const latest = this.#latest.get(id);
        if (latest?.seq !== seq) continue; // superseded
        const note = latest.signature === undefined ? undefined : this.#current.get(id);
        if (changes.length === limit) return { changes, hasMore: true };
        changes.push(
          note
            ? { seq, op: "upsert", id, revision: seq, note: { ...note, revision: seq } }
            : { seq, op: "delete", id, revision: seq },
        );
      }
      return { changes, hasMore: false };
    });
  }

  /** The latest sequence number (0 when nothing was ever written). */
  lastRevision(): Promise<number> {
    return this.#exclusive(async () => {
      await this.#ready();
      return this.#lastSeq;
    });
  }

  /** The revision of a note as of the latest `changesSince` answer. */
  revisionOf(id: string): number | undefined {
    return this.#seen.get(id);
  }

  /** Stores a batch (`MemoryStore`); journaled like {@linkcode FileRevisionedStore.upsert}. */
  commit(batch: CommitBatch, options?: { signal?: AbortSignal }): Promise<CommitResult> {
    return this.#exclusive(async () => {
      await this.#ready();
      const result = await this.notes.commit(batch, options);
      await this.#catchUp();
      return result;
    });
  }

  /**
   * Writes whole notes and removes ids in one atomic rewrite of `notes.md`
   * (`MemoryStore.applyReplica`, with its `expect` check under the file's lock), journaled like
   * every write: what a `Memo` client's corrections, supersede links and tidy merges write.
   */
  applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    return this.#exclusive(async () => {
      await this.#ready();
      const result = await this.notes.applyReplica(changes);
      await this.#catchUp();
      return result;
    });
  }

  /** Changes a note (`MemoryStore`). */
  update(id: string, patch: NotePatch): Promise<Note | undefined> {
    return this.updateIf(id, patch);
  }

  /** Removes a note (`MemoryStore`). */
  async remove(id: string): Promise<boolean> {
    return (await this.removeIf(id)) !== undefined;
  }

  /** Notes in file order (`MemoryStore`). */
  list(cursor?: string, limit?: number): Promise<NotePage> {
    return this.notes.list(cursor, limit);
  }

  /** Changes of `notes.md` since `token` (`MemoryStore`), journaled first. */
  changesSince(token?: string): Promise<StoreChanges> {
    return this.#exclusive(async () => {
      await this.#ready();
      const changes = await this.notes.changesSince(token);
      if (changes.reset) this.#seen = new Map();
      for (const id of changes.removed) this.#seen.delete(id);
      for (const note of changes.upserted) {
        const seq = this.#latest.get(note.id)?.seq;
        if (seq !== undefined) this.#seen.set(note.id, seq);
      }
      return changes;
    });
  }

  /** Waits for pending calls and drops the in-memory state (the next call reads again). */
  close(): Promise<void> {
    return this.#exclusive(async () => {
      await this.notes.close();
      this.#open = false;
      this.#token = undefined;
      this.#latest = new Map();
      this.#history = [];
      this.#current = new Map();
      this.#held = 0;
      this.#seen = new Map();
    });
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Note `id` with its revision, checked against `ifMatch`; `undefined` for an unknown id. */
  async #matching(id: string, ifMatch: number | undefined): Promise<CloudNote | undefined> {
    await this.#ready();
    const current = typeof id === "string" ? this.#current.get(id) : undefined;
    return current && checkIfMatch(this.#revised(current), ifMatch);
  }

  #revised(note: Note): CloudNote {
    return { ...note, revision: this.#latest.get(note.id)?.seq ?? 0 };
  }

  /** Reads the journal when not yet read, then catches up with `notes.md`. */
  async #ready(): Promise<void> {
    if (!this.#open) {
      const entries = await readJournal(this.journalPath);
      this.#latest = new Map();
      this.#history = [];
      this.#lastSeq = 0;
      for (const entry of entries) this.#apply(entry);
      this.#token = undefined;
      this.#current = new Map();
      this.#held = 0;
      this.#open = true;
    }
    try {
      await this.#catchUp();
    } catch (e) {
      this.#open = false;
      throw e;
    }
  }

  /** Journals what `notes.md` holds that the journal does not know of yet. */
  async #catchUp(): Promise<void> {
    const changes = await this.notes.changesSince(this.#token);
    const fresh: { note: Note; digest: string }[] = [];
    const gone: string[] = [];
    if (changes.reset) {
      const current = new Map<string, Note>();
      let held = 0;
      for (const note of changes.upserted) {
        current.set(note.id, note);
        held += noteBytes(note);
      }
      this.#current = current;
      this.#held = held;
      for (const [id, latest] of this.#latest) {
        if (latest.signature !== undefined && !current.has(id)) gone.push(id);
      }
    } else {
      for (const id of changes.removed) {
        this.#deleteCurrent(id);
        if (this.#latest.get(id)?.signature !== undefined) gone.push(id);
      }
      for (const note of changes.upserted) this.#setCurrent(note);
    }
    for (const note of changes.upserted) {
      const digest = noteDigest(note);
      const signature = noteSignature({ ...note, digest });
      if (this.#latest.get(note.id)?.signature !== signature) fresh.push({ note, digest });
    }
    if (fresh.length || gone.length) {
      let seq = this.#lastSeq;
      const entries: JournalEntry[] = [];
      for (const id of gone) entries.push({ seq: ++seq, op: "delete", id });
      for (const { note, digest } of fresh) entries.push(upsertEntry(++seq, note, digest));
      try {
        await appendJournal(this.journalPath, entries);
      } catch (e) {
        // What reached the file is unknown: read the journal again next time.
        this.#open = false;
        throw e;
      }
      for (const entry of entries) this.#apply(entry);
      if (this.#history.length > 2 * this.#latest.size + COMPACT_SLACK) await this.#compact();
    }
    this.#token = changes.token;
  }

  #apply(entry: JournalEntry): void {
    this.#latest.set(entry.id, {
      seq: entry.seq,
      signature: entry.op === "upsert" ? noteSignature(entry) : undefined,
    });
    this.#history.push({ seq: entry.seq, id: entry.id });
    this.#lastSeq = entry.seq;
  }

  /** Rewrites the journal with the latest entry of each id. */
  async #compact(): Promise<void> {
    const entries: JournalEntry[] = [];
    const history: { seq: number; id: string }[] = [];
    for (const { seq, id } of this.#history) {
      const latest = this.#latest.get(id)!;
      if (latest.seq !== seq) continue;
      const note = latest.signature === undefined ? undefined : this.#current.get(id);
      const digest = note && noteDigest(note);
      if (
        latest.signature !== undefined &&
        (!note || noteSignature({ ...note, digest: digest! }) !== latest.signature)
      ) {
        return; // not caught up: compact another time
      }
      entries.push(note ? upsertEntry(seq, note, digest!) : { seq, op: "delete", id });
      history.push({ seq, id });
    }
    await rewriteJournal(this.journalPath, entries);
    this.#history = history;
  }
}
