/**
 * The token sequences of the indexed notes: for each note, its indexed terms (stop words left out)
 * in the order the tokenizer cuts them, each with its position, recorded once when the note is
 * added. The proximity re-rank and pseudo-relevance feedback read them instead of tokenizing the
 * candidate notes again at every search.
 *
 * Positions are those of the tokenizer (`scanTokens`): the title from 0, then the body, then each
 * label, each field starting {@linkcode FIELD_GAP} positions after the previous one ends, so that
 * no pair of neighbours spans two fields. Only the first {@linkcode MAX_RESCAN_CHARS} characters of
 * a body are recorded.
 *
 * Encoding, one `Int32` per term: `term << 8 | (position − previous position + 8)` when the term id
 * is below 2²³ and the step in −8 … 247 (joined forms step back to their first part, CJK pairs stay
 * put, stop words are skipped over); otherwise the three ints `-1, term, position`. The sequences
 * are stored back to back in chunks of up to {@linkcode SEQUENCE_CHUNK} ints (the first ones
 * smaller, so that a few notes take little room; a longer sequence gets a chunk of its own), so
 * growing the store copies nothing.
 *
 * @module
 */

import { grown } from "./_grow.ts";

/** Positions left between fields. */
export const FIELD_GAP = 64;
/** Characters of a body whose terms are recorded (for proximity and feedback). */
export const MAX_RESCAN_CHARS = 32_768;
/** Characters of a body that feedback reads. */
export const MAX_FEEDBACK_CHARS = 8192;
/** Ints per chunk of the store (the first chunks are smaller). */
export const SEQUENCE_CHUNK = 1 << 20;
/** Largest term id of the compact encoding, plus one. */
const COMPACT_TERMS = 1 << 23;
/** Escape of an entry that does not fit the compact encoding. */
const ESCAPE = -1;

/**
 * Builds one note's sequence: {@linkcode SequenceWriter.push} each term with
 * its position, in scan order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SequenceWriter } from "./_sequences.ts";
 * const w = new SequenceWriter();
 * w.push(3, 0); // term 3 at position 0
 * w.push(9, 5);
 * assert.equal(w.terms, 2);
 * assert.equal(w.count, 2); // small entries take one int each
 * ```
 */
export class SequenceWriter {
  /** Encoded entries, from `start`: a buffer of the writer's, or a store's chunk (see {@linkcode SequenceStore.prepare}). */
  data: Int32Array = new Int32Array(1024);
  /** First int of the sequence in `data`. */
  start = 0;
  /** End (exclusive) of the sequence in `data`. */
  count = 0;
  terms = 0;
  #own: Int32Array = this.data;
  #last = 0;

  /** Starts a new sequence in the writer's own buffer. */
  reset(): void {
    this.target(this.#own, 0);
  }

  /** Starts a new sequence at `data[start]` (the ints from there on are free). */
  target(data: Int32Array, start: number): void {
    this.data = data;
    this.start = start;
    this.count = start;
    this.terms = 0;
    this.#last = 0;
  }

  push(term: number, position: number): void {
    if (this.count + 3 > this.data.length) this.#move();
    const step = position - this.#last + 8;
    if (term < COMPACT_TERMS && step >= 0 && step < 256) {
      this.data[this.count++] = (term << 8) | step;
    } else {
      this.data[this.count++] = ESCAPE;
      this.data[this.count++] = term;
      this.data[this.count++] = position;
    }
    this.#last = position;
    this.terms++;
  }

  /** Moves the sequence to a larger buffer of the writer's own. */
  #move(): void {
    const n = this.count - this.start;
    if (this.#own.length < 2 * n + 3) this.#own = new Int32Array(2 * n + 1024);
    this.#own.set(this.data.subarray(this.start, this.count));
    this.data = this.#own;
    this.start = 0;
    this.count = n;
  }
}

/**
 * Decodes one stored sequence, entry by entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SequenceReader, SequenceStore, SequenceWriter } from "./_sequences.ts";
 * const store = new SequenceStore();
 * const w = new SequenceWriter();
 * w.push(4, 2);
 * w.push(6, 3);
 * store.set(0, w, 2, 2);
 * const r = new SequenceReader();
 * store.open(0, r);
 * const read: number[][] = [];
 * while (r.next()) read.push([r.term, r.position]);
 * assert.deepEqual(read, [[4, 2], [6, 3]]);
 * ```
 */
export class SequenceReader {
  term = 0;
  position = 0;
  /** Index of the current entry in the sequence (0 for the first). */
  index = -1;
  #data: Int32Array = new Int32Array(0);
  #at = 0;
  #end = 0;

  /** Points the reader at `data[from, to)`. */
  reset(data: Int32Array, from: number, to: number): void {
    this.#data = data;
    this.#at = from;
    this.#end = to;
    this.position = 0;
    this.index = -1;
  }

  /** Moves to the next entry; false at the end. */
  next(): boolean {
    const at = this.#at;
    if (at >= this.#end) return false;
    const e = this.#data[at];
    if (e >= 0) {
      this.term = e >>> 8;
      this.position += (e & 255) - 8;
      this.#at = at + 1;
    } else {
      this.term = this.#data[at + 1];
      this.position = this.#data[at + 2];
      this.#at = at + 3;
    }
    this.index++;
    return true;
  }
}

/**
 * The sequences of every doc number, with per doc the entries feedback reads
 * (see {@linkcode SequenceStore.feedbackCount}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SequenceStore, SequenceWriter } from "./_sequences.ts";
 * const store = new SequenceStore();
 * const w = new SequenceWriter();
 * w.push(1, 0);
 * w.push(2, 1);
 * store.set(0, w, 2, 2);
 * assert.ok(store.has(0));
 * assert.ok(!store.has(1));
 * store.delete(0);
 * assert.ok(!store.has(0));
 * ```
 */
export class SequenceStore {
  /** The chunks; a doc's entries are `chunks[chunk[doc]][start[doc], end[doc])`. */
  chunks: Int32Array[] = [];
  /** Chunk of each doc (-1: none). */
  chunk: Int32Array = new Int32Array(1024).fill(-1);
  /** First int of each doc in its chunk. */
  start: Int32Array = new Int32Array(1024);
  /** End (exclusive) of each doc in its chunk. */
  end: Int32Array = new Int32Array(1024);
  /**
   * Per doc: feedback reads the entries of index below `feedbackHead` (the
   * title and the start of the body) …
   */
  feedbackHead: Int32Array = new Int32Array(1024);
  /** … and those of index at least `feedbackTail` (the labels). */
  feedbackTail: Int32Array = new Int32Array(1024);
  /** Ints used of the last chunk (equal to its length when full, or when there is none). */
  #used = 0;

  has(doc: number): boolean {
    return doc < this.chunk.length && this.chunk[doc] >= 0;
  }

  /**
   * Points `writer` at the free space of the store, so that a sequence
   * written there is stored by {@linkcode SequenceStore.set} without a copy.
   */
  prepare(writer: SequenceWriter): void {
    if (this.#free() < SEQUENCE_CHUNK >> 6) this.#newChunk(0);
    writer.target(this.chunks[this.chunks.length - 1], this.#used);
  }

  /** Free ints in the last chunk (0 when there is none). */
  #free(): number {
    const last = this.chunks[this.chunks.length - 1];
    return last ? last.length - this.#used : 0;
  }

  /**
   * Starts a chunk of at least `n` ints. Chunks double from 1/16 of {@linkcode SEQUENCE_CHUNK} up
   * to it, so that the sequences of a few notes take little room.
   */
  #newChunk(n: number): void {
    const last = this.chunks[this.chunks.length - 1];
    const size = Math.min(SEQUENCE_CHUNK, Math.max(SEQUENCE_CHUNK >> 4, 2 * (last?.length ?? 0)));
    this.chunks.push(new Int32Array(Math.max(size, n)));
    this.#used = 0;
  }

  /**
   * Stores the sequence `writer` holds as that of `doc`; feedback reads its
   * entries of index below `head` or at least `tail`.
   */
  set(doc: number, writer: SequenceWriter, head: number, tail: number): void {
    if (doc >= this.chunk.length) this.#grow(doc + 1);
    const n = writer.count - writer.start;
    let c = this.chunks.length - 1;
    const at = this.#used;
    if (c >= 0 && writer.data === this.chunks[c] && writer.start === at) {
      this.#used = at + n; // written in place (see prepare)
    } else {
      if (c < 0 || n > this.#free()) {
        this.#newChunk(n);
        c++;
      }
      const to = this.chunks[c];
      const from = writer.data;
      const base = this.#used;
      for (let i = 0; i < n; i++) to[base + i] = from[writer.start + i]; // short: faster than a view
      this.#used = base + n;
    }
    this.chunk[doc] = c;
    this.start[doc] = this.#used - n;
    this.end[doc] = this.#used;
    this.feedbackHead[doc] = head;
    this.feedbackTail[doc] = tail;
  }

  /** Points `reader` at the sequence of `doc` (empty when it has none). */
  open(doc: number, reader: SequenceReader): void {
    if (!this.has(doc)) reader.reset(this.start, 0, 0);
    else reader.reset(this.chunks[this.chunk[doc]], this.start[doc], this.end[doc]);
  }

  /** Forgets the sequence of `doc` (its space is taken back by {@linkcode SequenceStore.compact}). */
  delete(doc: number): void {
    if (doc < this.chunk.length) this.chunk[doc] = -1;
  }

  clear(): void {
    this.chunks = [];
    this.chunk = new Int32Array(1024).fill(-1);
    this.start = new Int32Array(1024);
    this.end = new Int32Array(1024);
    this.feedbackHead = new Int32Array(1024);
    this.feedbackTail = new Int32Array(1024);
    this.#used = 0;
  }

  /**
   * Keeps the sequences of the docs `remap` maps to a number (not negative),
   * under that number, copied densely; drops the others.
   */
  compact(remap: Int32Array): void {
    const old = {
      chunks: this.chunks,
      chunk: this.chunk,
      start: this.start,
      end: this.end,
      head: this.feedbackHead,
      tail: this.feedbackTail,
    };
    this.clear();
    const writer = new SequenceWriter();
    for (let doc = 0; doc < remap.length && doc < old.chunk.length; doc++) {
      const to = remap[doc];
      if (to < 0 || old.chunk[doc] < 0) continue;
      writer.data = old.chunks[old.chunk[doc]];
      writer.start = old.start[doc];
      writer.count = old.end[doc];
      this.set(to, writer, old.head[doc], old.tail[doc]);
    }
  }

  /**
   * The sequences of docs `0 .. docs - 1`, copied back to back into one
   * array, as a snapshot holds them (see {@linkcode SequenceStore.fromState}).
   */
  exportState(docs: number): SequenceStoreState {
    let total = 0;
    for (let doc = 0; doc < docs; doc++) {
      if (this.has(doc)) total += this.end[doc] - this.start[doc];
    }
    const data = new Int32Array(total);
    const chunk = new Int32Array(this.chunk.length).fill(-1);
    const start = new Int32Array(this.chunk.length);
    const end = new Int32Array(this.chunk.length);
    let at = 0;
    for (let doc = 0; doc < docs; doc++) {
      if (!this.has(doc)) continue;
      const from = this.chunks[this.chunk[doc]];
      const n = this.end[doc] - this.start[doc];
      data.set(from.subarray(this.start[doc], this.end[doc]), at);
      chunk[doc] = 0;
      start[doc] = at;
      end[doc] = at += n;
    }
    return {
      data,
      chunk,
      start,
      end,
      feedbackHead: this.feedbackHead.slice(),
      feedbackTail: this.feedbackTail.slice(),
    };
  }

  /**
   * A store holding `state` (its arrays are taken, not copied); undefined when
   * the state is not consistent.
   */
  static fromState(state: SequenceStoreState): SequenceStore | undefined {
    const { data, chunk, start, end, feedbackHead, feedbackTail } = state;
    const n = chunk.length;
    if (
      n < 1 || start.length !== n || end.length !== n || feedbackHead.length !== n ||
      feedbackTail.length !== n
    ) return undefined;
    for (let doc = 0; doc < n; doc++) {
      const c = chunk[doc];
      if (c === -1) continue;
      if (c !== 0 || start[doc] < 0 || end[doc] < start[doc] || end[doc] > data.length) {
        return undefined;
      }
    }
    const store = new SequenceStore();
    store.chunks = [data];
    store.chunk = chunk;
    store.start = start;
    store.end = end;
    store.feedbackHead = feedbackHead;
    store.feedbackTail = feedbackTail;
    store.#used = data.length; // the chunk counts as full: new sequences go to a new one
    return store;
  }

  #grow(docs: number): void {
    let n = this.chunk.length;
    while (n < docs) n *= 2;
    this.chunk = grown(this.chunk, n, -1);
    this.start = grown(this.start, n);
    this.end = grown(this.end, n);
    this.feedbackHead = grown(this.feedbackHead, n);
    this.feedbackTail = grown(this.feedbackTail, n);
  }
}

/** The state of a {@linkcode SequenceStore}, as a snapshot holds it (see `lexical.ts`). */
export interface SequenceStoreState {
  /** Every sequence, back to back. */
  data: Int32Array;
  /** Per doc: 0 when it has a sequence in `data`, -1 otherwise. */
  chunk: Int32Array;
  /** First int of each doc's sequence in `data`. */
  start: Int32Array;
  /** End (exclusive) of each doc's sequence in `data`. */
  end: Int32Array;
  /** See {@linkcode SequenceStore.feedbackHead}. */
  feedbackHead: Int32Array;
  /** See {@linkcode SequenceStore.feedbackTail}. */
  feedbackTail: Int32Array;
}
