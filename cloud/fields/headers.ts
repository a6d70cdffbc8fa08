/**
 * The request headers of the Cloud API that carry input: `Idempotency-Key` and `If-Match`.
 *
 * @module
 */

import { invalid } from "./_checks.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` of a write: 1 to 255 visible ASCII characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { idempotencyKeyOf } from "./headers.ts";
 *
 * assert.equal(idempotencyKeyOf(new Headers({ "idempotency-key": "k-1" }), "write"), "k-1");
 * assert.throws(() => idempotencyKeyOf(new Headers(), "write"), /needs an Idempotency-Key/);
 * ```
 */
export function idempotencyKeyOf(headers: Headers, action: string): string {
  const key = headers.get("idempotency-key");
  if (key === null) {
    throw invalid(
      `Cannot ${action}: a write needs an Idempotency-Key header (1 to 255 visible ASCII characters)`,
    );
  }
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw invalid(
      `Cannot ${action}: the Idempotency-Key header must be 1 to 255 visible ASCII characters`,
    );
  }
  return key;
}

/**
 * The revision of an `If-Match` header (`12` or `"12"`), `undefined` without one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ifMatchOf } from "./headers.ts";
 *
 * assert.equal(ifMatchOf(new Headers({ "if-match": '"12"' }), "update"), 12);
 * assert.equal(ifMatchOf(new Headers(), "update"), undefined);
 * ```
 */
export function ifMatchOf(headers: Headers, action: string): number | undefined {
  const value = headers.get("if-match");
  if (value === null) return undefined;
  const m = /^\s*(?:(\d{1,16})|"(\d{1,16})")\s*$/.exec(value);
  const n = m ? Number(m[1] ?? m[2]) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw invalid(
      `Cannot ${action}: If-Match must be a note revision, an integer such as 12 or "12"`,
    );
  }
  return n;
}
