/**
 * Internal: the worker thread of an embedder (started by `_thread.ts` with the
 * model's spec as `workerData`). It loads the model, posts the load's progress,
 * then answers `embed` requests one at a time, transferring the vectors'
 * buffers.
 *
 * @module
 */

import { parentPort, workerData } from "node:worker_threads";
import { type Backend, type BackendSpec, openBackend } from "./_backend.ts";
import { postedError, type WorkerReply, type WorkerRequest } from "./_thread.ts";

// Deno gives its worker threads a web `location` whose origin is "null";
// transformers.js (the onnxruntime-web inside it) then builds URLs against it
// and fails to import. Node's worker threads, like Deno's main thread, have none.
if ((globalThis as { location?: { origin?: string } }).location?.origin === "null") {
  Reflect.deleteProperty(globalThis, "location");
}

const port = parentPort;
if (!port) throw new Error("Cannot start the embedding worker: not in a worker thread");
const post = (reply: WorkerReply, transfer: ArrayBuffer[] = []) =>
  port.postMessage(reply, transfer);

// Requests queue behind the load and behind each other. The listener is
// registered before the load is awaited, so no early request is lost.
let queue: Promise<Backend | undefined> = openBackend(
  workerData as BackendSpec,
  (progress) => post({ type: "progress", progress }),
  { quiet: true },
).then(
  (backend) => {
    post({ type: "ready", dimensions: backend.dimensions });
    return backend;
  },
  (e) => {
    post({ type: "failed", error: postedError(e) });
    return undefined;
  },
);

port.on("message", (request: WorkerRequest) => {
  if (request.type !== "embed") return;
  queue = queue.then(async (backend) => {
    try {
      if (!backend) throw new Error("the model did not load");
      const vectors = await backend.embed(request.texts);
      post(
        { type: "result", id: request.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (e) {
      post({ type: "error", id: request.id, error: postedError(e) });
    }
    return backend;
  });
});
