/**
 * A recall with its engine and coverage, from a runtime or memory client that may give hits only.
 *
 * @module
 */

import type { RecallEngine, RecallHit, RecallResult } from "./types.ts";

/**
 * A recall with its engine and coverage, from a runtime or memory client that may give hits only:
 * its own `recallDetailed` when it has one, else its `recall`, with the engine the hits name (else
 * the one asked for, `lexical` for `auto`) and no coverage known.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallDetailedOf } from "./recall_detailed.ts";
 * const hitsOnly = { recall: () => Promise.resolve([]) };
 * assert.deepEqual(await recallDetailedOf(hitsOnly, "deploy", { engine: "auto" }), {
 *   hits: [],
 *   engine: "lexical",
 *   coverage: { embedded: 0, total: 0 },
 * });
 * assert.equal((await recallDetailedOf(hitsOnly, "deploy", { engine: "vector" })).engine, "vector");
 * ```
 */
export function recallDetailedOf<O extends { engine?: RecallEngine }>(
  source: {
    recall(query: string, options: O): Promise<RecallHit[]>;
    recallDetailed?(query: string, options: O): Promise<RecallResult>;
  },
  query: string,
  options: O,
): Promise<RecallResult> {
  // The detailed call's own promise, without an async frame around it (it sits on every recall).
  if (!source.recallDetailed) return fromHits(source, query, options);
  try {
    return source.recallDetailed(query, options);
  } catch (e) {
    return Promise.reject(e);
  }
}

async function fromHits<O extends { engine?: RecallEngine }>(
  source: { recall(query: string, options: O): Promise<RecallHit[]> },
  query: string,
  options: O,
): Promise<RecallResult> {
  const hits = await source.recall(query, options);
  const asked = options.engine;
  const engine = hits[0]?.engine ?? (asked === undefined || asked === "auto" ? "lexical" : asked);
  return { hits, engine, coverage: { embedded: 0, total: 0 } };
}
