/**
 * Internal: the codes of the vector index and the loops that score them.
 *
 * **Codes.** Each vector is held twice, compactly:
 *
 * - a sign code: bit `i` is set when component `i` is positive (`ceil(dims / 32)` Uint32 words);
 * - an int8 code: each component scaled so that the largest magnitude is 127 and rounded, with
 *   the inverse Euclidean norm of the code beside it (a Float32), so that `dot(q, code) × inverse`
 *   is the cosine of the query `q` (unit length) with the quantised vector. The code of `v` and of
 *   `v / |v|` is the same, so vectors are normalised for free. A zero vector has a zero code and a
 *   zero inverse norm: its similarity with anything is 0.
 *
 * **First pass.** The query is kept at full precision and compared with the sign codes
 * asymmetrically: the score of a code is `Σ qᵢ · (bitᵢ ? +1 : −1)`, read from one table of 256
 * partial sums per byte of the code (`signTable`), four lookups per code word. This estimates the
 * cosine about twice as precisely as the Hamming distance between the two sign codes (which
 * quantises the query too), for about 2.5 times the time; on random vectors the Hamming pass needs
 * four to eight times the candidates for the same recall, and rescoring them costs more than it
 *
 * **Second pass.** The best first-pass candidates are rescored with the int8 codes
 * (`int8Scores`), read four components at a time through an Int32 view of the codes.
 *

 *
 * @module
 */

/**
 * Whether this platform stores numbers little-endian (the Int32 view of the int8 codes assumes it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LITTLE_ENDIAN } from "./_codes.ts";
 * assert.equal(LITTLE_ENDIAN, new Uint8Array(new Uint32Array([1]).buffer)[0] === 1);
 * ```
 */
export const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Number of buckets of the first-pass score histogram that picks the candidates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HISTOGRAM_BUCKETS } from "./_codes.ts";
 * const histogram = new Int32Array(HISTOGRAM_BUCKETS); // what pickHighest takes
 * assert.equal(histogram.length, 4096);
 * ```
 */
export const HISTOGRAM_BUCKETS = 4096;

/**
 * Bytes of the int8 code of one vector: `dims` rounded up to a multiple of 4, so that the codes can
 * be read as Int32 words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codeStride } from "./_codes.ts";
 * assert.equal(codeStride(512), 512);
 * assert.equal(codeStride(3), 4);
 * ```
 */
export function codeStride(dims: number): number {
  return (dims + 3) & ~3;
}

/**
 * Uint32 words of the sign code of one vector.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signWords } from "./_codes.ts";
 * assert.equal(signWords(512), 16);
 * assert.equal(signWords(33), 2);
 * ```
 */
export function signWords(dims: number): number {
  return (dims + 31) >>> 5;
}

/**
 * The Euclidean norm of `vector` (NaN or Infinity when a component is not finite).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vectorNorm } from "./_codes.ts";
 * assert.equal(vectorNorm(new Float32Array([3, 4])), 5);
 * ```
 */
export function vectorNorm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/**
 * Writes the sign code of `vector` at word `signAt` of `signs` and its int8 code at byte `codeAt`
 * of `codes` (zero padding after `vector.length`); returns the inverse norm of the int8 code (0
 * for a zero vector), or NaN, writing nothing, when a component is not finite.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeVector } from "./_codes.ts";
 * const signs = new Uint32Array(1);
 * const codes = new Int8Array(4);
 * const inverse = encodeVector(new Float32Array([0.5, -1, 0, 0.25]), signs, 0, codes, 0);
 * assert.deepEqual([...codes], [64, -127, 0, 32]);
 * assert.equal(signs[0], 0b1001);
 * assert.ok(Math.abs(inverse - 1 / Math.hypot(64, 127, 32)) < 1e-9);
 * assert.ok(Number.isNaN(encodeVector(new Float32Array([NaN, 1, 0, 0]), signs, 0, codes, 0)));
 * assert.equal(codes[0], 64); // untouched
 * ```
 */
export function encodeVector(
  vector: Float32Array,
  signs: Uint32Array,
  signAt: number,
  codes: Int8Array,
  codeAt: number,
): number {
  const dims = vector.length;
  let max = 0;
  let sum = 0; // NaN or Infinity when a component is
  for (let i = 0; i < dims; i++) {
    const a = Math.abs(vector[i]);
    sum += a;
    if (a > max) max = a;
  }
  if (!Number.isFinite(sum)) return NaN;
  const words = signWords(dims);
  for (let w = 0; w < words; w++) signs[signAt + w] = 0;
  const stride = codeStride(dims);
  for (let i = dims; i < stride; i++) codes[codeAt + i] = 0;
  if (max === 0) {
    for (let i = 0; i < dims; i++) codes[codeAt + i] = 0;
    return 0;
  }
  const k = 127 / max;
  let squares = 0;
  for (let i = 0; i < dims; i++) {
    const x = vector[i];
    const c = Math.round(x * k);
    codes[codeAt + i] = c;
    squares += c * c;
    if (x > 0) signs[signAt + (i >>> 5)] |= 1 << (i & 31);
  }
  return squares > 0 ? 1 / Math.sqrt(squares) : 0;
}

/**
 * Fills `table` (`signWords(dims) × 4 × 256` Int32s) with the first-pass lookup table of the unit
 * query `query` (Float64, zero-padded): entry `b × 256 + v` is `Σ ±qᵢ` over the 8 components of
 * byte `b` of a sign code whose bits are `v`, scaled to integers so that any score fits 2^24 in
 * magnitude.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signTable } from "./_codes.ts";
 * const query = new Float64Array(32);
 * query[0] = 1;
 * const table = new Int32Array(4 * 256);
 * signTable(query, 32, table);
 * assert.ok(table[1] > 0 && table[0] === -table[1]); // bit 0 set: +q0, clear: -q0
 * assert.equal(table[256 + 7], 0); // byte 1 holds components 8..15, all zero
 * ```
 */
export function signTable(query: Float64Array, dims: number, table: Int32Array): void {
  const bytes = signWords(dims) * 4;
  let l1 = 0;
  for (let i = 0; i < dims; i++) l1 += Math.abs(query[i]);
  const scale = l1 > 0 ? (1 << 24) / l1 : 0;
  for (let b = 0; b < bytes; b++) {
    const base = b << 8;
    let all = 0;
    for (let j = 0; j < 8; j++) {
      const i = (b << 3) + j;
      if (i < dims) all -= Math.round(query[i] * scale);
    }
    table[base] = all;
    for (let v = 1; v < 256; v++) {
      const low = 31 - Math.clz32(v & -v);
      const i = (b << 3) + low;
      const q = i < dims ? Math.round(query[i] * scale) : 0;
      table[base + v] = table[base + (v & (v - 1))] + 2 * q;
    }
  }
}

/**
 * First pass: for each of the first `count` slots in `slots`, writes the table score of its sign
 * code to `out` (same position) and returns nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { signScores, signTable } from "./_codes.ts";
 * const query = new Float64Array(32);
 * query[0] = 1;
 * const table = new Int32Array(4 * 256);
 * signTable(query, 32, table);
 * const signs = new Uint32Array([1, 0]); // slot 0: component 0 positive; slot 1: negative
 * const out = new Int32Array(2);
 * signScores(signs, 1, table, new Int32Array([0, 1]), 2, out);
 * assert.ok(out[0] > 0 && out[1] < 0);
 * ```
 */
export function signScores(
  signs: Uint32Array,
  words: number,
  table: Int32Array,
  slots: Int32Array,
  count: number,
  out: Int32Array,
): void {
  for (let k = 0; k < count; k++) {
    const at = slots[k] * words;
    let score = 0;
    for (let w = 0, t = 0; w < words; w++, t += 1024) {
      const x = signs[at + w];
      score += table[t + (x & 255)] + table[t + 256 + ((x >>> 8) & 255)] +
        table[t + 512 + ((x >>> 16) & 255)] + table[t + 768 + (x >>> 24)];
    }
    out[k] = score;
  }
}

/**
 * Second pass: for each of the first `count` slots of `slots`, writes to `out` the cosine of the
 * unit query `query` (Float64, zero-padded to `stride`) with the slot's int8 code, read through
 * `codeWords`, an Int32 view of the codes (`stride / 4` words per slot). Little-endian platforms
 * only (`LITTLE_ENDIAN`); `int8ScoresByByte` is the same for the others.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeVector, int8Scores } from "./_codes.ts";
 * const codes = new Int8Array(4);
 * const inverse = new Float32Array([encodeVector(new Float32Array([0.6, 0.8, 0, 0]), new Uint32Array(1), 0, codes, 0)]);
 * const out = new Float64Array(1);
 * int8Scores(new Int32Array(codes.buffer), 4, inverse, new Float64Array([0.6, 0.8, 0, 0]), new Int32Array([0]), 1, out);
 * assert.ok(Math.abs(out[0] - 1) < 1e-4);
 * ```
 */
export function int8Scores(
  codeWords: Int32Array,
  stride: number,
  inverse: Float32Array,
  query: Float64Array,
  slots: Int32Array,
  count: number,
  out: Float64Array,
): void {
  const words = stride >>> 2;
  for (let k = 0; k < count; k++) {
    const slot = slots[k];
    const at = slot * words;
    let sum = 0;
    for (let w = 0, i = 0; w < words; w++, i += 4) {
      const x = codeWords[at + w];
      sum += query[i] * ((x << 24) >> 24) + query[i + 1] * ((x << 16) >> 24) +
        query[i + 2] * ((x << 8) >> 24) + query[i + 3] * (x >> 24);
    }
    const cosine = sum * inverse[slot];
    out[k] = cosine > 1 ? 1 : cosine < -1 ? -1 : cosine;
  }
}

/**
 * `int8Scores` for big-endian platforms: the same result, read one component at a time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeVector, int8ScoresByByte } from "./_codes.ts";
 * const codes = new Int8Array(4);
 * const inverse = new Float32Array([encodeVector(new Float32Array([0.6, 0.8, 0, 0]), new Uint32Array(1), 0, codes, 0)]);
 * const out = new Float64Array(1);
 * int8ScoresByByte(codes, 4, inverse, new Float64Array([0.6, 0.8, 0, 0]), new Int32Array([0]), 1, out);
 * assert.ok(Math.abs(out[0] - 1) < 1e-4);
 * ```
 */
export function int8ScoresByByte(
  codes: Int8Array,
  stride: number,
  inverse: Float32Array,
  query: Float64Array,
  slots: Int32Array,
  count: number,
  out: Float64Array,
): void {
  for (let k = 0; k < count; k++) {
    const slot = slots[k];
    const at = slot * stride;
    let sum = 0;
    for (let i = 0; i < stride; i++) sum += query[i] * codes[at + i];
    const cosine = sum * inverse[slot];
    out[k] = cosine > 1 ? 1 : cosine < -1 ? -1 : cosine;
  }
}

/**
 * Picks the positions of the `take` highest of the first `count` scores of `scores` into
 * `picked` (in position order), using `histogram` (`HISTOGRAM_BUCKETS` Int32s) to find the
 * threshold in two linear passes; among equal buckets at the threshold, lower positions win.
 * Returns how many were picked (`min(take, count)`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HISTOGRAM_BUCKETS, pickHighest } from "./_codes.ts";
 * const picked = new Int32Array(2);
 * const n = pickHighest(new Int32Array([5, 90, -3, 40]), 4, 2, new Int32Array(HISTOGRAM_BUCKETS), picked);
 * assert.equal(n, 2);
 * assert.deepEqual([...picked], [1, 3]);
 * ```
 */
export function pickHighest(
  scores: Int32Array,
  count: number,
  take: number,
  histogram: Int32Array,
  picked: Int32Array,
): number {
  if (take >= count) {
    for (let k = 0; k < count; k++) picked[k] = k;
    return count;
  }
  if (take <= 0) return 0;
  let min = scores[0];
  let max = min;
  for (let k = 1; k < count; k++) {
    const s = scores[k];
    if (s < min) min = s;
    else if (s > max) max = s;
  }
  const factor = max > min ? (HISTOGRAM_BUCKETS - 1) / (max - min) : 0;
  histogram.fill(0);
  for (let k = 0; k < count; k++) histogram[((scores[k] - min) * factor) | 0]++;
  let bucket = HISTOGRAM_BUCKETS - 1;
  let above = 0; // scores in buckets above `bucket`
  while (above + histogram[bucket] < take) above += histogram[bucket--];
  let fromThreshold = take - above; // taken from the threshold bucket, lowest positions first
  let n = 0;
  for (let k = 0; k < count; k++) {
    const b = ((scores[k] - min) * factor) | 0;
    if (b > bucket) picked[n++] = k;
    else if (b === bucket && fromThreshold > 0) {
      picked[n++] = k;
      fromThreshold--;
    }
  }
  return n;
}
