/**
 * Internal: a loaded model (a "backend") as both the in-process embedder and
 * the worker thread drive it, and the choice of backend for a model name.
 *
 * @module
 */

import type { ModelProgress } from "./types.ts";
import type { Backend } from "./_model.ts";
import { loadUseLite } from "./_use_lite.ts";
import { type HubEnv, loadHub } from "./_hub.ts";

export type { Backend } from "./_model.ts";

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
 * Which kind of model a name names: `"use-lite"`, a hub id (contains "/"), or neither.
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
 * Loads the backend of a model named by `spec` (the name must be known to {@linkcode modelKind}).
 * `quiet` silences the model library's warnings (the worker thread sets it).
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
