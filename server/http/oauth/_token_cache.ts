/**
 * A small cache of checked tokens, keyed by the token's SHA-256 (so it never holds a token), each
 * entry until a deadline, at most {@linkcode TOKEN_CACHE_SIZE} entries (the oldest goes first). A
 * JWT that verified is not verified again until its entry expires, and an introspection answer is
 * not asked for again.
 *
 * @module
 */

/**
 * Most entries a cache keeps.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOKEN_CACHE_SIZE } from "./_token_cache.ts";
 *
 * assert.equal(TOKEN_CACHE_SIZE, 1000);
 * ```
 */
export const TOKEN_CACHE_SIZE = 1000;

/**
 * Checked tokens and what checking them gave.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TokenCache } from "./_token_cache.ts";
 *
 * let now = 0;
 * const cache = new TokenCache<string>(() => now);
 * const key = await cache.key("a-token");
 * assert.equal(key.length, 64); // hex SHA-256: the token itself is not kept
 * cache.set(key, "checked", 1000);
 * assert.equal(cache.get(key), "checked");
 * now = 1000;
 * assert.equal(cache.get(key), undefined); // expired
 * ```
 */
export class TokenCache<T> {
  #entries = new Map<string, { value: T; until: number }>();

  constructor(readonly now: () => number = Date.now, readonly size = TOKEN_CACHE_SIZE) {}

  /** The cache key of a token: its SHA-256, in hex. */
  async key(token: string): Promise<string> {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
    let hex = "";
    for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
    return hex;
  }

  /** The value for `key`, unless it expired. */
  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` for `key` until `until` (a time of `now()`). */
  set(key: string, value: T, until: number): void {
    this.#entries.delete(key);
    if (until <= this.now()) return;
    this.#entries.set(key, { value, until });
    if (this.#entries.size > this.size) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
