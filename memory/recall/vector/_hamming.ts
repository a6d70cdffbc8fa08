/**
 * Internal: the Hamming first pass over the sign codes of `_codes.ts`, kept for the benchmark that
 * compares it with the table pass the index uses (`signScores`; see `bench/README.md`, "Vector
 * recall (issue 13)").
 *
 * @module
 */

/**
 * Hamming distances between the sign code `query` and the codes of the first `count` slots of
 * `slots`, counted with a 16-bit lookup table (`popcount16`), which is 1.4× faster than a SWAR
 * popcount in V8 here. Kept for the benchmark that compares the two first passes; the index uses
 * `signScores`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hammingDistances, popcount16 } from "./_hamming.ts";
 * const out = new Int32Array(2);
 * hammingDistances(new Uint32Array([0b1011, 0xffffffff]), 1, new Uint32Array([0]), new Int32Array([0, 1]), 2, out, popcount16());
 * assert.deepEqual([...out], [3, 32]);
 * ```
 */
export function hammingDistances(
  signs: Uint32Array,
  words: number,
  query: Uint32Array,
  slots: Int32Array,
  count: number,
  out: Int32Array,
  bits: Uint8Array,
): void {
  for (let k = 0; k < count; k++) {
    const at = slots[k] * words;
    let distance = 0;
    for (let w = 0; w < words; w++) {
      const x = signs[at + w] ^ query[w];
      distance += bits[x & 0xffff] + bits[x >>> 16];
    }
    out[k] = distance;
  }
}

let popcountTable: Uint8Array | undefined;

/**
 * The 65,536-entry table of bit counts of 16-bit numbers (built once).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { popcount16 } from "./_hamming.ts";
 * assert.equal(popcount16()[0xffff], 16);
 * assert.equal(popcount16()[0b1010], 2);
 * ```
 */
export function popcount16(): Uint8Array {
  if (popcountTable) return popcountTable;
  const table = new Uint8Array(65536);
  for (let i = 1; i < 65536; i++) table[i] = (i & 1) + table[i >>> 1];
  return (popcountTable = table);
}
