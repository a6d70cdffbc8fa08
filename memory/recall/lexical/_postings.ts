/**
 * Postings of the lexical index, in two parts:
 *
 * - a *frozen* part in compressed-sparse-row form: `offsets[t] .. offsets[t + 1]`
 *   are term t's entries in `entries`, each `(doc, packed tf)`, docs ascending;
 * - a *pending* log of the entries added since, as `(term, tf)` pairs in the
 *   order they came, in fixed-size chunks (growing it copies nothing), cut
 *   into *frames*: runs of pairs of one doc (a note's entries are one frame).
 *
 * Adding a note only appends to the log (sequential writes). {@linkcode PostingStore.flush} merges
 * the log into the frozen part with one counting sort, dropping the entries of removed notes and
 * renumbering the docs; the index flushes before a search once the log is large, and otherwise
 * scans the small log beside the frozen part.
 *
 * @module
 */

/** Ints per chunk of the pending log (a multiple of 2). */
const LOG_CHUNK = 2 * 65536;
/** Ints of a new pending log (a power of 2 below {@linkcode LOG_CHUNK}). */
const LOG_START = 1024;

/**
 * The postings of every term.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostingStore } from "./_postings.ts";
 * const store = new PostingStore();
 * store.append(0, 7, 1); // term 0: doc 7, tf 1
 * store.append(0, 9, 3);
 * assert.equal(store.pendingCount, 2);
 * store.flush(1);
 * assert.equal(store.pendingCount, 0);
 * assert.equal(store.frozenCount, 2);
 * const entries: number[][] = [];
 * store.forEach(0, (doc, tf) => entries.push([doc, tf]));
 * assert.deepEqual(entries, [[7, 1], [9, 3]]);
 * ```
 */
export class PostingStore {
  /** Frozen part: term t's entries are `entries[2 * offsets[t] ..  2 * offsets[t + 1])`. */
  offsets: Int32Array = new Int32Array(1);
  /** Frozen entries, `(doc, tf)` pairs. */
  entries: Int32Array = new Int32Array(0);
  /** Terms covered by `offsets` (later terms have no frozen entries). */
  frozenTerms = 0;
  /** Pending `(term, tf)` pairs: full chunks, then `log`. */
  chunks: Int32Array[] = [];
  /**
   * The chunk being filled: it starts small and doubles up to {@linkcode LOG_CHUNK} ints (an index
   * of a few notes then holds little); only full chunks move to `chunks`.
   */
  log: Int32Array = new Int32Array(LOG_START);
  logUsed = 0;
  /** Doc of each frame of the log. */
  frameDoc: Int32Array = new Int32Array(256);
  /** End of each frame of the log (exclusive), in pairs from the log's start. */
  frameEnd: Int32Array = new Int32Array(256);
  frameCount = 0;
  #pairs = 0;

  get frozenCount(): number {
    return this.offsets[this.frozenTerms];
  }

  get pendingCount(): number {
    return this.#pairs;
  }

  /** Appends the entry `(doc, tf)` to the postings of `term`. */
  append(term: number, doc: number, tf: number): void {
    this.#frame(doc);
    let at = this.logUsed;
    if (at === this.log.length) at = this.#nextLog(at);
    this.log[at] = term;
    this.log[at + 1] = tf;
    this.logUsed = at + 2;
    this.frameEnd[this.frameCount - 1] = ++this.#pairs;
  }

  /**
   * Appends one doc's entries: `(terms[i], doc, tf[terms[i]])` for i below
   * `count` (what {@linkcode PostingStore.append} does, in one loop).
   */
  appendDoc(doc: number, terms: Int32Array, count: number, tf: Int32Array): void {
    if (count === 0) return;
    this.#frame(doc);
    let log = this.log;
    let at = this.logUsed;
    for (let i = 0; i < count; i++) {
      if (at === log.length) {
        at = this.#nextLog(at);
        log = this.log;
      }
      const t = terms[i];
      log[at] = t;
      log[at + 1] = tf[t];
      at += 2;
    }
    this.logUsed = at;
    this.#pairs += count;
    this.frameEnd[this.frameCount - 1] = this.#pairs;
  }

  /**
   * Makes room in a full `log` holding `used` ints: doubles it while it is
   * below {@linkcode LOG_CHUNK}, else moves it to `chunks` for a new one.
   * Returns where the next pair goes.
   */
  #nextLog(used: number): number {
    if (used < LOG_CHUNK) {
      const log = new Int32Array(Math.min(LOG_CHUNK, used * 2));
      log.set(this.log);
      this.log = log;
      return used;
    }
    this.chunks.push(this.log);
    this.log = new Int32Array(LOG_CHUNK);
    return 0;
  }

  /** Opens a frame for `doc` unless the last one is its. */
  #frame(doc: number): void {
    const n = this.frameCount;
    if (n > 0 && this.frameDoc[n - 1] === doc) return;
    if (n === this.frameDoc.length) {
      const docs = new Int32Array(n * 2);
      docs.set(this.frameDoc);
      this.frameDoc = docs;
      const ends = new Int32Array(n * 2);
      ends.set(this.frameEnd);
      this.frameEnd = ends;
    }
    this.frameDoc[n] = doc;
    this.frameEnd[n] = this.#pairs;
    this.frameCount = n + 1;
  }

  /**
   * Calls `fn(chunk, at, doc)` for every pending pair, oldest first: the pair
   * is `(chunk[at], chunk[at + 1])`, the entry `(term, tf)` of `doc`.
   */
  forEachPending(fn: (chunk: Int32Array, at: number, doc: number) => void): void {
    this.#scan(undefined, fn);
  }

  /**
   * Calls `fn(chunk, at, doc, slot[term])` for every pending pair whose term has a slot (a
   * non-negative `slot[term]`), oldest first: what {@linkcode PostingStore.forEachPending}
   * does with that test, in one tight loop (a search scans the log once for all its terms).
   */
  forEachPendingOf(
    slot: Int32Array,
    fn: (chunk: Int32Array, at: number, doc: number, slot: number) => void,
  ): void {
    this.#scan(slot, fn);
  }

  #scan(
    slot: Int32Array | undefined,
    fn: (chunk: Int32Array, at: number, doc: number, slot: number) => void,
  ): void {
    if (this.#pairs === 0) return;
    const frameDoc = this.frameDoc;
    const frameEnd = this.frameEnd;
    let f = 0;
    let g = 0; // pairs seen
    const scan = (chunk: Int32Array, used: number) => {
      for (let at = 0; at < used; at += 2, g++) {
        let k = 0;
        if (slot) {
          k = slot[chunk[at]];
          if (!(k >= 0)) continue; // no slot (or a term newer than the slots)
        }
        while (g >= frameEnd[f]) f++;
        fn(chunk, at, frameDoc[f], k);
      }
    };
    for (const chunk of this.chunks) scan(chunk, LOG_CHUNK);
    scan(this.log, this.logUsed);
  }

  /** Calls `fn(doc, tf)` for every entry of `term`, frozen then pending. */
  forEach(term: number, fn: (doc: number, tf: number) => void): void {
    if (term < this.frozenTerms) {
      const entries = this.entries;
      for (let p = 2 * this.offsets[term], end = 2 * this.offsets[term + 1]; p < end; p += 2) {
        fn(entries[p], entries[p + 1]);
      }
    }
    this.forEachPending((log, at, doc) => {
      if (log[at] === term) fn(doc, log[at + 1]);
    });
  }

  /**
   * Merges the pending log into the frozen part. With `remap`, entries whose doc maps to a negative
   * number are dropped and the others renumbered. `terms` is the number of terms of the dictionary.
   */
  flush(terms: number, remap?: Int32Array): void {
    const oldOffsets = this.offsets;
    const oldEntries = this.entries;
    const oldTerms = this.frozenTerms;
    // Count the surviving entries of each term.
    const offsets = new Int32Array(terms + 1);
    for (let t = 0; t < oldTerms; t++) {
      if (!remap) {
        offsets[t + 1] = oldOffsets[t + 1] - oldOffsets[t];
        continue;
      }
      let n = 0;
      for (let p = 2 * oldOffsets[t], end = 2 * oldOffsets[t + 1]; p < end; p += 2) {
        if (remap[oldEntries[p]] >= 0) n++;
      }
      offsets[t + 1] = n;
    }
    this.forEachPending((log, at, doc) => {
      if (!remap || remap[doc] >= 0) offsets[log[at] + 1]++;
    });
    for (let t = 0; t < terms; t++) offsets[t + 1] += offsets[t];
    // Fill: frozen entries first (their docs are older), then the log in order.
    const entries = new Int32Array(2 * offsets[terms]);
    const fill = offsets.slice(0, terms);
    for (let t = 0; t < oldTerms; t++) {
      let q = 2 * fill[t];
      for (let p = 2 * oldOffsets[t], end = 2 * oldOffsets[t + 1]; p < end; p += 2) {
        const doc = remap ? remap[oldEntries[p]] : oldEntries[p];
        if (doc < 0) continue;
        entries[q++] = doc;
        entries[q++] = oldEntries[p + 1];
      }
      fill[t] = q >> 1;
    }
    this.forEachPending((log, at, from) => {
      const doc = remap ? remap[from] : from;
      if (doc < 0) return;
      const q = 2 * fill[log[at]]++;
      entries[q] = doc;
      entries[q + 1] = log[at + 1];
    });
    this.offsets = offsets;
    this.entries = entries;
    this.frozenTerms = terms;
    this.#clearLog();
  }

  clear(): void {
    this.offsets = new Int32Array(1);
    this.entries = new Int32Array(0);
    this.frozenTerms = 0;
    this.#clearLog();
  }

  #clearLog(): void {
    // An emptied log starts small again, so that an idle index does not keep a large one.
    if (this.log.length > LOG_START) this.log = new Int32Array(LOG_START);
    this.chunks = [];
    this.logUsed = 0;
    this.frameCount = 0;
    this.#pairs = 0;
    if (this.frameDoc.length > 4096) {
      this.frameDoc = new Int32Array(256);
      this.frameEnd = new Int32Array(256);
    }
  }
}
