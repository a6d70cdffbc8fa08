/**
 * Types shared by the recall engines.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";

/**
 * One highlighted span of a note: `text.slice(start, end)` of its title or body is the word as
 * written. Offsets are UTF-16 code units, as JavaScript strings count them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Highlight, highlightsOf } from "@memo/memory";
 * const note = { title: "Deploying", body: "" };
 * const [h]: Highlight[] = highlightsOf(note, ["deploy"]);
 * assert.deepEqual(h, { field: "title", start: 0, end: 9 });
 * assert.equal(note[h.field].slice(h.start, h.end), "Deploying");
 * ```
 */
export interface Highlight {
  /** The field the span is in. */
  field: "title" | "body";
  /** UTF-16 offset where the span starts. */
  start: number;
  /** UTF-16 offset where it ends (exclusive). */
  end: number;
}

/**
 * The recall engines. `auto` picks the best one that is ready.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RecallEngine } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const engine: RecallEngine = "lexical";
 * const memo = await openMemo({ rootDir: dir, engine });
 * await memo.remember({ text: "Deploys run with make deploy" });
 * assert.equal((await memo.recall("deploy"))[0].engine, "lexical");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export type RecallEngine = "lexical" | "vector" | "hybrid" | "auto";

/**
 * The engines a caller may ask for, in a stable order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RECALL_ENGINES } from "@memo/memory";
 * assert.deepEqual(RECALL_ENGINES, ["auto", "lexical", "vector", "hybrid"]);
 * ```
 */
export const RECALL_ENGINES: readonly RecallEngine[] = ["auto", "lexical", "vector", "hybrid"];

/**
 * Which notes a search may return.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NoteFilter, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploy keys rotate monthly", source: "github:acme/app/discussions/7" });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * const ops: NoteFilter = { labels: ["ops"] };
 * assert.deepEqual((await memo.recall("deploy", ops)).map((h) => h.note.labels), [["ops"]]);
 * const github: NoteFilter = { source: "github:acme/" };
 * assert.equal((await memo.list(github)).notes[0].body, "Deploy keys rotate monthly");
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface NoteFilter {
  /** Only notes that carry every one of these labels. */
  labels?: readonly string[];
  /** Only notes whose source key starts with this prefix. */
  source?: string;
  /**
   * Only notes of this scope, or of these scopes (`user`, `project`, `local`); a note without a
   * `scope` is the project's.
   * @default every scope
   */
  scope?: "user" | "project" | "local" | readonly ("user" | "project" | "local")[];
}

/**
 * One part of a hit's score, reported with `explain`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type ScoreContribution } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Deploys", body: "Run make deploy", labels: [], hash: "", created: "", updated: "" });
 * const [hit] = index.search("deploying", { limit: 1, explain: true });
 * const parts: ScoreContribution[] = hit.explain ?? [];
 * assert.deepEqual(parts.map((c) => [c.term, c.field, c.indexTerm]), [
 *   ["deploying", "title", "deploy"],
 *   ["deploying", "body", "deploy"],
 * ]);
 * const sum = parts.reduce((total, c) => total + c.score, 0);
 * assert.ok(Math.abs(sum - hit.score) < 1e-9); // the parts add up to the score
 * ```
 */
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

/**
 * One hit of a lexical search.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalHit } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Rate limits", body: "GitHub allows 5000 requests", labels: [], hash: "", created: "", updated: "" });
 * index.add({ id: "b", title: "Limits", body: "Notion pages", labels: [], hash: "", created: "", updated: "" });
 * const hits: LexicalHit[] = index.search("github rate limit", { limit: 5 });
 * assert.deepEqual(hits.map((h) => h.id), ["a", "b"]);
 * assert.deepEqual(hits[0].matched, ["github", "rate", "limit"]);
 * assert.deepEqual(hits[1].matched, ["limit"]);
 * assert.ok(hits[0].score > hits[1].score);
 * ```
 */
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

/**
 * Options of one lexical search.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, type LexicalSearchOptions } from "@memo/memory";
 * const index = createLexicalIndex();
 * for (const id of ["a", "b", "c"]) {
 *   index.add({ id, title: `Deploy ${id}`, body: "", labels: [], hash: "", created: "", updated: "" });
 * }
 * const options: LexicalSearchOptions = { limit: 1, filter: (id) => id !== "a" };
 * const hits = index.search("deploy", options);
 * assert.equal(hits.length, 1);
 * assert.notEqual(hits[0].id, "a");
 * ```
 */
export interface LexicalSearchOptions {
  /** Most hits to return. */
  limit: number;
  /** Only notes for which this returns true. */
  filter?: (id: string) => boolean;
  /**
   * Only notes for which this returns true, given the note the index holds (no lookup by id:
   * what a filter on a note's fields wants).
   * @default none
   */
  noteFilter?: (note: Note) => boolean;
  /**
   * A quick test of a candidate by its doc number, before `filter` and `noteFilter`: negative
   * drops it, positive keeps it without asking them, 0 asks them. `notes[doc]` is the note the
   * index holds (a caller may keep what it learnt of each doc in arrays by doc number, checked
   * against that note, and so read no note at all).
   * @default none
   */
  docCheck?: (notes: readonly (Note | undefined)[], doc: number) => number;
  /** Fill `explain` on each hit. */
  explain?: boolean;
  /**
   * Rank by BM25 alone: no pseudo-relevance feedback, no proximity re-rank and no completion of
   * the last word (what a search with a whole note as its query, for near-duplicates, wants).
   * @default false
   */
  plain?: boolean;
  /**
   * Keep only this many of the query's terms, the rarest (a long query costs what its common
   * terms' postings cost).
   * @default all of them
   */
  maxTerms?: number;
  /**
   * Search only the query's terms that at least this many notes hold. A query that is the text
   * of a note the index holds passes 2: a word only that note has would find nothing else, and
   * must not take one of the `maxTerms`.
   * @default 1
   */
  minNotes?: number;
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

/**
 * Where each engine ranked a hit (ranks are 1-based), reported with `explain`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RecallParts } from "@memo/memory";
 * const parts: RecallParts = {
 *   lexical: { rank: 3, score: 4.2 },
 *   vector: { rank: 1, similarity: 0.61 },
 *   fused: 1 / 63 + 1 / 61,
 * };
 * assert.ok(parts.fused! > 0.03);
 * ```
 */
export interface RecallParts {
  /** The lexical engine's rank and BM25 score (absent when it did not find the note). */
  lexical?: { rank: number; score: number };
  /** The vector engine's rank and cosine similarity (absent when it did not rank the note). */
  vector?: { rank: number; similarity: number };
  /** The hybrid engine's fused score. */
  fused?: number;
}

/**
 * One hit of `Memo.recall`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo, type RecallHit } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * await memo.remember({ text: "Deploys run with make deploy", labels: ["ops"] });
 * const [hit]: RecallHit[] = await memo.recall("deploying", { explain: true });
 * assert.equal(hit.note.body, "Deploys run with make deploy");
 * assert.equal(hit.engine, "lexical"); // what `auto` runs while no embedder is ready
 * assert.deepEqual(hit.matched, ["deploying"]);
 * assert.ok(hit.explain && hit.explain.length > 0);
 * const words = hit.highlights!.map((h) => `${h.field}:${hit.note[h.field].slice(h.start, h.end)}`);
 * assert.deepEqual(words, ["title:Deploys", "title:deploy", "body:Deploys", "body:deploy"]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface RecallHit {
  /** The note. */
  note: Note;
  /** Score of the engine that ranked it (higher is better). */
  score: number;
  /** The engine that produced the ranking. */
  engine: Exclude<RecallEngine, "auto">;
  /** Why it matched: the query terms found in the note. */
  matched: string[];
  /** Per-term contributions of the lexical part, when asked for with `explain`. */
  explain?: ScoreContribution[];
  /** Where each engine ranked the hit, and the fused score, when asked for with `explain`. */
  parts?: RecallParts;
  /**
   * With `explain`: the spans of the note's title and body whose indexed form (the stem, or a
   * completion of the last query word) the hit matched, sorted by field then start; UTF-16 offsets
   * into the note's text. Empty for a hit found by the vector engine alone.
   */
  highlights?: Highlight[];
  /** `cloud` on a hit the hybrid runtime merged in from the cloud (`recall.includeCloud`). */
  origin?: "cloud";
}
