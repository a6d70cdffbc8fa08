/**
 * Postings of the lexical index, in two parts:
 *
 * - a *frozen* part in compressed-sparse-row form: `offsets[t] .. offsets[t + 1]`
 *   are term t's entries in `entries`, each `(doc, packed tf)`, docs ascending;
 * - a *pending* log of the entries added since, as `(term, doc, tf)` triples
 *   in the order they came, in fixed-size chunks (growing it copies nothing).
 *
 * Adding a note only appends to the log (sequential writes). {@linkcode
 * PostingStore.flush} merges the log into the frozen part with one counting
 * sort, dropping the entries of removed notes and renumbering the docs; the
 * index flushes before a search once the log is large, and otherwise scans
 * the small log beside the frozen part.
 *
 * @module
 */

/** Ints per chunk of the pending log (a multiple of 3). */
const LOG_CHUNK = 3 * 65536;

/**
 * The postings of every term.
 *
 * @example
 * ```ts
 * import { PostingStore } from "./_postings.ts";
 * const store = new PostingStore();
 * store.append(0, 7, 1);
 * store.flush(1);
 * store.forEach(0, (doc, tf) => console.log(doc, tf)); // 7 1
 * ```
 */
export class PostingStore {
  /** Frozen part: term t's entries are `entries[2 * offsets[t] ..  2 * offsets[t + 1])`. */
  offsets: Int32Array = new Int32Array(1);
  /** Frozen entries, `(doc, tf)` pairs. */
  entries: Int32Array = new Int32Array(0);
  /** Terms covered by `offsets` (later terms have no frozen entries). */
  frozenTerms = 0;
  /** Pending `(term, doc, tf)` triples: full chunks, then `log`. */
  chunks: Int32Array[] = [];
  /** The chunk being filled. */
  log: Int32Array = new Int32Array(LOG_CHUNK);
  /** Number of ints used in `log`. */
  logUsed = 0;

  /** Number of frozen entries. */
  get frozenCount(): number {
    return this.offsets[this.frozenTerms];
  }

  /** Number of pending entries. */
  get pendingCount(): number {
    return (this.chunks.length * LOG_CHUNK + this.logUsed) / 3;
  }

  /** Appends the entry `(doc, tf)` to the postings of `term`. */
  append(term: number, doc: number, tf: number): void {
    let at = this.logUsed;
    if (at === LOG_CHUNK) {
      this.chunks.push(this.log);
      this.log = new Int32Array(LOG_CHUNK);
      at = 0;
    }
    const log = this.log;
    log[at] = term;
    log[at + 1] = doc;
    log[at + 2] = tf;
    this.logUsed = at + 3;
  }

  /**
   * Appends one doc's entries: `(terms[i], doc, tf[terms[i]])` for i below
   * `count` (what {@linkcode PostingStore.append} does, in one loop).
   */
  appendDoc(doc: number, terms: Int32Array, count: number, tf: Int32Array): void {
    let log = this.log;
    let at = this.logUsed;
    for (let i = 0; i < count; i++) {
      if (at === LOG_CHUNK) {
        this.chunks.push(log);
        log = this.log = new Int32Array(LOG_CHUNK);
        at = 0;
      }
      const t = terms[i];
      log[at] = t;
      log[at + 1] = doc;
      log[at + 2] = tf[t];
      at += 3;
    }
    this.logUsed = at;
  }

  /** Calls `fn(chunk, used)` for every chunk of the pending log, oldest first. */
  forEachPending(fn: (chunk: Int32Array, used: number) => void): void {
    for (const chunk of this.chunks) fn(chunk, LOG_CHUNK);
    if (this.logUsed > 0) fn(this.log, this.logUsed);
  }

  /** Calls `fn(doc, tf)` for every entry of `term`, frozen then pending. */
  forEach(term: number, fn: (doc: number, tf: number) => void): void {
    if (term < this.frozenTerms) {
      const entries = this.entries;
      for (let p = 2 * this.offsets[term], end = 2 * this.offsets[term + 1]; p < end; p += 2) {
        fn(entries[p], entries[p + 1]);
      }
    }
    this.forEachPending((log, used) => {
      for (let p = 0; p < used; p += 3) if (log[p] === term) fn(log[p + 1], log[p + 2]);
    });
  }

  /**
   * Merges the pending log into the frozen part. With `remap`, entries whose
   * doc maps to a negative number are dropped and the others renumbered.
   * `terms` is the number of terms of the dictionary.
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
    this.forEachPending((log, used) => {
      for (let p = 0; p < used; p += 3) {
        if (!remap || remap[log[p + 1]] >= 0) offsets[log[p] + 1]++;
      }
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
    this.forEachPending((log, used) => {
      for (let p = 0; p < used; p += 3) {
        const doc = remap ? remap[log[p + 1]] : log[p + 1];
        if (doc < 0) continue;
        const q = 2 * fill[log[p]]++;
        entries[q] = doc;
        entries[q + 1] = log[p + 2];
      }
    });
    this.offsets = offsets;
    this.entries = entries;
    this.frozenTerms = terms;
    this.chunks = [];
    this.logUsed = 0;
  }

  /** Drops every posting. */
  clear(): void {
    this.offsets = new Int32Array(1);
    this.entries = new Int32Array(0);
    this.frozenTerms = 0;
    this.chunks = [];
    this.log = new Int32Array(LOG_CHUNK);
    this.logUsed = 0;
  }
}
