/**
 * Words of a text for recall: the tokenizer (Unicode folding, identifier splitting), the Porter2
 * stemmer with its irregular forms, and the English stop words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isStopWord, stemWord, tokenize } from "./mod.ts";
 * assert.deepEqual(tokenize("rateLimit").map((t) => t.text), ["rate", "limit", "ratelimit"]);
 * assert.equal(stemWord("running"), "run");
 * assert.equal(isStopWord("the"), true);
 * ```
 *
 * @module
 */

export * from "./tokenizer.ts";
export * from "./stemmer.ts";
export * from "./irregular.ts";
export * from "./stopwords.ts";
