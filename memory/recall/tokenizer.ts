/**
 * The tokenizer of lexical recall. One scanner serves the index and the
 * query parser, so both cut text the same way:
 *
 * - runs of letters and digits are tokens; everything else separates them;
 * - case and diacritics are folded (NFKD, combining diacritical marks dropped,
 *   NFC, lower case);
 * - identifiers are split: `rate-limit`, `rate_limit` and `rateLimit` give the
 *   parts `rate` and `limit` plus the joined form `ratelimit`;
 * - an apostrophe inside a word stays in it (`don't`, typographic `’` written
 *   `'`), a possessive `'s` is dropped (`Caroline's` → `caroline`);
 * - Han, Hiragana, Katakana and Hangul characters give one token each plus one
 *   per pair of neighbours (bigrams), since those scripts do not separate words;
 * - each emoji is a token.
 *
 * The scanner runs on char codes; pure-ASCII runs never build an intermediate
 * string. It hands each token to a {@linkcode TokenSink} as a range of a source
 * string whose characters, with ASCII upper case lowered and the joiners `-`
 * and `_` skipped, spell the token (see {@linkcode tokenText}).
 *
 * @module
 */

import {
  APOS,
  CJK,
  CLASS,
  classOf,
  classOfPoint,
  DIGIT,
  EMOJI,
  HIGH,
  JOIN,
  LOWER,
  OTHER,
  RE_MARKS,
  SEP,
  UPPER,
} from "./_charclass.ts";

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
    let c = src.charCodeAt(i);
    if (c === 45 || c === 95) continue;
    if (c >= 65 && c <= 90) c += 32;
    else if (c === 0x2019 || c === 0x02bc) c = 39;
    out += String.fromCharCode(c);
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

/** State shared by the run scanners while one text is scanned. */
interface Scan {
  sink: TokenSink;
  position: number;
}

/**
 * Cuts `text` into tokens and hands each one to `sink`, in order. Returns the
 * number of positions used (words, parts, CJK characters and emoji; joined
 * forms and CJK pairs share a position).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanTokens, tokenText } from "@memo/memory";
 * const out: string[] = [];
 * const positions = scanTokens("Café rate-limit", (s, a, b) => out.push(tokenText(s, a, b)));
 * assert.deepEqual(out, ["cafe", "rate", "limit", "ratelimit"]);
 * assert.equal(positions, 3); // the joined form shares the position of `rate`
 * ```
 */
export function scanTokens(text: string, sink: TokenSink, position = 0): number {
  const scan: Scan = { sink, position };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let k = CLASS[c];
    if (k === 0) k = classOf(c);
    if (k === SEP || k === JOIN || k === APOS) i++;
    else i = scanUnit(text, i, scan);
  }
  return scan.position;
}

/**
 * Whether the char code `c`, following a run of ASCII letters and digits,
 * ends it as a plain word (a separator, not a joiner, apostrophe, capital or
 * letter of another script). Lets a caller take plain words on a fast path
 * and hand everything else to {@linkcode scanAt}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { endsPlainWord } from "./tokenizer.ts";
 * assert.equal(endsPlainWord(" ".charCodeAt(0)), true);
 * assert.equal(endsPlainWord("_".charCodeAt(0)), false);
 * ```
 */
export function endsPlainWord(c: number): boolean {
  let k = CLASS[c];
  if (k === 0) k = classOf(c);
  return k === SEP;
}

/**
 * Scans the one token unit (a run of word characters, or an emoji) that
 * starts at `start`, which must not be a separator, handing its tokens to
 * `sink` (positions counted from 0). Returns where the unit ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanAt, tokenText } from "./tokenizer.ts";
 * const out: string[] = [];
 * const end = scanAt("x rate_limit y", 2, (s, a, b) => out.push(tokenText(s, a, b)));
 * assert.equal(end, 12);
 * assert.deepEqual(out, ["rate", "limit", "ratelimit"]);
 * ```
 */
export function scanAt(text: string, start: number, sink: TokenSink): number {
  return scanUnit(text, start, { sink, position: 0 });
}

function scanUnit(text: string, start: number, scan: Scan): number {
  const n = text.length;
  const sink = scan.sink;
  let i = start;
  const c = text.charCodeAt(i);
  let k = CLASS[c];
  if (k === 0) k = classOf(c);
  if (k === SEP) return i + 1;
  if (k === HIGH) {
    const cp = text.codePointAt(i)!;
    if (cp < 0x10000) return i + 1; // a lone high surrogate
    const kp = classOfPoint(cp);
    if (kp === EMOJI) {
      sink(text, i, i + 2, scan.position++, TOKEN_EMOJI, hashToken(text, i, i + 2));
      return i + 2;
    }
    if (kp === SEP) return i + 2;
  } else if (k === EMOJI) {
    sink(text, i, i + 1, scan.position++, TOKEN_EMOJI, hashToken(text, i, i + 1));
    return i + 1;
  }
  // A run of word characters, joiners and apostrophes.
  let slow = false;
  let plain = true; // no joiner, apostrophe or inner capital: one word as it stands
  let h = HASH_SEED; // the hash of a plain word, computed on the way
  while (i < n) {
    const d = text.charCodeAt(i);
    let kd = CLASS[d];
    if (kd === 0) kd = classOf(d);
    if (kd === LOWER || kd === DIGIT) {
      h = Math.imul(h ^ d, HASH_PRIME);
      i++;
    } else if (kd === UPPER) {
      if (i > start) plain = false;
      h = Math.imul(h ^ (d + 32), HASH_PRIME);
      i++;
    } else if (kd === JOIN || kd === APOS) {
      plain = false;
      i++;
    } else if (kd === OTHER || kd === CJK) {
      slow = true;
      i++;
    } else if (kd === HIGH) {
      const cp = text.codePointAt(i)!;
      const kp = cp < 0x10000 ? SEP : classOfPoint(cp);
      if (kp !== OTHER && kp !== CJK) break;
      slow = true;
      i += 2;
    } else {
      break;
    }
  }
  if (slow) scanFolded(text.slice(start, i), scan);
  else if (!plain) scanRun(text, text, start, i, scan, false);
  else if (i - start <= MAX_TOKEN_LENGTH) sink(text, start, i, scan.position++, TOKEN_WORD, h);
  return i > start ? i : start + 1;
}

/** Folds a run holding non-ASCII characters, then scans it. */
function scanFolded(run: string, scan: Scan): void {
  const folded = run.normalize("NFKD").replace(RE_MARKS, "").normalize("NFC");
  const lower = folded.toLowerCase();
  // Case (for camelCase) is read from `folded`; tokens are spelled from `lower`.
  if (lower.length === folded.length) scanRun(folded, lower, 0, folded.length, scan, true);
  else scanRun(lower, lower, 0, lower.length, scan, true);
}

function kindAt(src: string, i: number, folded: boolean): number {
  const c = src.charCodeAt(i);
  let k = CLASS[c];
  if (k === 0) k = classOf(c);
  if (k === HIGH) {
    const cp = src.codePointAt(i)!;
    k = cp < 0x10000 ? SEP : classOfPoint(cp);
    if (k === OTHER || k === CJK) return folded ? HIGH : SEP; // a two-unit letter
  }
  if (!folded && (k === OTHER || k === CJK)) return SEP;
  return k;
}

function isAlnum(k: number): boolean {
  return k === LOWER || k === UPPER || k === DIGIT || k === OTHER || k === HIGH;
}

/**
 * Scans one run `[start, end)` of `src` (letters, digits, joiners,
 * apostrophes; in folded mode also other letters and CJK), reading case from
 * `src` and emitting ranges of `out` (same length as `src`).
 */
function scanRun(
  src: string,
  out: string,
  start: number,
  end: number,
  scan: Scan,
  folded: boolean,
): void {
  // Parts as [start, end) pairs; a chain of parts linked by joiners or case changes.
  const parts: number[] = [];
  let partStart = -1;
  let glued = false; // the previous character was a gluing apostrophe
  let i = start;
  const flush = () => {
    if (parts.length) emitChain(out, parts, scan);
    parts.length = 0;
  };
  while (i < end) {
    const k = kindAt(src, i, folded);
    const width = k === HIGH ? 2 : 1;
    if (k === CJK) {
      if (partStart >= 0) parts.push(partStart, i);
      partStart = -1;
      flush();
      const pos = scan.position++;
      scan.sink(out, i, i + 1, pos, TOKEN_CJK, hashToken(out, i, i + 1));
      if (i + 1 < end && kindAt(src, i + 1, folded) === CJK) {
        scan.sink(out, i, i + 2, pos, TOKEN_CJK_PAIR, hashToken(out, i, i + 2));
      }
      i++;
      continue;
    }
    if (isAlnum(k)) {
      if (partStart < 0) {
        partStart = i;
      } else if (!glued && k === UPPER) {
        // camelCase: lower or digit → Upper; or UPPER → Upper + lower (HTTPServer).
        const prev = kindAt(src, i - 1, folded);
        if (
          prev === LOWER || prev === DIGIT ||
          (prev === UPPER && i + 1 < end && kindAt(src, i + 1, folded) === LOWER)
        ) {
          parts.push(partStart, i);
          partStart = i;
        }
      }
      glued = false;
      i += width;
      continue;
    }
    if (k === APOS && partStart >= 0 && i + 1 < end && isAlnum(kindAt(src, i + 1, folded))) {
      const next = src.charCodeAt(i + 1);
      const after = i + 2 < end ? kindAt(src, i + 2, folded) : SEP;
      if ((next === 115 || next === 83) && !isAlnum(after)) {
        // Possessive 's: end the part and drop the suffix.
        parts.push(partStart, i);
        partStart = -1;
        flush();
        i += 2;
        continue;
      }
      glued = true; // don't stays one word
      i++;
      continue;
    }
    // A joiner (or an apostrophe that glues nothing): ends the part, keeps the chain.
    if (partStart >= 0) parts.push(partStart, i);
    partStart = -1;
    glued = false;
    if (k !== JOIN) flush();
    i++;
  }
  if (partStart >= 0) parts.push(partStart, end);
  flush();
}

function emitChain(out: string, parts: number[], scan: Scan): void {
  const count = parts.length >> 1;
  const sink = scan.sink;
  if (count === 1) {
    if (parts[1] - parts[0] <= MAX_TOKEN_LENGTH) {
      sink(
        out,
        parts[0],
        parts[1],
        scan.position++,
        TOKEN_WORD,
        hashToken(out, parts[0], parts[1]),
      );
    }
    return;
  }
  const first = scan.position;
  for (let p = 0; p < parts.length; p += 2) {
    if (parts[p + 1] - parts[p] > MAX_TOKEN_LENGTH) continue;
    sink(
      out,
      parts[p],
      parts[p + 1],
      scan.position++,
      TOKEN_PART,
      hashToken(out, parts[p], parts[p + 1]),
    );
  }
  // The joined form comes after its parts and shares the first part's position.
  const joinedEnd = parts[parts.length - 1];
  if (count <= MAX_JOINED_PARTS && joinedEnd - parts[0] <= MAX_TOKEN_LENGTH) {
    sink(out, parts[0], joinedEnd, first, TOKEN_JOINED, hashToken(out, parts[0], joinedEnd));
  }
}

/**
 * One token of {@linkcode tokenize}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Token, tokenize, TOKEN_WORD } from "@memo/memory";
 * const [token]: Token[] = tokenize("Crème");
 * assert.deepEqual(token, { text: "creme", position: 0, kind: TOKEN_WORD });
 * ```
 */
export interface Token {
  /** The folded text of the token. */
  text: string;
  /** Position in the text (joined forms and CJK pairs share their first part's). */
  position: number;
  /** One of the `TOKEN_*` kinds. */
  kind: number;
}

/**
 * Cuts text into folded tokens (no stop words removed, no stemming).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenize } from "@memo/memory";
 * assert.deepEqual(
 *   tokenize("The rateLimit hit Zoë's API").map((t) => t.text),
 *   ["the", "rate", "limit", "ratelimit", "hit", "zoe", "api"],
 * );
 * ```
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  scanTokens(text, (src, start, end, position, kind) => {
    tokens.push({ text: tokenText(src, start, end), position, kind });
  });
  return tokens;
}

/**
 * One token of {@linkcode tokenizeWithOffsets}: a {@linkcode Token} and where
 * it comes from in the original text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type SpannedToken, tokenizeWithOffsets } from "@memo/memory";
 * const [token]: SpannedToken[] = tokenizeWithOffsets("  Crème");
 * assert.deepEqual(token, { text: "creme", position: 0, kind: 0, start: 2, end: 7 });
 * ```
 */
export interface SpannedToken extends Token {
  /** UTF-16 offset in the original text where the token starts. */
  start: number;
  /** UTF-16 offset in the original text where it ends (exclusive). */
  end: number;
}

/**
 * Cuts text into folded tokens, as {@linkcode tokenize} does, each with the
 * UTF-16 range `[start, end)` of the original text it was read from, so that
 * `text.slice(start, end)` is the word as written (`Café`, `rate` and `Limit`
 * of `rateLimit`). A joined form spans its parts; combining marks that folding
 * drops stay inside the span of their letter. When folding a run changes it
 * too much to map back character by character, its tokens span the whole run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenizeWithOffsets } from "@memo/memory";
 * const text = "🚀 Café rateLimit";
 * const spans = tokenizeWithOffsets(text).map((t) => [t.text, text.slice(t.start, t.end)]);
 * assert.deepEqual(spans, [
 *   ["🚀", "🚀"],
 *   ["cafe", "Café"],
 *   ["rate", "rate"],
 *   ["limit", "Limit"],
 *   ["ratelimit", "rateLimit"],
 * ]);
 * ```
 */
export function tokenizeWithOffsets(text: string): SpannedToken[] {
  const tokens: SpannedToken[] = [];
  // Tokens of the current unit, buffered until the unit's end is known.
  const unit: { src: string; start: number; end: number; position: number; kind: number }[] = [];
  const scan: Scan = {
    sink: (src, start, end, position, kind) => unit.push({ src, start, end, position, kind }),
    position: 0,
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let k = CLASS[c];
    if (k === 0) k = classOf(c);
    if (k === SEP || k === JOIN || k === APOS) {
      i++;
      continue;
    }
    const unitStart = i;
    i = scanUnit(text, i, scan);
    if (!unit.length) continue;
    let map: FoldMap | undefined;
    for (const t of unit) {
      const token = { text: tokenText(t.src, t.start, t.end), position: t.position, kind: t.kind };
      if (t.src === text) {
        tokens.push({ ...token, start: t.start, end: t.end });
      } else {
        map ??= foldMap(text, unitStart, i);
        tokens.push({ ...token, start: map.start(t.start), end: map.end(t.end) });
      }
    }
    unit.length = 0;
  }
  return tokens;
}

/** Maps offsets of a folded run back to the original text. */
interface FoldMap {
  start(at: number): number;
  end(at: number): number;
}

/**
 * The offset map of the run `text[from, to)` as `scanFolded` folds it: each
 * code point folded alone, when the pieces add up to the run folded whole;
 * else every offset maps to the whole run.
 */
function foldMap(text: string, from: number, to: number): FoldMap {
  const whole: FoldMap = { start: () => from, end: () => to };
  const fold = (s: string) => s.normalize("NFKD").replace(RE_MARKS, "").normalize("NFC");
  const folded = fold(text.slice(from, to));
  const lower = folded.toLowerCase();
  // `scanFolded` emits offsets of `folded` when lower-casing keeps its length, else of `lower`.
  const useLower = lower.length !== folded.length;
  const space = useLower ? lower : folded;
  // origin[j]: the original offset of the code point that gave folded unit j.
  const origin: number[] = [];
  let built = "";
  for (let i = from; i < to;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    let piece = fold(text.slice(i, i + width));
    if (useLower) piece = piece.toLowerCase();
    for (let j = 0; j < piece.length; j++) origin.push(i);
    built += piece;
    i += width;
  }
  if (built !== space) return whole;
  // after[j]: the original offset of the first code point whose piece starts at or after
  // folded unit j (the marks that folding dropped stay with the letter before them).
  const after = new Array<number>(origin.length + 1);
  after[origin.length] = to;
  for (let j = origin.length - 1; j >= 0; j--) {
    after[j] = j > 0 && origin[j - 1] === origin[j] ? after[j + 1] : origin[j];
  }
  return { start: (at) => origin[at] ?? from, end: (at) => after[at] ?? to };
}
