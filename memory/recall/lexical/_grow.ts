/**
 * Internal: how the lexical index's typed arrays grow.
 *
 * @module
 */

/**
 * A copy of `a` in a new array of `n` slots (`n` at least `a.length`), the new slots set to `fill`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { grown } from "./_grow.ts";
 * assert.deepEqual([...grown(new Int32Array([1, 2]), 4, -1)], [1, 2, -1, -1]);
 * ```
 */
export function grown(a: Int32Array, n: number, fill = 0): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  if (fill !== 0) b.fill(fill);
  b.set(a);
  return b;
}
