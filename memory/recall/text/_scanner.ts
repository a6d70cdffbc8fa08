/**
 * The tokenizer's scanner: it walks the char codes of a text, splits identifiers into parts and
 * joined forms, folds runs that hold non-ASCII letters, pairs CJK characters, and hands each token
 * to a {@linkcode TokenSink}. `tokenizer.ts` re-exports its entry points.
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
import {
  HASH_PRIME,
  HASH_SEED,
  hashToken,
  MAX_JOINED_PARTS,
  MAX_TOKEN_LENGTH,
  TOKEN_CJK,
  TOKEN_CJK_PAIR,
  TOKEN_EMOJI,
  TOKEN_JOINED,
  TOKEN_PART,
  TOKEN_WORD,
  type TokenSink,
} from "./_tokens.ts";

/**
 * State shared by the run scanners while one text is scanned.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Scan, scanUnit } from "./_scanner.ts";
 * const scan: Scan = { sink: () => {}, position: 5 };
 * scanUnit("rate_limit", 0, scan);
 * assert.equal(scan.position, 7); // two parts; the joined form shares the first's position
 * ```
 */
export interface Scan {
  sink: TokenSink;
  position: number;
}

/**
 * Cuts `text` into tokens and hands each one to `sink`, in order. Returns the number of positions
 * used (words, parts, CJK characters and emoji; joined forms and CJK pairs share a position).
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
 * Whether the char code `c`, following a run of ASCII letters and digits, ends it as a plain word
 * (a separator, not a joiner, apostrophe, capital or letter of another script). Lets a caller take
 * plain words on a fast path and hand everything else to {@linkcode scanAt}.
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

/**
 * Scans the one token unit that starts at `start` (not a separator), as {@linkcode scanAt} does,
 * numbering its tokens from `scan.position` on and advancing it. Returns where the unit ends.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scanUnit } from "./_scanner.ts";
 * import { tokenText } from "./_tokens.ts";
 * const seen: [string, number][] = [];
 * const scan = { sink: (s: string, a: number, b: number, p: number) => seen.push([tokenText(s, a, b), p]), position: 3 };
 * assert.equal(scanUnit("Café au lait", 0, scan), 4);
 * assert.deepEqual(seen, [["cafe", 3]]);
 * ```
 */
export function scanUnit(text: string, start: number, scan: Scan): number {
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
