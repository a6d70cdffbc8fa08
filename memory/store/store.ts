/**
 * The `MemoryStore` contract: where notes are kept. `FileMemoryStore` (the
 * default) keeps them in `.memo/memory/notes.md`; other stores (PostgreSQL in
 * the cloud reference server) implement the same interface.
 *
 * @module
 */

import type { Note, NoteDraft, NotePatch } from "../notes/note.ts";
import type { UnresolvedMerge } from "./conflict_markers.ts";

/**
 * A problem found while reading the store, reported rather than fatal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseNotes, type StoreIssue } from "@memo/memory";
 * const { issues } = parseNotes("# Memory\n\n<!-- memo:note {broken -->\n## Bad\nx\n\n");
 * const issue: StoreIssue = issues[0];
 * assert.equal(issue.kind, "damaged-note");
 * assert.equal(issue.line, 3);
 * ```
 */
export interface StoreIssue {
  /** What kind of problem. */
  kind: "damaged-note" | "duplicate-id" | "torn-tail" | "stale-lock";
  /** One-line description ("Cannot parse marker: …"). */
  message: string;
  /** 1-based line in the notes file, when known. */
  line?: number;
}

/**
 * What {@linkcode MemoryStore.load} reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type StoreLoadReport } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * await new FileMemoryStore({ rootDir: dir }).commit({ notes: [{ text: "hello" }] });
 * const report: StoreLoadReport = await new FileMemoryStore({ rootDir: dir }).load();
 * assert.deepEqual(report, { notes: 1, issues: [] });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface StoreLoadReport {
  /** Number of notes held after loading. */
  notes: number;
  /** Problems found; the notes around them are still loaded. */
  issues: StoreIssue[];
}

/**
 * A batch of drafts committed all-or-nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommitBatch, FileMemoryStore, MemoryValidationError } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * const batch: CommitBatch = { notes: [{ text: "one" }, { text: "two", labels: ["x"] }] };
 * assert.equal((await store.commit(batch)).written.length, 2);
 * // One bad draft refuses the whole batch: nothing of it is stored.
 * const bad: CommitBatch = { notes: [{ text: "three" }, { text: " " }] };
 * await assert.rejects(store.commit(bad), MemoryValidationError);
 * assert.equal((await store.list()).notes.length, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface CommitBatch {
  /** Drafts to store. Dedupe is by identity (source key, else content hash). */
  notes: readonly NoteDraft[];
}

/**
 * What a store's write takes besides its data.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { WriteOptions } from "@memo/memory";
 * const stop = new AbortController();
 * const options: WriteOptions = { signal: stop.signal };
 * assert.equal(options.signal?.aborted, false);
 * ```
 */
export interface WriteOptions {
  /**
   * Stops a write that has not started writing: one still waiting for the lock, or not yet begun.
   * A write that has begun finishes (a file is never left half written).
   * @default undefined
   */
  signal?: AbortSignal;
}

/**
 * Options of {@linkcode MemoryStore.commit}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommitOptions, FileMemoryStore, type Note } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * const seen: Note[][] = [];
 * const options: CommitOptions = { whileDurable: (notes) => seen.push([...notes]) };
 * const { written } = await store.commit({ notes: [{ text: "one" }] }, options);
 * assert.deepEqual(seen, [written]); // called once, with the notes being appended
 * await store.commit({ notes: [{ text: "one" }] }, options); // nothing new: not called
 * assert.equal(seen.length, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface CommitOptions extends WriteOptions {
  /**
   * Called at most once, synchronously, while a commit that only adds notes waits for them to
   * become durable (the file store's fsync), with those notes: work on the CPU that can run
   * meanwhile (`Memo.remember`'s similarity check). The notes are not stored yet and may still
   * fail to be; what it throws is ignored. A store that cannot overlap anything never calls it.
   * @default none
   */
  whileDurable?: (notes: readonly Note[]) => void;
}

/**
 * What happened to each draft of a batch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CommitResult, FileMemoryStore } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * const source = "github:acme/app/discussions/42";
 * const first: CommitResult = await store.commit({ notes: [{ text: "v1", source }] });
 * const second = await store.commit({ notes: [{ text: "v2", source }, { text: "other" }] });
 * assert.equal(first.written.length, 1);
 * assert.equal(second.updated[0].id, first.written[0].id); // same source key: updated in place
 * assert.equal(second.written.length, 1);
 * assert.ok(second.bytesWritten > 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface CommitResult {
  /** Notes that did not exist and were added. */
  written: Note[];
  /** Notes whose identity existed with another hash, changed in place. */
  updated: Note[];
  /** Drafts whose identity existed with the same hash (nothing written). */
  unchanged: Note[];
  /** Bytes written to durable storage by this commit (0 when nothing changed). */
  bytesWritten: number;
}

/**
 * One page of notes, in store order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type NotePage } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.commit({ notes: [{ text: "one" }, { text: "two" }, { text: "three" }] });
 * const first: NotePage = await store.list(undefined, 2);
 * assert.deepEqual(first.notes.map((n) => n.body), ["one", "two"]);
 * const last = await store.list(first.nextCursor, 2);
 * assert.deepEqual(last.notes.map((n) => n.body), ["three"]);
 * assert.equal(last.nextCursor, undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface NotePage {
  /** Notes of this page. */
  notes: Note[];
  /** Opaque cursor of the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * Changes since a token, for keeping an index in step with the store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type StoreChanges } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.commit({ notes: [{ text: "one" }] });
 * const all: StoreChanges = await store.changesSince(); // no token: everything
 * assert.equal(all.reset, true);
 * assert.equal(all.upserted.length, 1);
 * await store.commit({ notes: [{ text: "two" }] });
 * const next = await store.changesSince(all.token);
 * assert.equal(next.reset, false);
 * assert.deepEqual(next.upserted.map((n) => n.body), ["two"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface StoreChanges {
  /** Token to pass next time. */
  token: string;
  /** When true, `upserted` holds every note and earlier state must be dropped. */
  reset: boolean;
  /** Notes added or changed since the token. */
  upserted: Note[];
  /** Ids removed since the token. */
  removed: string[];
}

/**
 * Notes to write verbatim (ids, hashes and times kept) and ids to remove, in
 * one atomic step: what a replica applies when it follows another copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type ReplicaChanges } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * const { written: [old] } = await store.commit({ notes: [{ text: "old id" }] });
 * // The same note under the id another copy gave it: one rewrite, no moment with both or neither.
 * const changes: ReplicaChanges = { put: [{ ...old, id: "01canonical" }], remove: [old.id] };
 * const result = await store.applyReplica(changes);
 * assert.deepEqual(result.written, ["01canonical"]);
 * assert.deepEqual(result.removed, [old.id]);
 * assert.deepEqual((await store.list()).notes.map((n) => n.id), ["01canonical"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ReplicaChanges {
  /** Notes to store as given: a note whose id is stored replaces it, another is added. */
  put: readonly Note[];
  /** Ids to remove (unknown ones are ignored). */
  remove: readonly string[];
  /**
   * The hash each of these ids must have now (null: no such note). When one
   * differs (another writer got there first) nothing is written and the
   * result's `stale` names it, so the caller can look again.
   */
  expect?: Readonly<Record<string, string | null>>;
  /**
   * The SHA-256 (hex) the store's notes file must have (of its text in UTF-8), checked under the
   * lock (stores kept in one file; see `FileMemoryStore.snapshot`). When it differs nothing is
   * written and `MemoryValidationError` is thrown: what applying a tidy plan made from an older
   * file needs.
   */
  expectSha256?: string;
  /**
   * The scope the changes go to, for a store that serves scopes (`ScopedMemoryStore`): the hybrid
   * runtime gives `project`. Without it, each note goes to the scope that holds its id.
   * @default the scope holding each id, else the project
   */
  scope?: "user" | "project" | "local";
}

/**
 * What {@linkcode MemoryStore.applyReplica} did, by id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type ReplicaApplyResult } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * const { written: [note] } = await store.commit({ notes: [{ text: "kept" }] });
 * const result: ReplicaApplyResult = await store.applyReplica({ put: [note], remove: ["nope"] });
 * assert.deepEqual(result, { written: [], updated: [], removed: [], bytesWritten: 0 });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface ReplicaApplyResult {
  /** Ids added. */
  written: string[];
  /** Ids whose stored note was replaced by a different one. */
  updated: string[];
  /** Ids removed. */
  removed: string[];
  /** Bytes written (0 when nothing changed). */
  bytesWritten: number;
  /** Ids whose `expect` did not hold; present only then (and then nothing was written). */
  stale?: string[];
}

/**
 * Where notes are kept. Every method sees writes made by other processes
 * (implementations reload as needed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type MemoryStore } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store: MemoryStore = new FileMemoryStore({ rootDir: dir });
 * await store.load();
 * const result = await store.commit({ notes: [{ text: "hello" }] });
 * assert.equal(result.written.length, 1);
 * assert.equal((await store.get(result.written[0].id))?.body, "hello");
 * await store.close?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface MemoryStore {
  /** Reads the store (creating nothing) and reports problems found. */
  load(): Promise<StoreLoadReport>;
  /** Stores a batch all-or-nothing, deduplicating by identity. */
  commit(batch: CommitBatch, options?: CommitOptions): Promise<CommitResult>;
  /**
   * Changes a note; `undefined` when the id is unknown. `signal` stops a change that has not
   * started writing (waiting for another writer's lock, say); one that has, finishes.
   */
  update(id: string, patch: NotePatch, options?: WriteOptions): Promise<Note | undefined>;
  /** Removes a note; false when the id is unknown. `signal` as for `update`. */
  remove(id: string, options?: WriteOptions): Promise<boolean>;
  /** One note by id. */
  get(id: string): Promise<Note | undefined>;
  /** Notes in store order, a page at a time. Throws `MemoryValidationError` on a bad cursor. */
  list(cursor?: string, limit?: number): Promise<NotePage>;
  /** Changes since `token` (everything, with `reset`, when the token is missing or stale). */
  changesSince(token?: string): Promise<StoreChanges>;
  /**
   * Writes notes verbatim and removes ids in one atomic step (replicas; see
   * {@linkcode ReplicaChanges}). Optional: the hybrid runtime needs it.
   */
  applyReplica?(changes: ReplicaChanges): Promise<ReplicaApplyResult>;
  /** Releases resources (file handles, timers). */
  close?(): Promise<void>;
  /** Problems known now (damaged sections, recoveries), when the store keeps track of them. */
  readonly issues?: StoreIssue[];
  /**
   * Set while the store's file holds an unresolved git merge (the file store's
   * conflict markers): reads return the merge and writes are refused.
   */
  readonly unresolvedMerge?: UnresolvedMerge;
}
