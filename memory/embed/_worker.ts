/**
 * Internal: the worker thread of an embedder (started by `_thread.ts`, see `WorkerData`). It loads
 * the model, posts the load's progress, then answers `embed` requests in chunks, shortest request
 * first, transferring the vectors' buffers. Between chunks it drains its request port, so a query
 * that arrives during a big batch waits for one chunk, not for the batch. A `cancel` drops a
 * request.
 *
 * @module
 */

import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { type Backend, openBackend } from "./_backend.ts";
import { scheduleChunks } from "./_scheduler.ts";
import { postedError, type WorkerData, type WorkerReply, type WorkerRequest } from "./_thread.ts";

// Deno gives its worker threads a web `location` whose origin is "null";
// transformers.js (the onnxruntime-web inside it) then builds URLs against it
// and fails to import. Node's worker threads, like Deno's main thread, have none.
if ((globalThis as { location?: { origin?: string } }).location?.origin === "null") {
  Reflect.deleteProperty(globalThis, "location");
}

const port = parentPort;
if (!port) throw new Error("Cannot start the embedding worker: not in a worker thread");
const { spec, requests } = workerData as WorkerData;
const post = (reply: WorkerReply, transfer: ArrayBuffer[] = []) =>
  port.postMessage(reply, transfer);

/** Takes in the requests that arrived while a chunk ran. */
const drain = () => {
  for (let m = receiveMessageOnPort(requests); m; m = receiveMessageOnPort(requests)) {
    handle(m.message as WorkerRequest);
  }
};

let backend: Backend | undefined;
const loading: Promise<Backend | undefined> = openBackend(
  spec,
  (progress) => post({ type: "progress", progress }),
  { quiet: true },
).then(
  (loaded) => {
    backend = scheduleChunks(loaded, { beforeChunk: drain });
    post({ type: "ready", dimensions: loaded.dimensions });
    return backend;
  },
  (e) => {
    post({ type: "failed", error: postedError(e) });
    return undefined;
  },
);

const cancels = new Map<number, AbortController>();

/** Queues a request (at once when the model is loaded, so a drain sees it before the next chunk). */
function handle(request: WorkerRequest): void {
  if (request.type === "cancel") {
    cancels.get(request.id)?.abort();
    return;
  }
  const { id, texts } = request;
  const cancel = new AbortController();
  cancels.set(id, cancel);
  const run = (b: Backend | undefined) => {
    if (!b) throw new Error("the model did not load");
    return b.embed(texts, cancel.signal);
  };
  (backend ? run(backend) : loading.then(run)).then(
    (vectors) => post({ type: "result", id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer)),
    (e) => {
      if (!cancel.signal.aborted) post({ type: "error", id, error: postedError(e) });
    },
  ).finally(() => cancels.delete(id));
}

// Listening before the load is awaited: no early request is lost.
requests.on("message", handle);
