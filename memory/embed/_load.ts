/**
 * Internal: loading an embedder by model name (the implementation of `loadEmbedder`, which
 * `load.ts` imports at the first load, for its callers and for the shared models of
 * `vectors/_shared_embedder.ts`, so that nothing of the worker, the backends or the scheduler
 * loads before an embedder is needed).
 *
 * @module
 */

import { EmbedderUnavailableError, MemoryError } from "../errors.ts";
import type { Embedder, EmbedderLoadOptions, LoadEmbedderOptions, ModelProgress } from "./types.ts";
import { type Backend, type BackendSpec, modelKind, openBackend } from "./_backend.ts";
import { openWorkerBackend } from "./_thread.ts";
import { scheduleChunks } from "./_scheduler.ts";

/**
 * Loads the embedding model named `model` (see `loadEmbedder` in `load.ts`, which documents it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadEmbedderNow } from "./_load.ts";
 * await assert.rejects(loadEmbedderNow("minilm"), { code: "EMBEDDER_UNAVAILABLE" });
 * ```
 */
export async function loadEmbedderNow(
  model: string,
  options: EmbedderLoadOptions & LoadEmbedderOptions = {},
): Promise<Embedder> {
  if (!modelKind(model)) {
    throw new EmbedderUnavailableError(
      `Cannot load model ${model}: unknown model (use use-lite or a hub id such as Xenova/all-MiniLM-L6-v2)`,
      { details: { model } },
    );
  }
  const { signal } = options;
  signal?.throwIfAborted();
  const onProgress = (progress: ModelProgress) => {
    try {
      options.onProgress?.(progress);
    } catch {
      // A failing progress callback must not fail the load.
    }
  };
  const spec: BackendSpec = { model };
  if (options.hubEnv) spec.hubEnv = { ...options.hubEnv };
  let backend: Backend;
  try {
    backend = options.worker === false
      ? await inProcess(spec, onProgress, signal)
      : await openWorkerBackend(spec, onProgress, signal);
  } catch (e) {
    if (signal?.aborted && e === signal.reason) throw e;
    if (e instanceof EmbedderUnavailableError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    throw new EmbedderUnavailableError(
      message.startsWith("Cannot ") ? message : `Cannot load model ${model}: ${message}`,
      { cause: e, details: { model } },
    );
  }
  return embedderOf(model, backend);
}

/** Loads in this thread; an abort rejects at once (the model, when it loads, is freed). */
function inProcess(
  spec: BackendSpec,
  onProgress: (progress: ModelProgress) => void,
  signal: AbortSignal | undefined,
): Promise<Backend> {
  const loading = openBackend(spec, onProgress).then((b) => scheduleChunks(b));
  if (!signal) return loading;
  loading.then(async (b) => {
    if (signal.aborted) await b.dispose();
  }, () => {});
  return raceAbort(loading, signal);
}

/** The public face of a loaded backend. */
function embedderOf(model: string, backend: Backend): Embedder {
  let closed = false;
  return {
    model,
    dimensions: backend.dimensions,
    async embed(texts, options) {
      if (closed) {
        throw new EmbedderUnavailableError(`Cannot embed with ${model}: the embedder is closed`);
      }
      options?.signal?.throwIfAborted();
      if (texts.length === 0) return [];
      try {
        return await backend.embed(texts, options?.signal);
      } catch (e) {
        if (options?.signal?.aborted && e === options.signal.reason) throw e;
        if (closed) {
          throw new EmbedderUnavailableError(`Cannot embed with ${model}: the embedder is closed`);
        }
        if (e instanceof MemoryError) throw e;
        const message = e instanceof Error ? e.message : String(e);
        throw new MemoryError(`Cannot embed with ${model}: ${message}`, { cause: e });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await backend.dispose();
    },
  };
}

/** `promise`, or the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
