/**
 * The tokenizer of lexical recall. One scanner serves the index and the
 * query parser, so both cut text the same way:
 *
 * - runs of letters and digits are tokens; everything else separates them;
 * - case and diacritics are folded (NFKD, combining diacritical marks dropped, NFC, lower case);
 * - identifiers are split: `rate-limit`, `rate_limit` and `rateLimit` give the
 *   parts `rate` and `limit` plus the joined form `ratelimit`;
 * - an apostrophe inside a word stays in it (`don't`, typographic `’` written
 *   `'`), a possessive `'s` is dropped (`Caroline's` → `caroline`);
 * - Han, Hiragana, Katakana and Hangul characters give one token each plus one
 *   per pair of neighbours (bigrams), since those scripts do not separate words;
 * - each emoji is a token.
 *
 * The scanner runs on char codes; pure-ASCII runs never build an intermediate string. It hands each
 * token to a {@linkcode TokenSink} as a range of a source string whose characters, with ASCII upper
 * case lowered and the joiners `-` and `_` skipped, spell the token (see {@linkcode tokenText}).
 *
 * @module
 */

import { APOS, CLASS, classOf, JOIN, RE_MARKS, SEP } from "./_charclass.ts";
import { tokenText } from "./_tokens.ts";
import { type Scan, scanTokens, scanUnit } from "./_scanner.ts";

export * from "./_tokens.ts";
export { endsPlainWord, scanAt, scanTokens } from "./_scanner.ts";

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
 * Cuts text into folded tokens, as {@linkcode tokenize} does, each with the UTF-16 range
 * `[start, end)` of the original text it was read from, so that `text.slice(start, end)` is the
 * word as written (`Café`, `rate` and `Limit` of `rateLimit`). A joined form spans its parts;
 * combining marks that folding drops stay inside the span of their letter. When folding a run
 * changes it too much to map back character by character, its tokens span the whole run.
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
 * The offset map of the run `text[from, to)` as `scanFolded` folds it: each code point folded
 * alone, when the pieces add up to the run folded whole; else every offset maps to the whole run.
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
