/**
 * Internal: whether a detected value looks like a real secret, not a placeholder. Notes are full
 * of documentation: `ghp_xxxxxxxx…`, `sk_live_<your key>`, `AKIA…EXAMPLE`, `${TOKEN}`. A value
 * that reads as one of those is not a secret, whatever rule matched it.
 *
 * @module
 */

/** Words that mark a value as an example (matched in lower case). */
const PLACEHOLDER_WORDS = [
  "example",
  "xxxx",
  "your",
  "dummy",
  "placeholder",
  "changeme",
  "change_me",
  "redacted",
  "sample",
  "fake",
  "replace",
  "insert",
  "here",
  "secret_here",
  "todo",
  "1234567",
  "abcdefg",
];

/** Template and elision marks: `<TOKEN>`, `${TOKEN}`, `$TOKEN`, `{{token}}`, `%TOKEN%`, `…`, `***`. */
const TEMPLATE = /[<>{}]|\$\(|^\$[A-Za-z_]|%[A-Z_]+%|\.\.\.|…|\*\*\*/;

/**
 * Shannon entropy of `text` in bits per character.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entropy } from "./_plausible.ts";
 * assert.equal(entropy("aaaa"), 0);
 * assert.equal(entropy("abcd"), 2);
 * ```
 */
export function entropy(text: string): number {
  if (!text) return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  const n = text.length;
  let bits = 0;
  for (const k of counts.values()) {
    const p = k / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * How many of lower case, upper case, digits and other characters `text` mixes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { charClasses } from "./_plausible.ts";
 * assert.equal(charClasses("abc"), 1);
 * assert.equal(charClasses("aB3_"), 4);
 * ```
 */
export function charClasses(text: string): number {
  return Number(/[a-z]/.test(text)) + Number(/[A-Z]/.test(text)) +
    Number(/[0-9]/.test(text)) + Number(/[^A-Za-z0-9]/.test(text));
}

/**
 * Whether `value` reads as a placeholder: an example word (`example`, `xxxx`, `your`, …), a
 * template or elision mark, or a run of one character.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPlaceholder } from "./_plausible.ts";
 * assert.equal(isPlaceholder("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), true);
 * assert.equal(isPlaceholder("<TOKEN>"), true);
 * assert.equal(isPlaceholder("${GITHUB_TOKEN}"), true);
 * assert.equal(isPlaceholder("AKIAIOSFODNN7EXAMPLE"), true);
 * assert.equal(isPlaceholder("Zr8vQ2mW4kT9xN1p"), false);
 * ```
 */
export function isPlaceholder(value: string): boolean {
  if (isElided(value)) return true;
  // A word counts written as a word is: all lower case, all upper case or capitalised. Random
  // text mixes cases, so this leaves a real token holding "hErE" (or "fake", 16 times rarer) alone.
  return PLACEHOLDER_WORDS.some((w) =>
    value.includes(w) || value.includes(w.toUpperCase()) ||
    value.includes(w[0].toUpperCase() + w.slice(1))
  );
}

/**
 * Whether `value` is cut short or templated: a template or elision mark, or a run of one
 * character. Unlike {@linkcode isPlaceholder} it looks for no example word, so it suits long
 * random bodies (a PEM key's base64 holds "here" or "todo" about once in a hundred keys).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isElided } from "./_plausible.ts";
 * assert.equal(isElided("MIIE..."), true);
 * assert.equal(isElided("MIIEhereTODOfake0123"), false);
 * ```
 */
export function isElided(value: string): boolean {
  return TEMPLATE.test(value) || /(.)\1{5,}/.test(value);
}

/**
 * Whether the random part of a token (the value without its fixed prefix) is random enough to
 * be a real token: at least `min(10, ⌈length / 3⌉)` distinct characters and 3 bits of entropy
 * per character (2.5 for fewer than 16 characters).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksRandom } from "./_plausible.ts";
 * assert.equal(looksRandom("abababababababababcdcdcdcdcdcdcdcdcd"), false); // four characters
 * assert.equal(looksRandom("Zr8vQ2mW4kT9xN1pLc7Hs3Bd5Gf0Jy6Ra2Ue"), true);
 * ```
 */
export function looksRandom(part: string): boolean {
  const distinct = new Set(part).size;
  if (distinct < Math.min(10, Math.ceil(part.length / 3))) return false;
  return entropy(part) >= (part.length < 16 ? 2.5 : 3);
}
