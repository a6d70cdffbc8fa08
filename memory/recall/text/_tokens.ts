/**
 * What the tokenizer's scanner hands out: the token kinds (`TOKEN_*`), the
 * {@linkcode TokenSink} that receives them, their limits, their spelling
 * ({@linkcode tokenText}) and hash ({@linkcode hashToken}), and the folding of
 * case and diacritics ({@linkcode foldText}). `tokenizer.ts` re-exports them.
 *
 * @module
 */

import { RE_MARKS } from "./_charclass.ts";

/**
 * A word, or the only part of a run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_WORD } from "@memo/memory";
 * assert.deepEqual(tokenize("Deploy v2").map((t) => t.kind), [TOKEN_WORD, TOKEN_WORD]);
 * ```
 */
export const TOKEN_WORD = 0;
/**
 * One part of a split identifier (`rate` of `rate_limit`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_PART } from "@memo/memory";
 * const parts = tokenize("rate_limit").filter((t) => t.kind === TOKEN_PART);
 * assert.deepEqual(parts.map((t) => t.text), ["rate", "limit"]);
 * ```
 */
export const TOKEN_PART = 1;
/**
 * The joined form of a split identifier (`ratelimit`); it follows the last
 * part and shares the first part's position.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_JOINED } from "@memo/memory";
 * const tokens = tokenize("rateLimit");
 * assert.deepEqual(tokens[2], { text: "ratelimit", position: 0, kind: TOKEN_JOINED });
 * ```
 */
export const TOKEN_JOINED = 2;
/**
 * One character of a Han, Kana or Hangul run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_CJK } from "@memo/memory";
 * const chars = tokenize("東京").filter((t) => t.kind === TOKEN_CJK);
 * assert.deepEqual(chars.map((t) => [t.text, t.position]), [["東", 0], ["京", 1]]);
 * ```
 */
export const TOKEN_CJK = 3;
/**
 * Two neighbouring characters of a Han, Kana or Hangul run; shares the first one's position.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_CJK_PAIR } from "@memo/memory";
 * const pairs = tokenize("東京").filter((t) => t.kind === TOKEN_CJK_PAIR);
 * assert.deepEqual(pairs, [{ text: "東京", position: 0, kind: TOKEN_CJK_PAIR }]);
 * ```
 */
export const TOKEN_CJK_PAIR = 4;
/**
 * One emoji.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize, TOKEN_EMOJI } from "@memo/memory";
 * assert.deepEqual(tokenize("ship 🚀")[1], { text: "🚀", position: 1, kind: TOKEN_EMOJI });
 * ```
 */
export const TOKEN_EMOJI = 5;

/**
 * Receives the tokens of a text, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   hashToken,
 *   scanTokens,
 *   TOKEN_JOINED,
 *   TOKEN_PART,
 *   tokenText,
 *   type TokenSink,
 * } from "@memo/memory";
 * const seen: [string, number, number][] = [];
 * const sink: TokenSink = (src, start, end, position, kind, hash) => {
 *   assert.equal(hash, hashToken(src, start, end));
 *   seen.push([tokenText(src, start, end), position, kind]);
 * };
 * scanTokens("rateLimit", sink);
 * assert.deepEqual(seen, [
 *   ["rate", 0, TOKEN_PART],
 *   ["limit", 1, TOKEN_PART],
 *   ["ratelimit", 0, TOKEN_JOINED],
 * ]);
 * ```
 */
export type TokenSink = (
  src: string,
  start: number,
  end: number,
  position: number,
  kind: number,
  hash: number,
) => void;

/** FNV-1a offset basis of {@linkcode hashToken}. */
export const HASH_SEED = 0x811c9dc5 | 0;
/** FNV-1a prime of {@linkcode hashToken}. */
export const HASH_PRIME = 16777619;

/**
 * 32-bit FNV-1a hash of the token spelled by `src[start, end)` (see
 * {@linkcode tokenText}); the scanner hands the same value to its sink.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashToken } from "@memo/memory";
 * assert.equal(hashToken("Rate_Limit", 0, 10), hashToken("ratelimit", 0, 9));
 * ```
 */
export function hashToken(src: string, start: number, end: number): number {
  let h = HASH_SEED;
  for (let i = start; i < end; i++) {
    let c = src.charCodeAt(i);
    if (c === 45 || c === 95) continue;
    if (c >= 65 && c <= 90) c += 32;
    else if (c === 0x2019 || c === 0x02bc) c = 39;
    h = Math.imul(h ^ c, HASH_PRIME);
  }
  return h;
}

/**
 * Longest token kept, in UTF-16 code units; longer runs (blobs, hashes of hashes) are skipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_TOKEN_LENGTH, tokenize } from "@memo/memory";
 * assert.equal(tokenize("f".repeat(MAX_TOKEN_LENGTH)).length, 1);
 * assert.equal(tokenize("f".repeat(MAX_TOKEN_LENGTH + 1)).length, 0);
 * ```
 */
export const MAX_TOKEN_LENGTH = 64;
/**
 * Most parts of an identifier for which the joined form is also emitted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_JOINED_PARTS, tokenize, TOKEN_JOINED } from "@memo/memory";
 * const id = (parts: number) => Array.from({ length: parts }, (_, i) => `p${i}`).join("_");
 * const joined = (text: string) => tokenize(text).some((t) => t.kind === TOKEN_JOINED);
 * assert.ok(joined(id(MAX_JOINED_PARTS)));
 * assert.ok(!joined(id(MAX_JOINED_PARTS + 1)));
 * ```
 */
export const MAX_JOINED_PARTS = 8;

/**
 * The code unit `c` as a token spells it: ASCII upper case lowered, a typographic apostrophe (`’`,
 * `ʼ`) written `'`, and -1 for a joiner (`-`, `_`), which a token skips. The one rule that
 * {@linkcode tokenText}, the term dictionary and the text profiles share.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenCode } from "./_tokens.ts";
 *
 * assert.equal(tokenCode(65), 97); // "A" -> "a"
 * assert.equal(tokenCode(0x2019), 39); // "’" -> "'"
 * assert.equal(tokenCode(95), -1); // "_" is skipped
 * assert.equal(tokenCode(0xe9), 0xe9); // "é" stays
 * ```
 */
export function tokenCode(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c === 45 || c === 95) return -1;
  if (c === 0x2019 || c === 0x02bc) return 39;
  return c;
}

/**
 * Spells out a token range given to a {@linkcode TokenSink}: ASCII upper case
 * lowered, joiners skipped, typographic apostrophes written `'`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenText } from "@memo/memory";
 * assert.equal(tokenText("Rate_Limit", 0, 10), "ratelimit");
 * assert.equal(tokenText("don’t", 0, 5), "don't");
 * ```
 */
export function tokenText(src: string, start: number, end: number): string {
  let out = "";
  for (let i = start; i < end; i++) {
    const c = tokenCode(src.charCodeAt(i));
    if (c >= 0) out += String.fromCharCode(c);
  }
  return out;
}

/**
 * Folds text the way the tokenizer does: NFKD, combining diacritical marks
 * removed, recomposed (NFC), lower case.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { foldText } from "@memo/memory";
 * assert.equal(foldText("Crème Brûlée"), "creme brulee");
 * ```
 */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(RE_MARKS, "").normalize("NFC").toLowerCase();
}
