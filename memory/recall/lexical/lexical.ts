/**
 * The lexical recall engine: an in-memory BM25F index over the title, body and
 * labels of notes, updated one note at a time.
 *
 * Layout: terms are interned to integer ids ({@linkcode TermDictionary}); postings are (doc, packed
 * per-field tf) pairs in typed arrays ({@linkcode PostingStore}): a frozen part in
 * compressed-sparse-row form plus a log of recent additions, merged by a counting sort before a
 * search once the log is large. Document lengths and frequencies are typed arrays. Each note's term
 * sequence, with positions, is recorded as it is read ({@linkcode SequenceStore}), for the
 * proximity re-rank and feedback. Removing a note re-reads its text to take back its document
 * frequencies and leaves its postings behind until a merge drops them. Searching is in
 * `_search.ts`, scoring in `_bm25.ts`.
 *
 * @module
 */

import type { Note } from "../../notes/note.ts";
import { searchIndex } from "./_search.ts";
import type { IndexView } from "./_index_types.ts";
import { PostingStore } from "./_postings.ts";
import { ENGLISH_STOP_WORDS } from "../text/stopwords.ts";
import { TermDictionary } from "./_terms.ts";
import { NoteReader } from "./_indexer.ts";
import { snapshotOf, stateOf } from "./_snapshot_state.ts";
import { grown } from "./_grow.ts";
import { MAX_FEEDBACK_CHARS, MAX_RESCAN_CHARS, SequenceStore } from "./_sequences.ts";
import type { LexicalHit, LexicalSearchOptions } from "../types.ts";
import type {
  Bm25LexicalIndex,
  LexicalIndexOptions,
  LexicalSnapshot,
  LexicalSnapshotOptions,
  ResolvedLexicalOptions,
} from "./lexical_types.ts";

export * from "./lexical_types.ts";

/** Shifts of the per-field term frequencies packed into one posting word. */
const TF_SHIFT = { title: 16, body: 0, labels: 24 } as const;
/** Masks of the per-field term frequencies (after the shift). */
const TF_MASK = { title: 0xff, body: 0xffff, labels: 0xff } as const;

/**
 * Creates an empty lexical index.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Deploys", body: "Run make deploy", labels: ["ops"], hash: "", created: "", updated: "" });
 * const hits = index.search("deploy", { limit: 5 });
 * assert.equal(hits[0].id, "a");
 * assert.deepEqual(hits[0].matched, ["deploy"]);
 * index.remove("a");
 * assert.equal(index.size, 0);
 * ```
 */
export function createLexicalIndex(options: LexicalIndexOptions = {}): Bm25LexicalIndex {
  return new Bm25Index(options);
}

/**
 * The BM25F lexical index (internal: its fields are read by `_search.ts` and `_bm25.ts`, as an
 * {@linkcode IndexView}, which with {@linkcode Bm25LexicalIndex} documents its members). Create it
 * with {@linkcode createLexicalIndex}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "./lexical.ts";
 * const index = new Bm25Index({ b: 0.5 });
 * assert.equal(index.options.b, 0.5);
 * assert.equal(index.options.k1, 1.2); // a default
 * index.add({ id: "a", title: "t", body: "rate_limit reached", labels: [], hash: "", created: "", updated: "" });
 * const hits = index.search("rate limit", { limit: 1 });
 * assert.equal(hits.length, 1);
 * assert.deepEqual(hits[0].matched, ["rate", "limit"]); // the identifier's parts match
 * ```
 */
export class Bm25Index implements Bm25LexicalIndex, IndexView {
  readonly options: ResolvedLexicalOptions;
  dict!: TermDictionary;
  postings!: PostingStore;
  sequences!: SequenceStore;
  df!: Int32Array;
  notes!: (Note | undefined)[];
  lengths!: { title: Int32Array; body: Int32Array; labels: Int32Array };
  totals!: { title: number; body: number; labels: number };
  #ids!: Map<string, number>;
  #docs = 0;
  #dead = 0;
  #reader!: NoteReader;

  constructor(options: LexicalIndexOptions = {}) {
    const w = options.fieldWeights ?? {};
    this.options = {
      k1: options.k1 ?? 1.2,
      b: options.b ?? 0,
      delta: options.delta ?? 0.5,
      feedbackDocs: options.feedbackDocs ?? 5,
      feedbackTerms: options.feedbackTerms ?? 15,
      feedbackWeight: options.feedbackWeight ?? 0.5,
      fieldWeights: { title: w.title ?? 2, body: w.body ?? 1, labels: w.labels ?? 1.5 },
      proximityWeight: options.proximityWeight ?? 1,
      rerankDepth: options.rerankDepth ?? 30,
      prefixWeight: options.prefixWeight ?? 0.5,
      minPrefixLength: options.minPrefixLength ?? 2,
      maxPrefixTerms: options.maxPrefixTerms ?? 50,
      stopWords: options.stopWords ?? ENGLISH_STOP_WORDS,
    };
    this.clear();
  }

  get size(): number {
    return this.#ids.size;
  }

  get docCount(): number {
    return this.#docs;
  }

  get deadPostings(): number {
    return this.#dead;
  }

  idOf(doc: number): string | undefined {
    return this.notes[doc]?.id;
  }

  clear(): void {
    this.dict = new TermDictionary(this.options.stopWords);
    this.dict.onNewTerm = (id) => this.#reserveTerm(id);
    this.postings = new PostingStore();
    this.sequences = new SequenceStore();
    this.df = new Int32Array(1024);
    this.#reader = new NoteReader(this.dict);
    this.notes = [];
    this.lengths = {
      title: new Int32Array(1024),
      body: new Int32Array(1024),
      labels: new Int32Array(1024),
    };
    this.totals = { title: 0, body: 0, labels: 0 };
    this.#ids = new Map();
    this.#docs = 0;
    this.#dead = 0;
  }

  add(note: Note, held?: Note): void {
    if (this.#ids.has(note.id)) this.remove(note.id);
    const doc = this.#docs++;
    if (doc === this.lengths.body.length) this.#growDocs();
    this.notes[doc] = held ?? note;
    this.#ids.set(note.id, doc);
    this.#read(note, true);
    this.sequences.set(doc, this.#reader.sequence, this.#feedbackHead, this.#feedbackTail);
    const { title, body, labels } = this.#fieldLengths;
    this.lengths.title[doc] = title;
    this.lengths.body[doc] = body;
    this.lengths.labels[doc] = labels;
    this.totals.title += title;
    this.totals.body += body;
    this.totals.labels += labels;
    const { unique, tf, uniqueCount } = this.#reader;
    this.postings.appendDoc(doc, unique, uniqueCount, tf);
    const df = this.df;
    for (let i = 0; i < uniqueCount; i++) df[unique[i]]++;
  }

  remove(id: string, indexed?: Pick<Note, "title" | "body" | "labels">): void {
    const doc = this.#ids.get(id);
    if (doc === undefined) return;
    this.#read(indexed ?? this.notes[doc]!, false);
    const { unique, uniqueCount } = this.#reader;
    for (let i = 0; i < uniqueCount; i++) this.df[unique[i]]--;
    this.#dead += uniqueCount;
    this.totals.title -= this.lengths.title[doc];
    this.totals.body -= this.lengths.body[doc];
    this.totals.labels -= this.lengths.labels[doc];
    this.notes[doc] = undefined;
    this.sequences.delete(doc);
    this.#ids.delete(id);
    if (this.#ids.size === 0) this.clear();
  }

  flush(): void {
    const postings = this.postings;
    const total = postings.frozenCount + postings.pendingCount;
    if (this.#dead > 4096 && this.#dead * 4 > total) this.#compact();
    else if (postings.pendingCount > 0) postings.flush(this.dict.size);
  }

  /**
   * Flushes when the pending log has grown too long to scan at every search: past 4,096 pairs and
   * 1/128 of the merged postings. Scanning the unsorted log costs a search far more per pair than
   * the merged part does, so it is kept short; a merge (linear in the index, about 60 ms at 100k
   * notes) then comes once per ~750 notes written at that size, and only before a search.
   */
  prepareSearch(): void {
    const postings = this.postings;
    const pending = postings.pendingCount;
    if (pending > 4096 && pending * 128 > postings.frozenCount) this.flush();
    else if (this.#dead > 65_536 && this.#dead * 2 > postings.frozenCount) this.flush();
  }

  compact(): void {
    this.flush();
    if (this.#dead !== 0 || this.#docs !== this.#ids.size) this.#compact();
  }

  byteLength(): number {
    const buffers = new Set<ArrayBufferLike>();
    const add = (a: Int32Array | Uint16Array) => buffers.add(a.buffer);
    const d = this.dict, p = this.postings, q = this.sequences;
    [d.tokenStart, d.chars, p.offsets, p.entries, p.log, p.frameDoc, p.frameEnd].forEach(add);
    // The token table counts before it is built, as it will be (see `_terms.ts`).
    const table = d.builtSlots;
    if (table) add(table);
    p.chunks.forEach(add);
    q.chunks.forEach(add);
    [q.chunk, q.start, q.end, q.feedbackHead, q.feedbackTail, this.df].forEach(add);
    [this.lengths.title, this.lengths.body, this.lengths.labels].forEach(add);
    let bytes = table ? 0 : d.slotBytes;
    for (const buffer of buffers) bytes += buffer.byteLength;
    // A term: its string and its two table entries; a note: its slot and id-map entry.
    return bytes + d.size * 64 + this.notes.length * 8 + this.#ids.size * 48;
  }

  search(query: string, options: LexicalSearchOptions): LexicalHit[] {
    return searchIndex(this, query, options);
  }

  /** Flushes first. The arrays are copies, or arrays the index never changes in place. */
  exportSnapshot(options: LexicalSnapshotOptions = {}): LexicalSnapshot | undefined {
    this.flush();
    const docs = this.#docs;
    if (this.#dead !== 0 || docs !== this.#ids.size || this.postings.pendingCount !== 0) {
      return undefined;
    }
    return snapshotOf(this, docs, options.tokenTable !== false);
  }

  /** Checks the snapshot's shape, not that it matches the notes (the caller keys it on them). */
  importSnapshot(snapshot: LexicalSnapshot, notes: readonly Note[]): boolean {
    const state = stateOf(snapshot, notes, this.options);
    if (!state) return false;
    const { dict, df, ids, docs } = state;
    this.dict = dict;
    dict.onNewTerm = (id) => this.#reserveTerm(id);
    this.postings = state.postings;
    this.sequences = state.sequences;
    this.df = df;
    this.#reader = new NoteReader(dict);
    this.#reader.reserve(df.length);
    this.notes = notes.slice();
    this.lengths = state.lengths;
    this.totals = state.totals;
    this.#ids = ids;
    this.#docs = docs;
    this.#dead = 0;
    return true;
  }

  #fieldLengths = { title: 0, body: 0, labels: 0 };
  #feedbackHead = 0;
  #feedbackTail = 0;

  /**
   * Reads a note's fields: the reader then holds its distinct terms and (when
   * counting) their tf and term sequence.
   */
  #read(note: Pick<Note, "title" | "body" | "labels">, counting: boolean): void {
    const reader = this.#reader;
    reader.begin(counting, counting);
    if (counting) this.sequences.prepare(reader.sequence);
    this.#fieldLengths.title = reader.field(note.title, TF_SHIFT.title, TF_MASK.title);
    this.#fieldLengths.body = reader.field(
      note.body,
      TF_SHIFT.body,
      TF_MASK.body,
      MAX_RESCAN_CHARS,
      MAX_FEEDBACK_CHARS,
    );
    this.#feedbackHead = reader.marked;
    this.#feedbackTail = reader.sequence.terms;
    let labels = 0;
    for (const label of note.labels) labels += reader.field(label, TF_SHIFT.labels, TF_MASK.labels);
    this.#fieldLengths.labels = labels;
  }

  #reserveTerm(id: number): void {
    if (id < this.df.length) return;
    const n = this.df.length * 2;
    this.df = grown(this.df, n);
    this.#reader.reserve(n);
  }

  #growDocs(): void {
    const n = this.lengths.body.length * 2;
    this.lengths = {
      title: grown(this.lengths.title, n),
      body: grown(this.lengths.body, n),
      labels: grown(this.lengths.labels, n),
    };
  }

  /** Renumbers the live docs densely and drops the postings of removed ones. */
  #compact(): void {
    const remap = new Int32Array(this.#docs).fill(-1);
    const notes: (Note | undefined)[] = [];
    let next = 0;
    for (let doc = 0; doc < this.#docs; doc++) {
      const note = this.notes[doc];
      if (!note) continue;
      remap[doc] = next;
      this.lengths.title[next] = this.lengths.title[doc];
      this.lengths.body[next] = this.lengths.body[doc];
      this.lengths.labels[next] = this.lengths.labels[doc];
      this.#ids.set(note.id, next);
      notes[next++] = note;
    }
    this.postings.flush(this.dict.size, remap);
    this.sequences.compact(remap);
    this.notes = notes;
    this.#docs = next;
    this.#dead = 0;
  }
}
