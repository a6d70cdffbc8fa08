/**
 * The lexical engine: a BM25F index over the title, body and labels of notes,
 * with prefix matching on the last query word, pseudo-relevance feedback and a
 * proximity re-rank; its options, and the binary snapshot it is saved as.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "./mod.ts";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Limits", body: "GitHub rate_limit is 5000/h", labels: [], hash: "", created: "", updated: "" });
 * assert.deepEqual(index.search("rate limit", { limit: 3 })[0].matched, ["rate", "limit"]);
 * ```
 *
 * @module
 */

export * from "./lexical.ts";
export * from "./lexical_types.ts";
export * from "./snapshot_format.ts";
