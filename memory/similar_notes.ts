/**
 * Internal: the `similar` answer of `Memo.remember`: the stored notes most like a note just
 * written. Candidates come from the lexical index (the note's text as the query) and, when an
 * embedder is loaded already, from the vector index over the notes embedded so far; each is
 * scored with `similarity` (and, with vectors, the cosine similarity mapped onto the same
 * scale). Vectors join only when `auto` fuses (so not with `use-lite`, whose vectors add too
 * little here as in recall; see `bench/README.md`). It never loads a model, waits at most
 * {@linkcode VECTOR_WAIT_MS} for the note's own vector, and superseded notes are not candidates.
 *
 * @module
 */

import type { Note } from "./notes/note.ts";
import type { LexicalIndex } from "./recall/types.ts";
import type { MemoEmbeddings } from "./vectors/seam.ts";
import type { HistoryLookup } from "./history/history.ts";
import { historyColumnsOf, type LinksView } from "./history/columns.ts";
import { distinctWords, SIMILAR_THRESHOLD, similarity } from "./similarity.ts";
import { type TextProfile, textProfile } from "./text_profile.ts";
import type { SimilarNote } from "./history/types.ts";

/** Most similar notes `remember` lists. */
export const MAX_SIMILAR = 3;
/** Candidates taken from each index. */
const CANDIDATES = 10;
/** Characters of the note's text used as the lexical query. */
const QUERY_CHARS = 600;
/** Its rarest terms searched for (a near-duplicate shares them). */
const QUERY_TERMS = 8;

/**
 * Cosine similarity (of the embedding model) at or above which a note is similar on meaning
 * alone, and the cosine that maps to a score of 1: between them the score rises linearly from
 * {@linkcode SIMILAR_THRESHOLD}.
 */
export const VECTOR_SIMILAR = { from: 0.8, full: 0.95 };

const profiles = new WeakMap<Note, TextProfile>();

/**
 * The profile of a note's title and body (cached per note object).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteProfile } from "./similar_notes.ts";
 * const note = { id: "a", title: "Deploys", body: "Deploys run on Fridays", labels: [], hash: "", created: "", updated: "" };
 * assert.equal(noteProfile(note), noteProfile(note));
 * assert.deepEqual(noteProfile(note).words, ["deploy", "run", "friday"]);
 * ```
 */
export function noteProfile(note: Note): TextProfile {
  let profile = profiles.get(note);
  if (!profile) {
    profile = textProfile(noteText(note));
    profiles.set(note, profile);
  }
  return profile;
}

/** The text a note is compared by: its title (unless the body begins with it) and body. */
export function noteText(note: Note): string {
  return note.body.startsWith(note.title) ? note.body : `${note.title}\n${note.body}`;
}

/**
 * What {@linkcode similarNotes} reads: the notes, the lexical index, and the embedding side.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SimilarParts } from "./similar_notes.ts";
 * const parts: Partial<SimilarParts> = {};
 * assert.equal(parts.embeddings, undefined);
 * ```
 */
export interface SimilarParts {
  /** The notes as stored, and which are superseded. */
  notes: HistoryLookup;
  index: LexicalIndex;
  /** The embedding side; only an embedder loaded already is used. */
  embeddings: Pick<MemoEmbeddings, "queryVector" | "search">;
  /**
   * Compare vectors too: when `auto` fuses (a model worth it; with `use-lite` it stays lexical),
   * or when a benchmark asks.
   */
  vectors: boolean;
  /**
   * Lowest score listed (a benchmark sweeps it).
   * @default SIMILAR_THRESHOLD
   */
  threshold?: number;
}

/** Longest wait for the new note's own vector; after it, `similar` is lexical. */
export const VECTOR_WAIT_MS = 50;

/**
 * The stored notes most like `note` (itself, the notes it supersedes and superseded notes left
 * out): at most {@linkcode MAX_SIMILAR}, each scoring at least {@linkcode SIMILAR_THRESHOLD}, most
 * similar first. `held`: the index holds `note` already (a note just written); see
 * {@linkcode LexicalSimilarParts.held}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { similarNotes } from "./similar_notes.ts";
 * const note = (id: string, body: string) => ({ id, title: body, body, labels: [], hash: "", created: "", updated: "" });
 * const notes = [note("a", "The audit log is kept for 12 months."), note("b", "Lunch is at noon."), note("c", "Audit logs are kept 12 months.")];
 * const index = createLexicalIndex();
 * for (const n of notes) index.add(n);
 * const byId = new Map(notes.map((n) => [n.id, n]));
 * const parts = {
 *   notes: { get: (id: string) => byId.get(id), supersededBy: () => undefined },
 *   index,
 *   embeddings: { queryVector: () => Promise.resolve(undefined), search: () => [] },
 *   vectors: false,
 * };
 * const similar = await similarNotes(parts, notes[2]);
 * assert.deepEqual(similar.map((s) => s.id), ["a"]);
 * ```
 */
export async function similarNotes(
  parts: SimilarParts,
  note: Note,
  held = true,
): Promise<SimilarNote[]> {
  const { scores, mine, eligible } = lexicalScores(parts, note, held);
  const text = noteText(note);
  const vector = parts.vectors ? await vectorOf(parts.embeddings, text) : undefined;
  if (vector) {
    for (const hit of parts.embeddings.search(vector, { limit: CANDIDATES, filter: eligible })) {
      const fromVector = vectorScore(hit.similarity);
      const other = parts.notes.get(hit.id);
      if (!other) continue;
      const lexical = scores.get(hit.id) ?? similarity(mine, noteProfile(other)).score;
      scores.set(hit.id, Math.max(lexical, fromVector));
    }
  }
  return rankSimilar(parts, scores);
}

/**
 * {@linkcode similarNotes} on the lexical side alone, for a note the index and the notes do not
 * hold yet (a note being written): the same answer they give once they hold it and nothing else
 * changed, but for the BM25 weights that pick the candidates, which count one note fewer. It
 * runs at once (`Memo.remember` runs it while the write's fsync does).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { similarNotesBeforeWrite } from "./similar_notes.ts";
 * const note = (id: string, body: string) => ({ id, title: body, body, labels: [], hash: "", created: "", updated: "" });
 * const index = createLexicalIndex();
 * const stored = note("a", "The audit log is kept for 12 months.");
 * index.add(stored);
 * const parts = {
 *   notes: { get: (id: string) => id === "a" ? stored : undefined, supersededBy: () => undefined },
 *   index,
 *   embeddings: { queryVector: () => Promise.resolve(undefined), search: () => [] },
 *   vectors: false,
 * };
 * const similar = similarNotesBeforeWrite(parts, note("b", "Audit logs are kept 12 months."));
 * assert.deepEqual(similar.map((s) => s.id), ["a"]);
 * ```
 */
export function similarNotesBeforeWrite(parts: SimilarParts, note: Note): SimilarNote[] {
  return rankSimilar(parts, lexicalScores(parts, note, false).scores);
}

/**
 * The lexical candidates of `note` and their scores. `held`: the index and the notes hold the
 * note already (it is left out of what it finds, and so are the words only it has).
 */
function lexicalScores(parts: SimilarParts, note: Note, held: boolean) {
  const skip = new Set([note.id, ...(note.supersedes ?? [])]);
  const eligible = (id: string) => !skip.has(id) && parts.notes.supersededBy(id) === undefined;
  const scores = new Map<string, number>();
  const hits = parts.index.search(queryOf(noteText(note)), {
    limit: CANDIDATES,
    filter: eligible,
    docCheck: quickEligible(parts, note, held),
    plain: true,
    maxTerms: QUERY_TERMS,
    minNotes: held ? 2 : 1,
  });
  const mine = noteProfile(note);
  // A note that holds under a quarter of the rarest words searched for cannot be as alike as
  // the threshold asks: it is not compared (comparing costs its profile).
  const least = Math.max(1, Math.ceil(Math.min(QUERY_TERMS, distinctWords(mine).length) / 4));
  for (const hit of hits) {
    if (hit.matched.length < least) continue;
    const other = parts.notes.get(hit.id);
    if (other) scores.set(hit.id, similarity(mine, noteProfile(other)).score);
  }
  return { scores, mine, eligible };
}

/** The scores at or above the threshold, best first, at most {@linkcode MAX_SIMILAR}. */
function rankSimilar(parts: SimilarParts, scores: Map<string, number>): SimilarNote[] {
  const threshold = parts.threshold ?? SIMILAR_THRESHOLD;
  const ranked = [...scores].filter(([, score]) => score >= threshold)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_SIMILAR);
  return ranked.map(([id, score]) => ({ id, title: parts.notes.get(id)!.title, score }));
}

/**
 * `eligible` by doc number, reading no note (the history columns): the note itself (the object
 * the index holds) is dropped, superseded notes too (the notes it supersedes among them, once
 * its links are held); the rest is eligible. Undefined (`eligible` asks for each) when the
 * notes do not say when their links change, when they should hold the note (`held`) and do
 * not, or when a note not held yet supersedes another.
 */
function quickEligible(
  parts: SimilarParts,
  note: Note,
  held: boolean,
): ((notes: readonly (Note | undefined)[], doc: number) => number) | undefined {
  const links = parts.notes as HistoryLookup & Partial<LinksView>;
  if (links.linksVersion === undefined) return undefined;
  let own: Note | undefined;
  if (held) {
    own = parts.notes.get(note.id);
    if (!own) return undefined;
    for (const id of note.supersedes ?? []) {
      if (!links.supersededBy(id)?.includes(note.id)) return undefined;
    }
  } else if (note.supersedes?.length) return undefined;
  const hidden = historyColumnsOf(parts.index).check(
    { includeSuperseded: false },
    links as LinksView,
  )!;
  return own ? (notes, d) => notes[d] === own ? -1 : hidden(notes, d) : hidden;
}

/**
 * The text's vector from an embedder loaded already, if it comes within
 * {@linkcode VECTOR_WAIT_MS} (a busy embedder does not hold up the write's answer).
 */
async function vectorOf(
  embeddings: Pick<MemoEmbeddings, "queryVector">,
  text: string,
): Promise<Float32Array | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), VECTOR_WAIT_MS);
  });
  try {
    return await Promise.race([embeddings.queryVector(text, false).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A cosine similarity on the score's scale: 0 below `from`, then linear up to 1 at `full`. */
function vectorScore(cosine: number): number {
  const { from, full } = VECTOR_SIMILAR;
  if (cosine < from) return 0;
  const s = SIMILAR_THRESHOLD + (1 - SIMILAR_THRESHOLD) * (cosine - from) / (full - from);
  return Math.round(Math.min(1, s) * 1000) / 1000;
}

/** The start of the text, cut at a word boundary: a query of bounded cost. */
function queryOf(text: string): string {
  if (text.length <= QUERY_CHARS) return text;
  const cut = text.slice(0, QUERY_CHARS);
  const space = cut.lastIndexOf(" ");
  return space > QUERY_CHARS / 2 ? cut.slice(0, space) : cut;
}

/**
 * What {@linkcode lexicalSimilarNotes} reads: the notes as stored (and which are superseded),
 * and a lexical index over them. The index may hold notes without their text (a stand-in per
 * id); `notes.get` must give the whole note of every candidate it is asked for.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LexicalSimilarParts } from "@memo/memory";
 * const parts: Partial<LexicalSimilarParts> = { threshold: 0.5 };
 * assert.equal(parts.threshold, 0.5);
 * ```
 */
export interface LexicalSimilarParts {
  /** The notes as stored, and which are superseded. */
  notes: HistoryLookup;
  /** The lexical index over every note. */
  index: LexicalIndex;
  /**
   * Lowest score listed.
   * @default SIMILAR_THRESHOLD
   */
  threshold?: number;
  /**
   * Whether the index holds the note already (a note just written): it is then left out of
   * what it finds, and so are the words only it has.
   * @default true
   */
  held?: boolean;
}

/**
 * The `similar` answer of `Memo.remember` with embeddings off, for a store that keeps its own
 * lexical index (the cloud's PostgreSQL store ranks from an index without note text): the
 * stored notes most like `note` (itself, the notes it supersedes and superseded notes left out),
 * at most three, most similar first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex, lexicalSimilarNotes, type Note } from "@memo/memory";
 * const note = (id: string, body: string): Note => ({ id, title: body, body, labels: [], hash: "", created: "", updated: "" });
 * const notes = [note("a", "The audit log is kept for 12 months."), note("c", "Audit logs are kept 12 months.")];
 * const index = createLexicalIndex();
 * for (const n of notes) index.add(n);
 * const byId = new Map(notes.map((n) => [n.id, n]));
 * const lookup = { get: (id: string) => byId.get(id), supersededBy: () => undefined };
 * const similar = await lexicalSimilarNotes({ notes: lookup, index }, notes[1]);
 * assert.deepEqual(similar.map((s) => s.id), ["a"]);
 * ```
 */
export function lexicalSimilarNotes(
  parts: LexicalSimilarParts,
  note: Note,
): Promise<SimilarNote[]> {
  return similarNotes(
    {
      ...parts,
      embeddings: { queryVector: () => Promise.resolve(undefined), search: () => [] },
      vectors: false,
    },
    note,
    parts.held ?? true,
  );
}
