/**
 * Internal: the built-in embedders loaded in this process, one per model, shared by every
 * `Memo` client that uses that model (process-wide state), and counted: each client takes a
 * {@linkcode SharedEmbedderLease} and releases it when it closes; when the last lease of a
 * model is released, its worker thread and ports are closed (a load still in flight is
 * aborted), and the next client loads the model again. The loader (`embed/_load.ts`, through
 * `loadEmbedder`) is imported at the first load.
 *
 * @module
 */

import type { Embedder, ModelProgress } from "../embed/types.ts";
import { loadEmbedder } from "../embed/load.ts";

/** One client's hold on a shared model. */
export interface SharedEmbedderLease {
  /** The model, once loaded; rejects with `EmbedderUnavailableError` when it cannot load. */
  readonly embedder: Promise<Embedder>;
  /**
   * Gives the hold back (again: nothing). The last release of a model closes it, or aborts its
   * load, and resolves once its worker thread is gone.
   */
  release(): Promise<void>;
}

/** A model loaded (or loading) in this process, and how many leases hold it. */
interface Shared {
  loading: Promise<Embedder>;
  abort: AbortController;
  leases: number;
}

/** The built-in models of this process, by name. */
const shared = new Map<string, Shared>();

/**
 * A lease on the built-in embedder for `model`, loaded once per process while any lease holds it
 * (its worker thread does not keep the process alive while idle). A failed load is tried again by
 * the next lease. `onProgress` hears the load, or `ready` at once when the model is already loaded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leaseSharedEmbedder, sharedModels } from "./_shared_embedder.ts";
 * const lease = leaseSharedEmbedder("minilm", undefined);
 * await assert.rejects(lease.embedder, { code: "EMBEDDER_UNAVAILABLE" });
 * await lease.release();
 * assert.deepEqual(sharedModels(), []); // nothing held: nothing loaded
 * ```
 */
export function leaseSharedEmbedder(
  model: string,
  onProgress: ((progress: ModelProgress) => void) | undefined,
): SharedEmbedderLease {
  let entry = shared.get(model);
  let embedder: Promise<Embedder>;
  if (entry) {
    embedder = entry.loading.then((loaded) => {
      onProgress?.({ status: "ready", progress: 100 });
      return loaded;
    });
  } else {
    const abort = new AbortController();
    const loading = loadEmbedder(model, { onProgress, signal: abort.signal });
    const created: Shared = { loading, abort, leases: 0 };
    entry = created;
    shared.set(model, created);
    // A failed load is not kept: the next lease tries again.
    loading.catch(() => {
      if (shared.get(model) === created) shared.delete(model);
    });
    embedder = loading;
  }
  entry.leases++;
  const held = entry;
  let released: Promise<void> | undefined;
  return {
    embedder,
    release() {
      return released ??= releaseOne(model, held);
    },
  };
}

/** Gives one lease back; the last one closes the model (or aborts its load). */
async function releaseOne(model: string, entry: Shared): Promise<void> {
  if (--entry.leases > 0) return;
  if (shared.get(model) === entry) shared.delete(model);
  entry.abort.abort(new Error(`Cannot load model ${model}: no client uses it any more`));
  const loaded = await entry.loading.catch(() => undefined);
  await loaded?.close?.();
}

/**
 * The models loaded or loading in this process (for tests and diagnostics).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sharedModels } from "./_shared_embedder.ts";
 * assert.deepEqual(sharedModels(), []);
 * ```
 */
export function sharedModels(): string[] {
  return [...shared.keys()];
}
