/**
 * The options of the lexical index, the shape of its snapshot, and the
 * interface {@linkcode createLexicalIndex} returns.
 *
 * @module
 */

import type { Note } from "../../notes/note.ts";
import type { LexicalIndex } from "../types.ts";

/**
 * Options of {@linkcode createLexicalIndex}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalIndexOptions } from "@memo/memory";
 * const options: LexicalIndexOptions = { fieldWeights: { title: 3 }, feedbackDocs: 0 };
 * const index = createLexicalIndex(options);
 * assert.deepEqual(index.options.fieldWeights, { title: 3, body: 1, labels: 1.5 });
 * assert.equal(index.options.feedbackDocs, 0); // feedback off
 * ```
 */
export interface LexicalIndexOptions {
  /**
   * BM25 term-frequency saturation.
   * @default 1.2
   */
  k1?: number;
  /**
   * BM25 length normalisation of the title and body (0: none, 1: full). Notes are short and term
   * frequencies saturate (k1), so a longer note is not penalised by default: on the LoCoMo dev
   * split (`bench/recall_quality.ts`) every step from 0.75 down to 0 ranked better.
   * @default 0
   */
  b?: number;
  /**
   * BM25+ lower bound: what any match of a term adds (times its idf) on top of its saturated
   * frequency, so that matching one more query word always counts (Lv and Zhai, 2011).
   * @default 0.5
   */
  delta?: number;
  /**
   * Weight of a term found in each field (BM25F).
   * @default { title: 2, body: 1, labels: 1.5 }
   */
  fieldWeights?: { title?: number; body?: number; labels?: number };
  /**
   * Pseudo-relevance feedback: how many of the best first-pass notes lend
   * their terms to the query (0 turns feedback off). See `_feedback.ts`.
   * @default 5
   */
  feedbackDocs?: number;
  /**
   * Most terms feedback adds to the query.
   * @default 15
   */
  feedbackTerms?: number;
  /**
   * Weight of the strongest feedback term, relative to a query word.
   * @default 0.5
   */
  feedbackWeight?: number;
  /**
   * Weight of the term-proximity bonus (0 turns it off).
   * @default 1
   */
  proximityWeight?: number;
  /**
   * How many of the best BM25 candidates the proximity bonus re-ranks.
   * @default 30
   */
  rerankDepth?: number;
  /**
   * Weight of a prefix completion of the last query word, further scaled by
   * `prefix length / term length`.
   * @default 0.5
   */
  prefixWeight?: number;
  /**
   * Shortest last word that is completed as a prefix.
   * @default 2
   */
  minPrefixLength?: number;
  /**
   * Most prefix completions used (the most frequent terms).
   * @default 50
   */
  maxPrefixTerms?: number;
  /**
   * Stop words: left out of the index and of queries.
   * @default ENGLISH_STOP_WORDS
   */
  stopWords?: ReadonlySet<string>;
}

/**
 * Options with their defaults filled in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, ENGLISH_STOP_WORDS, type ResolvedLexicalOptions } from "@memo/memory";
 * const options: ResolvedLexicalOptions = createLexicalIndex({ k1: 1.5 }).options;
 * assert.equal(options.k1, 1.5);
 * assert.equal(options.b, 0);
 * assert.equal(options.stopWords, ENGLISH_STOP_WORDS);
 * ```
 */
export type ResolvedLexicalOptions = Required<Omit<LexicalIndexOptions, "fieldWeights">> & {
  fieldWeights: { title: number; body: number; labels: number };
};

/**
 * Version of the snapshot layout. Bump it with any change to what the index
 * stores or to how text is cut into terms (tokenizer, stemmer, stop words,
 * sequences), so that snapshots of an older build are not loaded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, LEXICAL_SNAPSHOT_VERSION } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "t", body: "b", labels: [], hash: "", created: "", updated: "" });
 * assert.equal(index.exportSnapshot()?.version, LEXICAL_SNAPSHOT_VERSION);
 * ```
 */
export const LEXICAL_SNAPSHOT_VERSION = 1;

/**
 * Options of {@linkcode Bm25LexicalIndex.exportSnapshot}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalSnapshotOptions } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "t", body: "b", labels: [], hash: "", created: "", updated: "" });
 * const options: LexicalSnapshotOptions = { tokenTable: false };
 * assert.ok("tokenHash" in index.exportSnapshot(options)!.arrays);
 * assert.ok("slots" in index.exportSnapshot()!.arrays);
 * ```
 */
export interface LexicalSnapshotOptions {
  /**
   * Keep the token hash table (true), or each token's hash and term only, the table built again
   * on import (false: fewer bytes to move, more work to import).
   * @default true
   */
  tokenTable?: boolean;
}

/**
 * The state of a built index, as plain numbers and typed arrays (see
 * {@linkcode Bm25LexicalIndex.exportSnapshot}); its notes are not in it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalSnapshot } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Deploys", body: "make deploy", labels: [], hash: "", created: "", updated: "" });
 * const snapshot: LexicalSnapshot = index.exportSnapshot()!;
 * assert.equal(snapshot.numbers.docs, 1);
 * assert.ok(snapshot.arrays.entries instanceof Int32Array);
 * ```
 */
export interface LexicalSnapshot {
  /** {@linkcode LEXICAL_SNAPSHOT_VERSION} when it was taken. */
  version: number;
  /** {@linkcode lexicalOptionsKey} of the index's options. */
  options: string;
  /** Scalars, by name. */
  numbers: Record<string, number>;
  /** Arrays, by name. */
  arrays: Record<string, Int32Array | Uint16Array>;
}

/**
 * A string that differs whenever two option sets could build different indexes or rank differently.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, lexicalOptionsKey } from "@memo/memory";
 * const key = lexicalOptionsKey(createLexicalIndex().options);
 * assert.equal(lexicalOptionsKey(createLexicalIndex().options), key);
 * assert.notEqual(lexicalOptionsKey(createLexicalIndex({ b: 0.5 }).options), key);
 * ```
 */
export function lexicalOptionsKey(options: ResolvedLexicalOptions): string {
  return JSON.stringify({ ...options, stopWords: [...options.stopWords].sort() });
}

/**
 * The lexical index that {@linkcode createLexicalIndex} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Bm25LexicalIndex, createLexicalIndex } from "@memo/memory";
 * const index: Bm25LexicalIndex = createLexicalIndex();
 * for (let i = 0; i < 100; i++) {
 *   index.add({ id: `n${i}`, title: `Note ${i}`, body: `body ${i}`, labels: [], hash: "", created: "", updated: "" });
 * }
 * index.flush(); // after a bulk load, so that the first search does not merge
 * assert.equal(index.size, 100);
 * assert.equal(index.search("note 42", { limit: 1 })[0].id, "n42");
 * ```
 */
export interface Bm25LexicalIndex extends LexicalIndex {
  /** The options in force, defaults filled in. */
  readonly options: ResolvedLexicalOptions;
  /**
   * Merges the postings added since the last merge (a search does it when needed; calling it after
   * a bulk load takes that work out of the first search).
   */
  flush(): void;
  /**
   * Adds a note, replacing any note with the same id. With `held`, the index reads `note` but keeps
   * `held` in its place (same id, typically without the text), so that it need not hold the text;
   * such a note is removed with `remove(id, indexed)`.
   */
  add(note: Note, held?: Note): void;
  /**
   * Removes a note by id; no-op when absent. `indexed` is the title, body and labels the note was
   * indexed with, for a note added with a `held` stand-in (by default the held note is read again).
   */
  remove(id: string, indexed?: Pick<Note, "title" | "body" | "labels">): void;
  /** Number of doc numbers handed out (live and removed, since the last compaction). */
  readonly docCount: number;
  /** The id of a doc number (`undefined` for a removed note). */
  idOf(doc: number): string | undefined;
  /**
   * Flushes and drops removed notes' postings, numbering the live notes `0 … size - 1` in their
   * order; scores do not change. Afterwards `exportSnapshot` answers whatever was removed before.
   */
  compact(): void;
  /**
   * The index's state, for `importSnapshot` on the same notes in the same order (doc numbers
   * `0 … size - 1`, see `idOf`); undefined when notes were removed since the last compaction. Later
   * changes of the index do not alter it. With `tokenTable: false` the snapshot leaves out the
   * token hash table (a third of its bytes at 10,000 notes) and keeps each token's hash and term:
   * the import builds the table again, which costs more than reading it from a local file and less
   * than reading it over the network (the cloud's snapshots). Either kind imports.
   */
  exportSnapshot(options?: LexicalSnapshotOptions): LexicalSnapshot | undefined;
  /**
   * Replaces the index's content with a snapshot of an index of exactly `notes`, in doc order; the
   * snapshot's arrays are taken, not copied. Returns false, leaving the index as it was, when the
   * snapshot does not fit (another version or options, another shape).
   */
  importSnapshot(snapshot: LexicalSnapshot, notes: readonly Note[]): boolean;
  /**
   * An estimate of the memory the index holds, in bytes (its arrays, each buffer counted once, its
   * terms and its per-note tables; not the notes' text).
   */
  byteLength(): number;
}
