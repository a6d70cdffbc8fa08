/**
 * The recall engines of `@memo/memory`. The lexical engine is a BM25F index over the title, body
 * and labels of notes, with Unicode folding, identifier splitting, Porter2 stemming, English stop
 * words, prefix matching on the last query word, pseudo-relevance feedback and a proximity re-rank.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "@memo/memory";
 * const index = createLexicalIndex();
 * index.add({ id: "a", title: "Limits", body: "GitHub rate_limit is 5000/h", labels: [], hash: "", created: "", updated: "" });
 * assert.deepEqual(index.search("rate limit", { limit: 3 })[0].matched, ["rate", "limit"]);
 * ```
 *
 * @module
 */

export * from "./types.ts";
export {
  type Bm25LexicalIndex,
  createLexicalIndex,
  LEXICAL_SNAPSHOT_VERSION,
  type LexicalIndexOptions,
  lexicalOptionsKey,
  type LexicalSnapshot,
  type LexicalSnapshotOptions,
  type ResolvedLexicalOptions,
} from "./lexical/lexical.ts";
export {
  decodeSnapshot as decodeLexicalSnapshot,
  encodeSnapshot as encodeLexicalSnapshot,
} from "./lexical/snapshot_format.ts";
export {
  foldText,
  hashToken,
  MAX_JOINED_PARTS,
  MAX_TOKEN_LENGTH,
  scanTokens,
  type SpannedToken,
  type Token,
  TOKEN_CJK,
  TOKEN_CJK_PAIR,
  TOKEN_EMOJI,
  TOKEN_JOINED,
  TOKEN_PART,
  TOKEN_WORD,
  tokenize,
  tokenizeWithOffsets,
  type TokenSink,
  tokenText,
} from "./text/tokenizer.ts";
export { ENGLISH_STOP_WORDS, isStopWord } from "./text/stopwords.ts";
export * from "./highlights.ts";
export { analyzeToken, stemWord } from "./text/stemmer.ts";
export { IRREGULAR_FORMS } from "./text/irregular.ts";
export {
  DEFAULT_VECTOR_CANDIDATES,
  type VectorHit,
  VectorIndex,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from "./vector/vector.ts";
