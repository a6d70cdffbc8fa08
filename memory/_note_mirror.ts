/**
 * Internal: a `Memo` client's copy of its store's notes (by id, in store order), and the catch-up
 * with the store that keeps it, the lexical index, the embedding side, the answer cache and the
 * change feed in step. One catch-up runs at a time; callers arriving while one waits to start
 * share it.
 *
 * @module
 */

import type { Note } from "./notes/note.ts";
import type { MemoryStore } from "./store/store.ts";
import type { LexicalIndex } from "./recall/types.ts";
import type { MemoEmbeddings } from "./vectors/seam.ts";
import { type ChangeFeed, ChangeTally } from "./_change_feed.ts";
import { type CursorState, ListOrder } from "./notes/cursor.ts";
import type { ListResult } from "./memo_types.ts";
import { type HistoryLookup, SupersedeLinks } from "./history/history.ts";
import { countNotes } from "./notes/counts.ts";

/**
 * What a {@linkcode NoteMirror} keeps in step with the store's notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "./store/file_store.ts";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { ChangeFeed } from "./_change_feed.ts";
 * import type { NoteMirrorParts } from "./_note_mirror.ts";
 * const parts: NoteMirrorParts = {
 *   store: new FileMemoryStore({ rootDir: "." }),
 *   index: createLexicalIndex(),
 *   embeddings: { upsert() {}, remove() {}, clear() {} },
 *   feed: new ChangeFeed(() => Promise.resolve(), 250),
 *   answers: { clear() {} },
 * };
 * assert.equal(parts.feed.active, false);
 * ```
 */
export interface NoteMirrorParts {
  store: MemoryStore;
  /** The lexical index: every note added, removed or cleared with the mirror. */
  index: LexicalIndex;
  /** The embedding side: told of every note change. */
  embeddings: Pick<MemoEmbeddings, "upsert" | "remove" | "clear">;
  /** Hears what changed (worked out only while it has listeners). */
  feed: ChangeFeed;
  /** Emptied whenever the notes change. */
  answers: { clear(): void };
  /** Answers name every note's scope, the project's too (a store that serves scopes). */
  tagScopes?: boolean;
}

/**
 * The notes of a store as of the last catch-up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "./store/file_store.ts";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { ChangeFeed } from "./_change_feed.ts";
 * import { NoteMirror } from "./_note_mirror.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.load();
 * await store.commit({ notes: [{ text: "one" }, { text: "two" }, { text: "three" }] });
 * const index = createLexicalIndex();
 * const mirror: NoteMirror = new NoteMirror({
 *   store,
 *   index,
 *   embeddings: { upsert() {}, remove() {}, clear() {} },
 *   feed: new ChangeFeed(() => mirror.sync(), 250),
 *   answers: { clear() {} },
 * });
 * await mirror.sync();
 * assert.equal(mirror.notes.size, 3);
 * assert.equal(index.search("two", { limit: 1 }).length, 1);
 * const page = mirror.page(2, true, undefined, undefined);
 * assert.deepEqual(page.notes.map((n) => n.body), ["three", "two"]);
 * assert.equal(page.total, 3);
 * assert.ok(page.nextCursor);
 * assert.deepEqual(mirror.counts().sources, { none: 3 });
 * await store.close?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class NoteMirror implements HistoryLookup {
  readonly #parts: NoteMirrorParts;
  #notes = new Map<string, Note>();
  #links = new SupersedeLinks();
  readonly #order = new ListOrder();
  #token: string | undefined;
  #syncing: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #changes = 0;

  /** A mirror that holds nothing until its first {@linkcode NoteMirror.sync}. */
  constructor(parts: NoteMirrorParts) {
    this.#parts = parts;
  }

  /** The notes by id, in store order (as stored: without `supersededBy`). */
  get notes(): ReadonlyMap<string, Note> {
    return this.#notes;
  }

  get(id: string): Note | undefined {
    return this.#notes.get(id);
  }

  /** Ids of the held notes that supersede `id`, undefined when none. */
  supersededBy(id: string): readonly string[] | undefined {
    return this.#links.of(id);
  }

  /** Changes whenever a `supersedes` link among the held notes is added or removed. */
  get linksVersion(): number {
    return this.#links.version;
  }

  /**
   * How many changes the mirror has taken in (a note added, changed or removed counts one; a
   * reset counts one more): the same number means the same notes.
   */
  get changes(): number {
    return this.#changes;
  }

  /** Whether any held note supersedes another. */
  get anySuperseded(): boolean {
    return this.#links.size > 0;
  }

  /** The note with its derived `supersededBy` (the note itself when nothing supersedes it). */
  withLinks(note: Note): Note {
    const by = this.#links.of(note.id);
    if (this.#parts.tagScopes && note.scope === undefined) {
      return by
        ? { ...note, scope: "project", supersededBy: [...by] }
        : { ...note, scope: "project" };
    }
    return by ? { ...note, supersededBy: [...by] } : note;
  }

  /** Whether answers need {@linkcode NoteMirror.withLinks} (a link to add, or a scope). */
  get decorates(): boolean {
    return this.#parts.tagScopes === true || this.#links.size > 0;
  }

  /**
   * Brings the notes and the index up to the store. On a reset, `restore` may fill the index
   * with the first notes (in order) itself; it returns how many (0 when it did not), and the
   * rest are added as usual.
   */
  sync(restore?: (notes: readonly Note[]) => Promise<number>): Promise<void> {
    const { store, index, embeddings, feed, answers } = this.#parts;
    // One refresh at a time; callers arriving during a refresh wait for the next one.
    const run = async () => {
      const changes = await store.changesSince(this.#token);
      // What changed is worked out only while someone watches.
      const tally = feed.active ? new ChangeTally() : undefined;
      let before: Map<string, Note> | undefined;
      // On a reset (a rewrite by another process, a hand edit), the vectors of the notes whose text
      // did not change stay: only the notes gone lose theirs, after the upserts below.
      let held: string[] | undefined;
      if (changes.reset) {
        held = [...this.#notes.keys()];
        if (tally) {
          before = this.#notes;
          this.#notes = new Map();
        } else this.#notes.clear();
        this.#links.clear();
        index.clear();
      }
      for (const id of changes.removed) {
        // An id the client never held (added and removed since the last catch-up) is no news.
        if (tally && this.#notes.has(id)) tally.removed.push(id);
        const gone = this.#notes.get(id);
        if (gone) this.#links.remove(gone);
        this.#notes.delete(id);
        index.remove(id);
        embeddings.remove(id);
      }
      const restored = restore !== undefined && changes.reset && changes.removed.length === 0
        ? await restore(changes.upserted)
        : 0;
      const upserted = changes.upserted;
      for (let i = 0; i < upserted.length; i++) {
        const note = upserted[i];
        tally?.upserted(note, (before ?? this.#notes).get(note.id));
        this.#links.upsert(note, this.#notes.get(note.id));
        this.#notes.set(note.id, note);
        if (i >= restored) index.add(note);
        embeddings.upsert(note);
      }
      if (held) { for (const id of held) if (!this.#notes.has(id)) embeddings.remove(id); }
      if (before) {
        for (const id of before.keys()) if (!this.#notes.has(id)) tally!.removed.push(id);
      }
      if (changes.reset || changes.removed.length || changes.upserted.length) {
        this.#changes += (changes.reset ? 1 : 0) + changes.removed.length + upserted.length;
        this.#order.reset();
        answers.clear();
      }
      this.#token = changes.token;
      const change = tally?.change();
      if (change) feed.emit(change);
    };
    // Callers arriving while a refresh waits to start share it: it has not read the store yet,
    // so it sees everything they expect. A restoring refresh (load) is never shared.
    if (restore === undefined && this.#queued) return this.#queued;
    const start = () => {
      if (this.#queued === next) this.#queued = undefined;
      return run();
    };
    const next: Promise<void> = (this.#syncing ?? Promise.resolve()).then(start, start);
    if (restore === undefined) this.#queued = next;
    this.#syncing = next.catch(() => {});
    return next;
  }

  /**
   * A page of at most `limit` notes in store order (newest first when `newest`), after `cursor`,
   * of those `filter` keeps (all when undefined), as of the last catch-up.
   */
  page(
    limit: number,
    newest: boolean,
    cursor: CursorState | undefined,
    filter: ((note: Note) => boolean) | undefined,
  ): ListResult {
    const { items: notes, total, nextCursor } = this.#order.page(this.#notes, limit, {
      newest,
      cursor,
      filter,
    });
    const page: ListResult = { notes, total };
    if (nextCursor) page.nextCursor = nextCursor;
    return page;
  }

  /** Notes per label and per source kind (`github`, …, `none`), and the latest `updated`. */
  counts(): {
    labels: Record<string, number>;
    sources: Record<string, number>;
    lastUpdated?: string;
  } {
    const { labels, sources, lastUpdated } = countNotes(this.#notes.values());
    return { labels, sources, lastUpdated };
  }
}
