/**
 * How a token spells one UTF-16 code unit of its source: the one rule that `tokenText`, the term
 * dictionary and the text profiles share.
 *
 * @module
 */

/**
 * The code unit `c` as a token spells it: ASCII upper case lowered, a typographic apostrophe (`’`,
 * `ʼ`) written `'`, and -1 for a joiner (`-`, `_`), which a token skips.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tokenCode } from "./_token_code.ts";
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
