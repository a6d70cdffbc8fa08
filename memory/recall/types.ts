/**
 * Types shared by the recall engines.
 *
 * @module
 */

import type { Note } from "../note.ts";

/** The recall engines. `auto` picks the best one that is ready. */
export type RecallEngine = "lexical" | "vector" | "hybrid" | "auto";

/** The engines a caller may ask for, in a stable order. */
export const RECALL_ENGINES: readonly RecallEngine[] = ["auto", "lexical", "vector", "hybrid"];

/** Which notes a search may return. */
export interface NoteFilter {
  /** Only notes that carry every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
}

/** One part of a hit's score, reported with `explain`. */
export interface ScoreContribution {
  /** The query word (folded, as typed) the contribution comes from. */
  term: string;
  /** `title`, `body` or `labels`; `proximity` for the bonus of query words found close together. */
  field: string;
  /** Its part of the score. */
  score: number;
  /** The indexed term that matched, when it differs from `term` (a stem, or a prefix completion). */
  indexTerm?: string;
}

/** One hit of a lexical search. */
export interface LexicalHit {
  /** Id of the note. */
  id: string;
  /** BM25 score (higher is better). */
  score: number;
  /** Query terms (as typed, folded) that matched this note. */
  matched: string[];
  /** Per-term, per-field contributions to the score, when `explain` was asked for. */
  explain?: ScoreContribution[];
}

/** Options of one lexical search. */
export interface LexicalSearchOptions {
  /** Most hits to return. */
  limit: number;
  /** Only notes for which this returns true. */
  filter?: (id: string) => boolean;
  /** Fill `explain` on each hit. */
  explain?: boolean;
}

/**
 * A lexical index the memory client keeps in step with its store.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalIndex } from "@memo/memory";
 * const index: LexicalIndex = createLexicalIndex();
 * index.add({ id: "a", title: "Rate limits", body: "GitHub rate-limit", labels: [], hash: "h", created: "", updated: "" });
 * assert.equal(index.size, 1);
 * assert.equal(index.search("rate limit", { limit: 5 })[0].id, "a");
 * index.clear();
 * assert.deepEqual(index.search("rate limit", { limit: 5 }), []);
 * ```
 */
export interface LexicalIndex {
  /** Adds a note (replacing any note with the same id). */
  add(note: Note): void;
  /** Removes a note by id; no-op when absent. */
  remove(id: string): void;
  /** Drops everything. */
  clear(): void;
  /** Number of notes indexed. */
  readonly size: number;
  /** Ranked hits, best first. */
  search(query: string, options: LexicalSearchOptions): LexicalHit[];
}

/** One hit of `Memo.recall`. */
export interface RecallHit {
  /** The note. */
  note: Note;
  /** Score of the engine that ranked it (higher is better). */
  score: number;
  /** The engine that produced the ranking. */
  engine: Exclude<RecallEngine, "auto">;
  /** Why it matched: the query terms found in the note. */
  matched: string[];
  /** Per-term contributions, when asked for with `explain`. */
  explain?: ScoreContribution[];
}
