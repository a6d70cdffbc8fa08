/**
 * Internal: the `vector` and `hybrid` engines of `Memo.recallDetailed`: the query's vector, the
 * cosine top-k over the embedded notes, and their hits (alone, or fused with the lexical hits by
 * reciprocal rank). The lexical engine never reaches this file; it is embedding code, like the
 * embedding side behind `MemoEmbeddings`.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import type { LexicalHit, RecallHit } from "../recall/types.ts";
import { fuseRankings, type FusionOptions } from "../recall/fusion.ts";
import { highlightsOf, matchedIndexTerms } from "../recall/highlights.ts";
import type { MemoEmbeddings } from "./seam.ts";

/**
 * How {@linkcode semanticHits} ranks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION } from "../recall/fusion.ts";
 * import type { SemanticRecallOptions } from "./semantic_recall.ts";
 * const options: SemanticRecallOptions = {
 *   engine: "hybrid", limit: 10, depth: 50, filter: undefined, explain: false, fusion: DEFAULT_FUSION,
 * };
 * assert.equal(options.depth, 50);
 * ```
 */
export interface SemanticRecallOptions {
  engine: "vector" | "hybrid";
  /** Hits wanted (hybrid stops there; vector gets `depth`, which is the limit then). */
  limit: number;
  /** Vector candidates looked at. */
  depth: number;
  /** Which note ids may be hit (all when undefined). */
  filter: ((id: string) => boolean) | undefined;
  /** Add each hit's parts and highlights. */
  explain: boolean;
  /** The reciprocal-rank fusion's settings (hybrid). */
  fusion: FusionOptions;
}

/**
 * The hits of the `vector` or `hybrid` engine for `query`, given the lexical hits (none for
 * `vector`) and the lookup of a note by id (done as the hits are built). No vector hit when no embedder is ready to embed the query.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION } from "../recall/fusion.ts";
 * import { Embeddings } from "./embeddings.ts";
 * import { semanticHits } from "./semantic_recall.ts";
 * const embedder = {
 *   model: "toy",
 *   dimensions: 2,
 *   embed: (texts: readonly string[]) =>
 *     Promise.resolve(texts.map((t) => new Float32Array(t.includes("deploy") ? [1, 0] : [0, 1]))),
 * };
 * const note = { id: "a", title: "Deploys", body: "deploy on Fridays", labels: [], hash: "", created: "", updated: "" };
 * const embeddings = new Embeddings({ enabled: true, embedder, background: false });
 * embeddings.upsert(note);
 * await embeddings.embedAll();
 * const hits = await semanticHits(embeddings, "deploy", [], (id) => id === "a" ? note : undefined, {
 *   engine: "vector", limit: 5, depth: 5, filter: undefined, explain: true, fusion: DEFAULT_FUSION,
 * });
 * assert.equal(hits[0].note.id, "a");
 * assert.equal(hits[0].parts?.vector?.rank, 1);
 * await embeddings.close();
 * ```
 */
export async function semanticHits(
  embeddings: Pick<MemoEmbeddings, "queryVector" | "search">,
  query: string,
  lexical: readonly LexicalHit[],
  noteOf: (id: string) => Note | undefined,
  options: SemanticRecallOptions,
): Promise<RecallHit[]> {
  const { engine, limit, depth, filter, explain } = options;
  let vector: { id: string; similarity: number }[] = [];
  const q = await embeddings.queryVector(query);
  if (q) vector = embeddings.search(q, { limit: depth, filter });
  const hits: RecallHit[] = [];
  if (engine === "vector") {
    vector.forEach((hit, i) => {
      const note = noteOf(hit.id);
      if (!note) return;
      const item: RecallHit = { note, score: hit.similarity, engine, matched: [] };
      if (explain) {
        item.parts = { vector: { rank: i + 1, similarity: hit.similarity } };
        item.highlights = [];
      }
      hits.push(item);
    });
  } else {
    const lexById = new Map(lexical.map((h) => [h.id, h]));
    const vecById = new Map(vector.map((h) => [h.id, h]));
    const fused = fuseRankings(lexical.map((h) => h.id), vector.map((h) => h.id), options.fusion);
    for (const f of fused) {
      if (hits.length >= limit) break;
      const note = noteOf(f.id);
      if (!note) continue;
      const lex = lexById.get(f.id);
      const vec = vecById.get(f.id);
      const item: RecallHit = { note, score: f.score, engine, matched: lex?.matched ?? [] };
      if (explain) {
        if (lex?.explain) item.explain = lex.explain;
        item.parts = { fused: f.score };
        if (lex) item.parts.lexical = { rank: f.lexicalRank!, score: lex.score };
        if (vec) item.parts.vector = { rank: f.vectorRank!, similarity: vec.similarity };
        item.highlights = lex ? highlightsOf(note, matchedIndexTerms(lex.explain ?? [])) : [];
      }
      hits.push(item);
    }
  }
  return hits;
}
