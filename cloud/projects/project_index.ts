/**
 * {@linkcode ProjectIndex}, what an instance of the PostgreSQL store holds of one project to answer
 * recall, list and stats: memo's lexical index and, per note, the fields besides its text (with the
 * derived `supersededBy` links). A hit or a page is read from the database by revision; a changed
 * or deleted note leaves the index with the text it was indexed with, read from the change feed. It
 * ranks, filters (memo's `historyFilter` included), pages and counts exactly as a `Memo` over the
 * same notes. Its snapshot file is in `index_snapshot.ts`.
 *
 * @module
 */

import {
  type Bm25LexicalIndex,
  checkHistoryFilter,
  countNotes,
  createLexicalIndex,
  decodeCursor,
  type HistoryFilter,
  historyFilter,
  lexicalSimilarNotes,
  ListOrder,
  MAX_MEMO_LIMIT,
  MemoryValidationError,
  normalizeLabels,
  type Note,
  noteFilter,
  type ScoreContribution,
  type SimilarNote,
  SupersedeLinks,
} from "@memo/memory";
import type { CloudNote } from "../store.ts";
import { decodeIndexSnapshot, encodeIndexSnapshot, type SnapshotRow } from "./index_snapshot.ts";

/**
 * A note as the index reads it: a {@linkcode CloudNote} with its place in store order (`ord`: the
 * change number that created it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IndexableNote } from "./project_index.ts";
 *
 * const note: IndexableNote = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h", revision: 4, ord: 2,
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * assert.ok(note.ord <= note.revision);
 * ```
 */
export interface IndexableNote extends CloudNote {
  /** Place in store order: the change number that created the note. */
  ord: number;
}

/**
 * One ranked note: its id and the revision the index holds (read the note at that revision to
 * answer with what was ranked).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IndexHit } from "./project_index.ts";
 *
 * const hit: IndexHit = { id: "n1", revision: 3, score: 1.5, matched: ["deploy"] };
 * assert.equal(hit.revision, 3);
 * ```
 */
export interface IndexHit {
  /** Note id. */
  id: string;
  /** The revision the index holds. */
  revision: number;
  /** BM25F score. */
  score: number;
  /** Query words found. */
  matched: string[];
  /** Per-term contributions, with `explain`. */
  explain?: ScoreContribution[];
}

/** What the index keeps of a note: the index's stand-in, without the text. */
interface Row extends Note {
  revision: number;
  ord: number;
}

/**
 * The text a note was indexed with, to take it out of the index.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { IndexedText } from "./project_index.ts";
 *
 * const text: IndexedText = { title: "t", body: "b", labels: [] };
 * assert.equal(text.body, "b");
 * ```
 */
export type IndexedText = Pick<Note, "title" | "body" | "labels">;

/** Recall answers kept per project (emptied whenever its notes change). */
const ANSWER_CACHE = 256;

const NO_TEXT = "";

function rowOf(note: SnapshotRow): Row {
  const row: Row = {
    id: note.id,
    title: NO_TEXT,
    body: NO_TEXT,
    labels: note.labels,
    hash: NO_TEXT,
    created: note.created,
    updated: note.updated,
    revision: note.revision,
    ord: note.ord,
  };
  return withHistory(row, note);
}

/** The row with the note's source, `supersedes` and validity, when it has them. */
function withHistory(row: Row, note: SnapshotRow): Row {
  if (note.source !== undefined) row.source = note.source;
  if (note.supersedes?.length) row.supersedes = note.supersedes;
  if (note.validFrom !== undefined) row.validFrom = note.validFrom;
  if (note.validUntil !== undefined) row.validUntil = note.validUntil;
  return row;
}

/** What a row costs beside the index, in bytes (an estimate: object, strings, labels). */
function rowBytes(row: Row): number {
  let chars = row.id.length + row.created.length + row.updated.length +
    (row.source?.length ?? 0) + (row.validFrom?.length ?? 0) + (row.validUntil?.length ?? 0);
  for (const label of row.labels) chars += label.length + 8;
  for (const id of row.supersedes ?? []) chars += id.length + 8;
  return 160 + 2 * chars;
}

function checkLimit(limit: number, action: string): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_MEMO_LIMIT) {
    throw new MemoryValidationError(
      `Cannot ${action}: limit must be an integer from 1 to ${MAX_MEMO_LIMIT}`,
    );
  }
  return limit;
}

/** Both filters (either may be absent). */
function both(
  a: ((row: Row) => boolean) | undefined,
  b: ((row: Row) => boolean) | undefined,
): ((row: Row) => boolean) | undefined {
  return a && b ? (row) => a(row) && b(row) : a ?? b;
}

/**
 * One project's recall index and note table without text; see the module doc.
 *
 * @example Build, search, change a note, page and count
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProjectIndex } from "./project_index.ts";
 *
 * const at = "2026-01-01T00:00:00.000Z";
 * const note = (id: string, body: string, revision: number, labels: string[] = []) => ({
 *   id, title: body, body, labels, hash: "h", created: at, updated: at, revision, ord: revision,
 * });
 * const index = new ProjectIndex();
 * index.add([note("a", "Deploys run with make deploy", 1, ["ops"]), note("b", "Lunch at noon", 2)]);
 * index.finish(2);
 * assert.equal(index.search("deploy", { limit: 5 })[0].id, "a");
 * // Note b changes at revision 3: the index is given the text b was indexed with.
 * const changed = { ...note("b", "Deploy freeze on Fridays", 3), ord: 2 };
 * assert.deepEqual(index.needed([changed], []), [2]);
 * index.apply([changed], [], new Map([[2, { title: "Lunch at noon", body: "Lunch at noon", labels: [] }]]), 3);
 * assert.deepEqual(index.search("deploy", { limit: 5 }).map((h) => h.id).sort(), ["a", "b"]);
 * assert.deepEqual(index.list({ limit: 1, labels: ["ops"] }).items, [{ id: "a", revision: 1 }]);
 * assert.equal(index.stats().labels.ops, 1);
 * ```
 */
export class ProjectIndex {
  /** The change sequence the index covers (every change with `seq` up to it). */
  seq = 0;
  readonly #index: Bm25LexicalIndex;
  /** Rows in store order (`ord`). */
  #rows = new Map<string, Row>();
  #rowBytes = 0;
  readonly #order = new ListOrder();
  #answers = new Map<string, IndexHit[]>();
  /** The derived side of the held notes' `supersedes`. */
  readonly #links = new SupersedeLinks();

  /** An empty index (fill it with {@linkcode ProjectIndex.add}, then {@linkcode ProjectIndex.finish}). */
  constructor(index: Bm25LexicalIndex = createLexicalIndex()) {
    this.#index = index;
  }

  /** Notes held. */
  get size(): number {
    return this.#rows.size;
  }

  /** Adds new notes, in store order (a build, page by page); their ids must not be held. */
  add(notes: readonly IndexableNote[]): void {
    for (const note of notes) this.#add(note);
    this.#changed();
  }

  /** Ends a build: merges the index (so that the first search does not) and records `seq`. */
  finish(seq: number): void {
    this.#index.flush();
    this.seq = seq;
  }

  /**
   * The revisions whose text {@linkcode ProjectIndex.apply} needs for these changes: those of the
   * held notes that change or go.
   */
  needed(upserted: readonly IndexableNote[], removed: readonly string[]): number[] {
    const out = new Set<number>();
    for (const id of removed) {
      const row = this.#rows.get(id);
      if (row) out.add(row.revision);
    }
    for (const note of upserted) {
      const row = this.#rows.get(note.id);
      if (row && row.revision !== note.revision) out.add(row.revision);
    }
    return [...out];
  }

  /**
   * Applies the changes up to `seq`: deleted ids, then new or changed notes (in store order), with
   * `texts` holding the indexed text of each revision {@linkcode ProjectIndex.needed} named.
   * Returns false, changing nothing, when a text is missing (the caller then rebuilds).
   */
  apply(
    upserted: readonly IndexableNote[],
    removed: readonly string[],
    texts: ReadonlyMap<number, IndexedText>,
    seq: number,
  ): boolean {
    if (this.needed(upserted, removed).some((revision) => !texts.has(revision))) return false;
    let changed = false;
    for (const id of removed) {
      const row = this.#rows.get(id);
      if (!row) continue;
      this.#drop(row, texts.get(row.revision)!);
      changed = true;
    }
    for (const note of upserted) {
      const row = this.#rows.get(note.id);
      if (row?.revision === note.revision && row.ord === note.ord) continue;
      if (row) this.#drop(row, texts.get(row.revision)!, row.ord === note.ord);
      this.#add(note);
      changed = true;
    }
    this.seq = seq;
    if (changed) this.#changed();
    return true;
  }

  /** Memo's lexical ranking over the held notes, filtered by labels and source. */
  search(
    query: string,
    options: {
      limit: number;
      labels?: readonly string[];
      source?: string;
      explain?: boolean;
    } & HistoryFilter,
  ): IndexHit[] {
    if (typeof query !== "string" || query.trim() === "") {
      throw new MemoryValidationError("Cannot recall: query is empty");
    }
    const limit = checkLimit(options.limit, "recall");
    const history = checkHistoryFilter(options, "recall");
    const explain = options.explain === true;
    const key = JSON.stringify([
      query,
      limit,
      options.labels ? normalizeLabels(options.labels) : [],
      options.source?.trim() ?? "",
      explain,
      history,
    ]);
    const known = this.#answers.get(key);
    if (known) return known.slice();
    const filter = both(noteFilter(options), this.#historyFilter(history));
    const rows = this.#rows;
    const byId = filter && ((id: string) => filter(rows.get(id)!));
    const hits: IndexHit[] = [];
    for (const hit of this.#index.search(query, { limit, filter: byId, explain })) {
      const row = rows.get(hit.id);
      if (!row) continue;
      const out: IndexHit = {
        id: hit.id,
        revision: row.revision,
        score: hit.score,
        matched: hit.matched,
      };
      if (explain && hit.explain) out.explain = hit.explain;
      hits.push(out);
    }
    if (this.#answers.size >= ANSWER_CACHE) {
      this.#answers.delete(this.#answers.keys().next().value!);
    }
    this.#answers.set(key, hits);
    return hits.slice();
  }

  /**
   * A page of notes in store order (or newest first), as `Memo.list` pages: the ids and revisions
   * of the page, the total that match and the cursor of the next page.
   */
  list(
    options: {
      cursor?: string;
      limit?: number;
      labels?: readonly string[];
      source?: string;
      order?: "oldest" | "newest";
    } & HistoryFilter,
  ): { items: { id: string; revision: number }[]; total: number; nextCursor?: string } {
    const limit = checkLimit(options.limit ?? 25, "list notes");
    if (
      options.order !== undefined && options.order !== "oldest" && options.order !== "newest"
    ) {
      throw new MemoryValidationError('Cannot list notes: order must be "oldest" or "newest"');
    }
    const newest = options.order === "newest";
    const cursor = options.cursor === undefined
      ? undefined
      : decodeCursor(options.cursor, "list notes");
    const history = checkHistoryFilter(options, "list notes");
    const { items, total, nextCursor } = this.#order.page(this.#rows, limit, {
      newest,
      cursor,
      filter: both(noteFilter(options), this.#historyFilter(history)),
    });
    const page: { items: { id: string; revision: number }[]; total: number; nextCursor?: string } =
      { items: items.map((row) => ({ id: row.id, revision: row.revision })), total };
    if (nextCursor) page.nextCursor = nextCursor;
    return page;
  }

  /** Ids of the held notes that supersede note `id` (undefined when none). */
  supersededBy(id: string): readonly string[] | undefined {
    return this.#links.of(id);
  }

  /** `note` with its derived `supersededBy` when a held note supersedes it. */
  withLinks<N extends Note>(note: N): N {
    const by = this.#links.of(note.id);
    return by ? { ...note, supersededBy: [...by] } : note;
  }

  /**
   * The `similar` answer of `Memo.remember` for `note` (lexical), over the held notes: the
   * candidates are ranked from the index, and `read` gives the whole notes of the few it asks for
   * (by id, at the revision held).
   */
  async similar(
    note: Note,
    read: (items: { id: string; revision: number }[]) => Promise<Map<string, Note>>,
  ): Promise<SimilarNote[]> {
    const supersededBy = (id: string) => this.#links.of(id);
    const held = this.#rows.has(note.id);
    // First pass: which candidates the comparison needs (none is compared without its text).
    const asked = new Set<string>();
    const ask = (id: string) => {
      asked.add(id);
      return undefined;
    };
    await lexicalSimilarNotes(
      { notes: { get: ask, supersededBy }, index: this.#index, held },
      note,
    );
    const items = [...asked].flatMap((id) => {
      const row = this.#rows.get(id);
      return row ? [{ id, revision: row.revision }] : [];
    });
    if (!items.length) return [];
    const notes = await read(items);
    return await lexicalSimilarNotes({
      notes: { get: (id) => notes.get(id), supersededBy },
      index: this.#index,
      held,
    }, note);
  }

  /** Counts of notes, labels and sources, and the newest `updated`, as `Memo.stats` counts. */
  stats(): {
    notes: number;
    labels: Record<string, number>;
    sources: Record<string, number>;
    lastUpdated?: string;
  } {
    return countNotes(this.#rows.values());
  }

  /**
   * An estimate of the bytes held: the index, the rows, the order, the `supersededBy` links and the
   * cached answers.
   */
  byteLength(): number {
    let answers = 0;
    for (const hits of this.#answers.values()) answers += 200 + 120 * hits.length;
    return this.#index.byteLength() + this.#rowBytes + 16 * this.#order.size +
      120 * this.#links.size + answers;
  }

  /**
   * The snapshot file of the index (`index_snapshot.ts`) under `key`, or undefined for an empty
   * project. Compacts the index first (scores do not change).
   */
  exportSnapshot(key: string): Uint8Array | undefined {
    if (this.#rows.size === 0) return undefined;
    this.#index.compact();
    // Without the token hash table: a third fewer bytes to read from PostgreSQL at a cold start.
    const lexical = this.#index.exportSnapshot({ tokenTable: false });
    if (!lexical) return undefined;
    const rows: Row[] = [];
    for (let doc = 0; doc < this.#index.docCount; doc++) {
      rows.push(this.#rows.get(this.#index.idOf(doc)!)!);
    }
    return encodeIndexSnapshot(key, lexical, rows, this.seq);
  }

  /**
   * The index of a snapshot file taken under `key`, or undefined when the bytes are damaged, of
   * another key or format, or do not fit.
   */
  static importSnapshot(bytes: Uint8Array, key: string): ProjectIndex | undefined {
    const decoded = decodeIndexSnapshot(bytes, key);
    if (!decoded) return undefined;
    try {
      // The decoded rows are in a row's shape already (see `decodeIndexSnapshot`).
      const rows = decoded.rows as Row[];
      const out = new ProjectIndex();
      if (!out.#index.importSnapshot(decoded.lexical, rows)) return undefined;
      let ordered = true;
      for (let i = 1; i < rows.length && ordered; i++) ordered = rows[i - 1].ord < rows[i].ord;
      for (const row of ordered ? rows : [...rows].sort((x, y) => x.ord - y.ord)) {
        out.#rows.set(row.id, row);
        out.#rowBytes += rowBytes(row);
        out.#links.upsert(row, undefined);
      }
      out.seq = decoded.seq;
      return out;
    } catch {
      return undefined;
    }
  }

  #add(note: IndexableNote): void {
    const row = rowOf(note);
    this.#index.add(note, row);
    this.#rows.set(row.id, row);
    this.#rowBytes += rowBytes(row);
    this.#links.upsert(row, undefined);
  }

  /** Takes a row out of the index; `keepPlace` leaves its place in store order to its successor. */
  #drop(row: Row, text: IndexedText, keepPlace = false): void {
    this.#index.remove(row.id, text);
    if (!keepPlace) this.#rows.delete(row.id);
    this.#rowBytes -= rowBytes(row);
    this.#links.remove(row);
  }

  /** Memo's history filter over the held rows (see `historyFilter`). */
  #historyFilter(history: ReturnType<typeof checkHistoryFilter>) {
    const rows = this.#rows;
    const links = this.#links;
    return historyFilter(history, {
      get: (id) => rows.get(id),
      supersededBy: (id) => links.of(id),
      anySuperseded: links.size > 0,
    });
  }

  #changed(): void {
    this.#order.reset();
    this.#answers.clear();
  }
}
