/**
 * A `Memo`'s embedding side. Only `auto_engine.ts` and `lazy_embeddings.ts` load at start; the
 * rest is imported when vectors are needed, so files of the package import these by path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { autoEngineOf } from "./mod.ts";
 * assert.equal(autoEngineOf({}).engine, "lexical");
 * ```
 *
 * @module
 */

export * from "./auto_engine.ts";
export * from "./lazy_embeddings.ts";
export * from "./seam.ts";
export * from "./embed_types.ts";
export * from "./embeddings.ts";
export * from "./semantic_recall.ts";
export * from "./cache.ts";
export * from "./cache_format.ts";
