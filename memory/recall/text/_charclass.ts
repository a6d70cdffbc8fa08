/**
 * Character classes of the tokenizer: a table over the UTF-16 code units, filled for ASCII up front
 * and for other characters the first time they are seen (from their Unicode properties), plus a
 * cache for code points outside the BMP.
 *
 * @module
 */

export const SEP = 1;
/** a–z. */
export const LOWER = 2;
/** A–Z. */
export const UPPER = 3;
/** 0–9. */
export const DIGIT = 4;
/** `-` or `_`. */
export const JOIN = 5;
/** an apostrophe (`'`, `’`, `ʼ`). */
export const APOS = 6;
/** A letter, digit or mark outside ASCII (not CJK). */
export const OTHER = 7;
/** A Han, Hiragana, Katakana or Hangul character. */
export const CJK = 8;
/** An emoji (Extended_Pictographic). */
export const EMOJI = 9;
/** A high surrogate: look at the code point. */
export const HIGH = 10;

/** Class of each UTF-16 code unit; 0 until first seen (see {@linkcode classOf}). */
export const CLASS: Uint8Array = new Uint8Array(65536);
for (let c = 0; c < 128; c++) {
  CLASS[c] = c >= 97 && c <= 122
    ? LOWER
    : c >= 65 && c <= 90
    ? UPPER
    : c >= 48 && c <= 57
    ? DIGIT
    : c === 45 || c === 95
    ? JOIN
    : c === 39
    ? APOS
    : SEP;
}
for (let c = 0xd800; c < 0xdc00; c++) CLASS[c] = HIGH;
for (let c = 0xdc00; c < 0xe000; c++) CLASS[c] = SEP; // a lone low surrogate
CLASS[0x2019] = APOS;
CLASS[0x02bc] = APOS;

const RE_EMOJI = /^\p{Extended_Pictographic}$/u;
const RE_CJK = /^[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]$/u;
const RE_WORD = /^[\p{L}\p{N}\p{M}]$/u;
// Emoji components and format characters that are no part of a word.
const RE_SKIP = /^[\u200c\u200d\ufe00-\ufe0f\u20e3\u{1f3fb}-\u{1f3ff}\u{e0000}-\u{e01ef}]$/u;
// Latin, Greek and Cyrillic accents; other marks, such as the kana voicing marks, are kept.
/** Combining diacritical marks, removed by folding. */
export const RE_MARKS: RegExp =
  /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+/g;
const ASTRAL = new Map<number, number>();

function classify(cp: number): number {
  const s = String.fromCodePoint(cp);
  if (RE_SKIP.test(s)) return SEP;
  if (RE_EMOJI.test(s)) return EMOJI;
  if (RE_CJK.test(s) && RE_WORD.test(s)) return CJK;
  if (RE_WORD.test(s)) return OTHER;
  return SEP;
}

/**
 * Class of a UTF-16 code unit (filling the table on first sight).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CJK, classOf, LOWER, OTHER } from "./_charclass.ts";
 * assert.equal(classOf("a".charCodeAt(0)), LOWER);
 * assert.equal(classOf("é".charCodeAt(0)), OTHER);
 * assert.equal(classOf("漢".charCodeAt(0)), CJK);
 * ```
 */
export function classOf(c: number): number {
  const k = CLASS[c];
  if (k !== 0) return k;
  return (CLASS[c] = classify(c));
}

/**
 * Class of a code point outside the BMP (cached).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classOfPoint, EMOJI } from "./_charclass.ts";
 * assert.equal(classOfPoint(0x1f680), EMOJI); // 🚀
 * ```
 */
export function classOfPoint(cp: number): number {
  let k = ASTRAL.get(cp);
  if (k === undefined) ASTRAL.set(cp, k = classify(cp));
  return k;
}
