/**
 * Reciprocal-rank fusion: the hybrid engine's way of merging the lexical and
 * the vector ranking into one.
 *
 * @module
 */

/**
 * Settings of {@linkcode fuseRankings}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION, type FusionOptions } from "@memo/memory";
 * const options: FusionOptions = { ...DEFAULT_FUSION, k: 10 };
 * assert.equal(options.vectorWeight, DEFAULT_FUSION.vectorWeight);
 * ```
 */
export interface FusionOptions {
  /** The rank constant: a hit at rank `r` (1-based) adds `weight / (k + r)`. */
  k: number;
  /** Weight of the lexical ranking. */
  lexicalWeight: number;
  /** Weight of the vector ranking. */
  vectorWeight: number;
}

/**
 * The fusion settings memo uses, tuned with `use-lite` on the LoCoMo dev split only (a grid of
 * k and the vector weight; see bench/README.md, "Semantic recall"): a small k, and a quarter
 * weight for the vector side, whose ranking alone was much weaker than the lexical one there.
 * Give `fusion` to `openMemo` to weigh a stronger model more.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION } from "@memo/memory";
 * assert.deepEqual(DEFAULT_FUSION, { k: 2, lexicalWeight: 1, vectorWeight: 0.25 });
 * ```
 */
export const DEFAULT_FUSION: Readonly<FusionOptions> = Object.freeze({
  k: 2,
  lexicalWeight: 1,
  vectorWeight: 0.25,
});

/**
 * One fused hit: its score and where it ranked in each list (1-based; absent
 * when it is not in that list).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type FusedHit, fuseRankings } from "@memo/memory";
 * const [top]: FusedHit[] = fuseRankings(["a"], ["a"], { k: 1, lexicalWeight: 1, vectorWeight: 1 });
 * assert.deepEqual(top, { id: "a", score: 1, lexicalRank: 1, vectorRank: 1 });
 * ```
 */
export interface FusedHit {
  /** Id of the note. */
  id: string;
  /** The fused score (higher is better). */
  score: number;
  /** Rank in the lexical list. */
  lexicalRank?: number;
  /** Rank in the vector list. */
  vectorRank?: number;
}

/**
 * Fuses two rankings (ids, best first) by reciprocal rank: each list adds `weight / (k + rank)` to
 * the notes it holds. Ties go to the better lexical rank, then the better vector rank, then the
 * smaller id, so the order is stable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_FUSION, fuseRankings } from "@memo/memory";
 * // "b" is second in both lists; "a" is first lexically only; "c" first by vector only.
 * const even = { k: 60, lexicalWeight: 1, vectorWeight: 1 };
 * const fused = fuseRankings(["a", "b"], ["c", "b"], even);
 * assert.deepEqual(fused.map((h) => h.id), ["b", "a", "c"]);
 * assert.equal(fused[0].lexicalRank, 2);
 * assert.equal(fused[2].lexicalRank, undefined);
 * // memo's default leans on the lexical ranking.
 * assert.deepEqual(fuseRankings(["a", "b"], ["c", "b"], DEFAULT_FUSION).map((h) => h.id), ["a", "b", "c"]);
 * ```
 */
export function fuseRankings(
  lexical: readonly string[],
  vector: readonly string[],
  options: FusionOptions = DEFAULT_FUSION,
): FusedHit[] {
  const hits = new Map<string, FusedHit>();
  lexical.forEach((id, i) => {
    hits.set(id, { id, score: options.lexicalWeight / (options.k + i + 1), lexicalRank: i + 1 });
  });
  vector.forEach((id, i) => {
    const part = options.vectorWeight / (options.k + i + 1);
    const hit = hits.get(id);
    if (hit) {
      hit.score += part;
      hit.vectorRank = i + 1;
    } else hits.set(id, { id, score: part, vectorRank: i + 1 });
  });
  return [...hits.values()].sort((a, b) =>
    b.score - a.score ||
    (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) ||
    (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
