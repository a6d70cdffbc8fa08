/**
 * Internal: what a search reads of the lexical index. The index (`lexical.ts`) implements
 * {@linkcode IndexView}, and its search (`_search.ts`, `_bm25.ts`) reads one, so that the index and
 * its search do not import each other.
 *
 * @module
 */

import type { Note } from "../../notes/note.ts";
import type { ResolvedLexicalOptions } from "./lexical_types.ts";
import type { PostingStore } from "./_postings.ts";
import type { SequenceStore } from "./_sequences.ts";
import type { TermDictionary } from "./_terms.ts";

/**
 * The state of a BM25F index that a search reads; `Bm25Index` implements it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "./lexical.ts";
 * import type { IndexView } from "./_index_types.ts";
 * const view: IndexView = new Bm25Index();
 * assert.equal(view.size, 0);
 * assert.equal(view.options.k1, 1.2);
 * ```
 */
export interface IndexView {
  readonly options: ResolvedLexicalOptions;
  readonly dict: TermDictionary;
  readonly postings: PostingStore;
  /** Term sequence of each doc number, for proximity and feedback. */
  readonly sequences: SequenceStore;
  /** Live documents holding each term. */
  readonly df: Int32Array;
  /** Note of each doc number (undefined once removed). */
  readonly notes: readonly (Note | undefined)[];
  /** Indexed tokens per field, per doc number. */
  readonly lengths: {
    readonly title: Int32Array;
    readonly body: Int32Array;
    readonly labels: Int32Array;
  };
  /** Sum of the live documents' field lengths. */
  readonly totals: { readonly title: number; readonly body: number; readonly labels: number };
  readonly size: number;
  /** Number of doc numbers handed out (live and removed, since the last compaction). */
  readonly docCount: number;
  /** Postings left behind by removed notes (0: every posting is of a live note). */
  readonly deadPostings: number;
  /** Flushes when the pending log has grown too long to scan at every search. */
  prepareSearch(): void;
}
