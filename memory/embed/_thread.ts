/**
 * Internal: a backend that runs in a `node:worker_threads` worker (works in Deno and Node), so a
 * big batch never blocks the caller's event loop. The worker is `unref`ed while no load or request
 * is pending: an idle embedder never keeps the process alive.
 *
 * @module
 */

import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { EmbedderUnavailableError, MemoryError } from "../errors.ts";
import type { ModelProgress } from "./types.ts";
import type { Backend, BackendSpec } from "./_backend.ts";

/** A message from the caller to the worker. */
export type WorkerRequest =
  | { type: "embed"; id: number; texts: string[] }
  | { type: "cancel"; id: number };

/** An error as posted by the worker. */
export interface PostedError {
  name: string;
  message: string;
  code?: string;
}

/**
 * The worker's `workerData`: the model to load, and the port requests come on
 * (the worker drains it between chunks with `receiveMessageOnPort`, so a query
 * that arrives during a batch is seen before the batch's next chunk).
 */
export interface WorkerData {
  spec: BackendSpec;
  requests: MessagePort;
}

/** A message from the worker to the caller. */
export type WorkerReply =
  | { type: "progress"; progress: ModelProgress }
  | { type: "ready"; dimensions: number }
  | { type: "failed"; error: PostedError }
  | { type: "result"; id: number; vectors: Float32Array[] }
  | { type: "error"; id: number; error: PostedError };

/**
 * An error in a plain shape that survives `postMessage` (its `code` included).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { postedError } from "./_thread.ts";
 * const e = Object.assign(new Error("boom"), { code: "X" });
 * assert.deepEqual(postedError(e), { name: "Error", message: "boom", code: "X" });
 * assert.deepEqual(postedError("text"), { name: "Error", message: "text" });
 * ```
 */
export function postedError(e: unknown): PostedError {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const code = (e as { code?: unknown }).code;
  return typeof code === "string"
    ? { name: e.name, message: e.message, code }
    : { name: e.name, message: e.message };
}

/** The worker module beside this one: `.ts` from the sources, `.js` from the npm build. */
function workerUrl(): URL {
  return new URL(
    import.meta.url.endsWith(".ts") ? "./_worker.ts" : "./_worker.js",
    import.meta.url,
  );
}

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

/**
 * Starts a worker thread that loads the model of `spec`; resolves once it is ready. `onProgress`
 * gets the worker's load events. A worker that dies rejects the load and every pending request with
 * `EmbedderUnavailableError`; `dispose()` terminates it and resolves once the thread is gone (its
 * ports closed). `moduleUrl` (tests) replaces the worker module.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openWorkerBackend } from "./_thread.ts";
 * await assert.rejects(openWorkerBackend({ model: "nope" }, () => {}), /unknown model/);
 * ```
 */
export function openWorkerBackend(
  spec: BackendSpec,
  onProgress: (progress: ModelProgress) => void,
  signal?: AbortSignal,
  moduleUrl: URL = workerUrl(),
): Promise<Backend> {
  signal?.throwIfAborted();
  let settleLoad: { resolve(b: Backend): void; reject(e: unknown): void } | undefined;
  const loaded = new Promise<Backend>((resolve, reject) => {
    settleLoad = { resolve, reject };
  });
  const { port1: requests, port2 } = new MessageChannel();
  const worker = new Worker(moduleUrl, {
    workerData: { spec, requests: port2 } satisfies WorkerData,
    transferList: [port2],
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let busy = 1; // the load
  let stopped: Error | undefined;
  /** The worker's termination, once stopped: the load rejects and `dispose()` resolves after it. */
  let terminated: Promise<unknown> = Promise.resolve();

  const hold = () => {
    if (busy++ === 0) worker.ref();
  };
  const release = () => {
    if (--busy === 0) worker.unref();
  };
  /**
   * Stops the worker: pending requests reject with `error` at once, the load with `loadError`
   * once the thread is gone (so that nothing of it outlives a failed or aborted load).
   */
  const stop = (error: Error, loadError: unknown = error) => {
    if (stopped) return;
    stopped = error;
    signal?.removeEventListener("abort", onAbort);
    const load = settleLoad;
    settleLoad = undefined;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    requests.close();
    terminated = worker.terminate().catch(() => {});
    if (load) void terminated.then(() => load.reject(loadError));
  };
  const onAbort = () => {
    const reason = signal?.reason ?? new Error("aborted");
    stop(reason instanceof Error ? reason : new Error(String(reason)), reason);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const died = (message: string, cause?: unknown) =>
    stop(
      new EmbedderUnavailableError(`Cannot embed with ${spec.model}: ${message}`, { cause }),
      new EmbedderUnavailableError(`Cannot load model ${spec.model}: ${message}`, { cause }),
    );

  const backend: Backend = {
    dimensions: 0,
    embed(texts, signal) {
      if (stopped) return Promise.reject(stopped);
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (texts.length === 0) return Promise.resolve([]);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        const onAbort = () => {
          if (!pending.delete(id)) return;
          release();
          reject(signal?.reason);
          requests.postMessage({ type: "cancel", id } satisfies WorkerRequest);
        };
        hold();
        pending.set(id, {
          resolve: (v) => {
            signal?.removeEventListener("abort", onAbort);
            release();
            resolve(v);
          },
          reject: (e) => {
            signal?.removeEventListener("abort", onAbort);
            release();
            reject(e);
          },
        });
        signal?.addEventListener("abort", onAbort, { once: true });
        requests.postMessage({ type: "embed", id, texts: [...texts] } satisfies WorkerRequest);
      });
    },
    async dispose() {
      stop(
        new EmbedderUnavailableError(`Cannot embed with ${spec.model}: the embedder is closed`),
        new EmbedderUnavailableError(`Cannot load model ${spec.model}: the embedder is closed`),
      );
      await terminated;
    },
  };

  worker.on("message", (reply: WorkerReply) => {
    switch (reply.type) {
      case "progress":
        onProgress(reply.progress);
        break;
      case "ready":
        (backend as { dimensions: number }).dimensions = reply.dimensions;
        signal?.removeEventListener("abort", onAbort);
        settleLoad?.resolve(backend);
        settleLoad = undefined;
        release();
        break;
      case "failed": {
        const error = rebuild(reply.error, `Cannot load model ${spec.model}`);
        const loadError = error instanceof EmbedderUnavailableError
          ? error
          : new EmbedderUnavailableError(error.message, { cause: error });
        stop(error, loadError);
        break;
      }
      case "result":
      case "error": {
        const p = pending.get(reply.id);
        if (!p) break; // aborted meanwhile
        pending.delete(reply.id);
        if (reply.type === "result") p.resolve(reply.vectors);
        else p.reject(rebuild(reply.error, `Cannot embed with ${spec.model}`));
        break;
      }
    }
  });
  worker.on("error", (e: unknown) => {
    died(`the embedding worker failed (${e instanceof Error ? e.message : String(e)})`, e);
  });
  worker.on("exit", (code: number) => {
    died(`the embedding worker stopped (exit code ${code})`);
  });
  return loaded;
}

/** The caller-side error of a posted one: `EmbedderUnavailableError` keeps its message. */
function rebuild(error: PostedError, prefix: string): Error {
  if (error.code === "EMBEDDER_UNAVAILABLE") return new EmbedderUnavailableError(error.message);
  const message = error.message.startsWith("Cannot ")
    ? error.message
    : `${prefix}: ${error.message}`;
  return new MemoryError(message, { details: { name: error.name } });
}
