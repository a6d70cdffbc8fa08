/**
 * Internal: the built-in embedders loaded in this process, one per model, shared by every
 * `Memo` client that uses that model (process-wide state). The loader (`embed/load.ts`) is
 * imported on the first load.
 *
 * @module
 */

import type { Embedder, ModelProgress } from "./embed/types.ts";

/** The built-in models loaded in this process, by name: every client shares one. */
const loaded = new Map<string, Promise<Embedder>>();

/**
 * The built-in embedder for `model`, loaded once per process and shared by every client (its
 * worker thread does not keep the process alive while idle). A failed load is tried again by
 * the next client that asks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sharedEmbedder } from "./_shared_embedder.ts";
 * await assert.rejects(sharedEmbedder("minilm", undefined), { code: "EMBEDDER_UNAVAILABLE" });
 * await assert.rejects(sharedEmbedder("minilm", undefined), /unknown model/); // tried again
 * ```
 */
export function sharedEmbedder(
  model: string,
  onProgress: ((progress: ModelProgress) => void) | undefined,
): Promise<Embedder> {
  const known = loaded.get(model);
  if (known) {
    return known.then((embedder) => {
      onProgress?.({ status: "ready", progress: 100 });
      return embedder;
    });
  }
  const loading = import("./embed/load.ts").then(({ loadEmbedder }) =>
    loadEmbedder(model, { onProgress })
  );
  loaded.set(model, loading);
  loading.catch(() => loaded.delete(model));
  return loading;
}
