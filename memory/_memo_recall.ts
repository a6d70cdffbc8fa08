/**
 * Internal: one recall of the `Memo` client: the engine that runs (`auto` resolved), the answer
 * cache, and the lexical hits. The `vector` and `hybrid` engines hand over to
 * `vectors/semantic_recall.ts` (imported at their first recall); the lexical engine loads and runs no
 * embedding code.
 *
 * @module
 */

import { MemoryValidationError } from "./errors.ts";
import { normalizeLabels, noteFilter } from "./notes/note.ts";
import type { LexicalIndex, RecallEngine, RecallHit } from "./recall/types.ts";
import type { FusionOptions } from "./recall/fusion.ts";
import { highlightsOf, matchedIndexTerms } from "./recall/highlights.ts";
import type { RecallCache } from "./_recall_cache.ts";
import type { NoteMirror } from "./_note_mirror.ts";
import type { MemoEmbeddings } from "./vectors/seam.ts";
import {
  checkEngine,
  checkLimit,
  notesFilter,
  onlyHidesSuperseded,
  withAction,
} from "./_memo_checks.ts";
import { historyColumnsOf } from "./history/columns.ts";
import { checkHistoryFilter } from "./history/history.ts";
import { DEFAULT_RECALL_LIMIT, type RecallOptions, type RecallResult } from "./memo_types.ts";

/**
 * What a recall reads: the client's default engine, its notes, indexes and answer cache.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RecallParts } from "./_memo_recall.ts";
 * const engine: RecallParts["engine"] = "auto";
 * assert.equal(engine, "auto");
 * ```
 */
export interface RecallParts {
  /** The engine when the call names none. */
  engine: RecallEngine;
  /** The notes, caught up before the search. */
  mirror: NoteMirror;
  index: LexicalIndex;
  /** The embedding side (vector engines and `auto`'s choice). */
  embeddings: MemoEmbeddings;
  /** Answers since the notes last changed. */
  answers: RecallCache<RecallResult>;
  fusion: FusionOptions;
}

/**
 * Ranked notes for a query, with the engine that ran and the vector coverage (what
 * `Memo.recallDetailed` answers).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore } from "./store/file_store.ts";
 * import { createLexicalIndex } from "./recall/lexical/lexical.ts";
 * import { DEFAULT_FUSION } from "./recall/fusion.ts";
 * import { ChangeFeed } from "./_change_feed.ts";
 * import { RecallCache } from "./_recall_cache.ts";
 * import { NoteMirror } from "./_note_mirror.ts";
 * import { Embeddings } from "./vectors/embeddings.ts";
 * import { recallNotes } from "./_memo_recall.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new FileMemoryStore({ rootDir: dir });
 * await store.load();
 * await store.commit({ notes: [{ text: "Deploys run with make deploy" }, { text: "Lunch at noon" }] });
 * const index = createLexicalIndex();
 * const embeddings = new Embeddings({ enabled: false, background: false });
 * const answers = new RecallCache<never>(8);
 * const mirror: NoteMirror = new NoteMirror({
 *   store, index, embeddings, answers, feed: new ChangeFeed(() => mirror.sync(), 250),
 * });
 * const parts = { engine: "auto" as const, mirror, index, embeddings, answers, fusion: DEFAULT_FUSION };
 * const result = await recallNotes(parts, "how do deploys run");
 * assert.equal(result.engine, "lexical");
 * assert.equal(result.hits[0].note.title, "Deploys run with make deploy");
 * await assert.rejects(recallNotes(parts, "deploys", { engine: "vector" }), {
 *   message: "Cannot recall with the vector engine: local embeddings are off (recall.localEmbeddings is false)",
 * });
 * await store.close?.();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function recallNotes(
  parts: RecallParts,
  query: string,
  options: RecallOptions = {},
): Promise<RecallResult> {
  if (typeof query !== "string" || query.trim() === "") {
    throw new MemoryValidationError("Cannot recall: query is empty");
  }
  const limit = checkLimit(options.limit ?? DEFAULT_RECALL_LIMIT, "recall");
  const history = checkHistoryFilter(options, "recall");
  const asked = checkEngine(options.engine ?? parts.engine);
  const embeddings = parts.embeddings;
  if (asked === "vector" || asked === "hybrid") {
    try {
      await embeddings.load();
    } catch (e) {
      throw withAction(e, `Cannot recall with the ${asked} engine`);
    }
  } else if (asked === "auto" && !embeddings.fusable) {
    await embeddings.fromCache().catch(() => {});
  }
  await parts.mirror.sync();
  const engine = asked === "auto" ? (embeddings.fusable ? "hybrid" : "lexical") : asked;
  const key = JSON.stringify([
    query,
    limit,
    engine,
    options.labels ? normalizeLabels(options.labels) : [],
    options.source?.trim() ?? "",
    options.explain === true,
    engine === "lexical" ? 0 : embeddings.version,
    history,
    // The scope filter: without it, a recall narrowed to one scope answered every later recall.
    options.scope === undefined ? [] : [options.scope].flat().sort(),
  ]);
  const known = parts.answers.get(key);
  // The hits hold until the notes change; the coverage moves with every embedded batch.
  if (known) {
    return {
      ...known,
      hits: known.hits.slice(),
      coverage: embeddings.coverage(parts.mirror.notes.size),
    };
  }
  const mirror = parts.mirror;
  const filter = notesFilter(options, history, mirror);
  // Hiding superseded notes alone needs no note: one lookup of the id.
  const onlyId = onlyHidesSuperseded(options, history, mirror);
  const byId = onlyId
    ? (id: string) => mirror.supersededBy(id) === undefined
    : filter && ((id: string) => filter(mirror.notes.get(id)!));
  const explain = options.explain === true;
  // Fusion looks deeper than the page, so that a note ranked low by one engine and high by
  // the other can still make it.
  const depth = engine === "hybrid" ? Math.max(limit * 5, 50) : limit;
  const lexical = engine === "vector" ? [] : parts.index.search(query, {
    limit: depth,
    // The lexical index holds the notes themselves: a note filter needs no lookup by id.
    ...(onlyId || !filter ? { filter: byId } : { noteFilter: filter }),
    // What the history filter needs of each note, kept by doc number: most candidates are
    // settled without reading their note (only when no label or source filter joins it).
    docCheck: filter && !noteFilter(options)
      ? historyColumnsOf(parts.index).check(history, mirror)
      : undefined,
    explain,
  });
  let hits: RecallHit[] = [];
  if (engine === "lexical") {
    lexical.forEach((hit, i) => {
      const note = mirror.notes.get(hit.id);
      if (!note) return;
      const item: RecallHit = { note, score: hit.score, engine, matched: hit.matched };
      if (explain) {
        if (hit.explain) item.explain = hit.explain;
        item.parts = { lexical: { rank: i + 1, score: hit.score } };
        item.highlights = highlightsOf(note, matchedIndexTerms(hit.explain ?? []));
      }
      hits.push(item);
    });
  } else {
    // The vector side's code loads with the first vector or hybrid recall.
    const { semanticHits } = await import("./vectors/semantic_recall.ts");
    hits = await semanticHits(embeddings, query, lexical, (id) => mirror.notes.get(id), {
      engine,
      limit,
      depth,
      filter: byId,
      explain,
      fusion: parts.fusion,
    });
  }
  // Superseded notes (kept with includeSuperseded or asOf) say what supersedes them.
  if (mirror.decorates) hits = hits.map((h) => ({ ...h, note: mirror.withLinks(h.note) }));
  const result: RecallResult = {
    hits,
    engine,
    coverage: embeddings.coverage(mirror.notes.size),
  };
  parts.answers.set(key, result);
  return { ...result, hits: hits.slice() };
}
