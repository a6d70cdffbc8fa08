/**
 * The vector engine: an index of int8-coded unit vectors searched by cosine
 * similarity, with an exact re-rank of the best candidates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VectorIndex } from "./mod.ts";
 * const index = new VectorIndex(2);
 * index.set("a", new Float32Array([1, 0]));
 * index.set("b", new Float32Array([0, 1]));
 * assert.equal(index.search(new Float32Array([0.9, 0.1]), { limit: 1 })[0].id, "a");
 * ```
 *
 * @module
 */

export * from "./vector.ts";
