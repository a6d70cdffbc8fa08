/**
 * Internal: a number that stands for a body's text after `normalizeNoteText`, computed without
 * building the normalised string. The file store keys the identities of notes without a source
 * key by it: one pass over the characters of every such note, about ten times faster than
 * normalising them, where a project of 100,000 notes would otherwise pay half a second at its
 * first write. Keys may collide; a caller compares the normalised texts of the notes a key finds.
 *
 * @module
 */

import { normalizeNoteText } from "./note.ts";

/** ASCII punctuation (Unicode `P`), white space (`\s`) and the backtick: normalisation's separators. */
const SEPARATOR = new Uint8Array(128);
for (const c of "!\"#%&'()*,-./:;?@[\\]_{}`") SEPARATOR[c.charCodeAt(0)] = 1;
for (const c of " \t\n\v\f\r") SEPARATOR[c.charCodeAt(0)] = 1;

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/**
 * The key of `text`: equal texts after `normalizeNoteText` always get equal keys.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textKey } from "./text_key.ts";
 * assert.equal(textKey("Deploys run on *Fridays*!"), textKey("deploys run on fridays"));
 * assert.notEqual(textKey("-5 degrees"), textKey("5 degrees"));
 * assert.equal(textKey("Café"), textKey("CAFÉ")); // text that is not ASCII takes the slow way
 * ```
 */
export function textKey(text: string): number {
  let h1 = 0x811c9dc5 | 0;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  let pending = false;
  let emitted = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (c > 127) return stringKey(normalizeNoteText(text));
    if (SEPARATOR[c] === 1) {
      const next = text.charCodeAt(i + 1);
      const minus = c === 45 && next >= 48 && next <= 57 &&
        (pending || i === 0 || !isAlnum(text.charCodeAt(i - 1)));
      // A run of separators becomes one space; one that ends in a minus sign, " -".
      if (emitted) pending = true;
      if (!minus) continue;
    } else if (c >= 65 && c <= 90) c += 32;
    if (pending) {
      h1 = Math.imul(h1 ^ 32, 16777619);
      h2 = Math.imul(h2 ^ 32, 2246822507);
      pending = false;
    }
    h1 = Math.imul(h1 ^ c, 16777619);
    h2 = Math.imul(h2 ^ c, 2246822507);
    emitted = true;
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}

/** The key of an already normalised text (the same hashing as the fast path's). */
function stringKey(normalized: string): number {
  let h1 = 0x811c9dc5 | 0;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < normalized.length; i++) {
    const c = normalized.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619);
    h2 = Math.imul(h2 ^ c, 2246822507);
  }
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}
