/**
 * Internal: what a loaded model is (a "backend"), shared by the model loaders and the code that
 * drives them, and the vector normalisation they all apply.
 *
 * @module
 */

/** A loaded model. */
export interface Backend {
  readonly dimensions: number;
  /**
   * One unit-length vector per text, in order; each owns its buffer. An aborted `signal` rejects
   * with its reason (backends that cannot stop may ignore it).
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/**
 * Copies `values` into a new unit-length Float32Array (a zero vector stays zero).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toUnitVector } from "./_model.ts";
 * assert.deepEqual([...toUnitVector([3, 4])], [0.6000000238418579, 0.800000011920929]);
 * assert.deepEqual([...toUnitVector([0, 0])], [0, 0]);
 * ```
 */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let sum = 0;
  for (let i = 0; i < out.length; i++) sum += out[i] * out[i];
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < out.length; i++) out[i] *= scale;
  }
  return out;
}
