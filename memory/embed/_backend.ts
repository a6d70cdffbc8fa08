/**
 * Internal: a loaded model (a "backend") as both the in-process embedder and
 * the worker thread drive it, and the choice of backend for a model name.
 *
 * @module
 */

import type { ModelProgress } from "./types.ts";
import { loadUseLite } from "./_use_lite.ts";
import { type HubEnv, loadHub } from "./_hub.ts";

/** A loaded model. */
export interface Backend {
  /** Length of every vector. */
  readonly dimensions: number;
  /**
   * One unit-length vector per text, in order; each owns its buffer. An
   * aborted `signal` rejects with its reason (backends that cannot stop may
   * ignore it).
   */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Frees the model. */
  dispose(): Promise<void>;
}

/** What to load; plain data, so it can be posted to a worker. */
export interface BackendSpec {
  /** `"use-lite"` or a hub id. */
  model: string;
  /** Internal, for tests: overrides of transformers.js' `env` for hub models. */
  hubEnv?: HubEnv;
}

/** The two kinds of model, or undefined for a name that is neither. */
export type ModelKind = "use-lite" | "hub";

/**
 * Which kind of model a name names: `"use-lite"`, a hub id (contains "/"), or
 * neither.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelKind } from "./_backend.ts";
 * assert.equal(modelKind("use-lite"), "use-lite");
 * assert.equal(modelKind("Xenova/all-MiniLM-L6-v2"), "hub");
 * assert.equal(modelKind("minilm"), undefined);
 * ```
 */
export function modelKind(model: string): ModelKind | undefined {
  if (model === "use-lite") return "use-lite";
  if (model.includes("/")) return "hub";
  return undefined;
}

/**
 * Loads the backend of a model named by `spec` (the name must be known to
 * {@linkcode modelKind}). `quiet` silences the model library's warnings (the
 * worker thread sets it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openBackend } from "./_backend.ts";
 * await assert.rejects(openBackend({ model: "nope" }, () => {}), /unknown model/);
 * ```
 */
export function openBackend(
  spec: BackendSpec,
  onProgress: (progress: ModelProgress) => void,
  options: { quiet?: boolean } = {},
): Promise<Backend> {
  switch (modelKind(spec.model)) {
    case "use-lite":
      return loadUseLite(onProgress);
    case "hub":
      return loadHub(spec.model, onProgress, { env: spec.hubEnv, quiet: options.quiet });
    default:
      return Promise.reject(new Error(`Cannot load model ${spec.model}: unknown model`));
  }
}

/**
 * Copies `values` into a new unit-length Float32Array (a zero vector stays
 * zero).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toUnitVector } from "./_backend.ts";
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
