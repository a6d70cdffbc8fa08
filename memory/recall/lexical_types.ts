/**
 * The options of the lexical index, the shape of its snapshot, and the
 * interface {@linkcode createLexicalIndex} returns.
 *
 * @module
 */

import type { LexicalIndex } from "./types.ts";

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
   * BM25 length normalisation of the title and body (0: none, 1: full).
   * Notes are short and term frequencies saturate (k1), so a longer note is
   * not penalised by default: on the LoCoMo dev split (`bench/recall_quality.ts`)
   * every step from 0.75 down to 0 ranked better.
   * @default 0
   */
  b?: number;
  /**
   * BM25+ lower bound: what any match of a term adds (times its idf) on top
   * of its saturated frequency, so that matching one more query word always
   * counts (Lv and Zhai, 2011).
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
 */
export const LEXICAL_SNAPSHOT_VERSION = 1;

/**
 * The state of a built index, as plain numbers and typed arrays (see
 * {@linkcode Bm25Index.exportSnapshot}); its notes are not in it.
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
 * A string that differs whenever two option sets could build different indexes
 * or rank differently.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index, lexicalOptionsKey } from "./lexical.ts";
 * const key = lexicalOptionsKey(new Bm25Index().options);
 * assert.equal(lexicalOptionsKey(new Bm25Index().options), key);
 * assert.notEqual(lexicalOptionsKey(new Bm25Index({ b: 0.5 }).options), key);
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
   * Merges the postings added since the last merge (a search does it when
   * needed; calling it after a bulk load takes that work out of the first
   * search).
   */
  flush(): void;
}
