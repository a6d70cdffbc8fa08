/**
 * Internal: runs a backend's work in small chunks, shortest request first, and yields to the event
 * loop between chunks. A query (one short text) waits for at most one chunk of a big background
 * batch, not for the whole batch; and texts of similar length are embedded together, which USE-lite
 * does faster than a mixed batch (it pads every text to the longest one).
 *
 * @module
 */

import { setImmediate } from "node:timers";
import type { Backend } from "./_backend.ts";

/** How work is cut. */
export interface ChunkOptions {
  /**
   * Most texts in one chunk. use-lite's cost is per text (about 40 texts/s for 170-character
   * texts here whether 1 or 16 go in a call), so small chunks cost no throughput and keep a
   * query's wait behind a running batch to about one chunk (~50 ms).
   * @default 2
   */
  maxTexts?: number;
  /** Most characters in one chunk (a longer text is a chunk of its own). @default 400 */
  maxChars?: number;
  /**
   * Called before each chunk is chosen, to take in calls that arrived during
   * the last chunk (the worker drains its request port here).
   */
  beforeChunk?: () => void;
}

interface Job {
  texts: readonly string[];
  /** Indices of `texts`, shortest text first. */
  order: number[];
  /** How many of `order` are done. */
  done: number;
  vectors: Float32Array[];
  seq: number;
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

/**
 * Wraps `backend` so its `embed` calls are cut into chunks and scheduled shortest-remaining first
 * (ties: first come), with a macrotask between chunks. Vectors come back in the caller's order; an
 * aborted call is dropped from the queue.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scheduleChunks } from "./_scheduler.ts";
 * const calls: string[][] = [];
 * const backend = scheduleChunks({
 *   dimensions: 1,
 *   embed: (texts) => {
 *     calls.push([...texts]);
 *     return Promise.resolve(texts.map((t) => Float32Array.of(t.length)));
 *   },
 *   dispose: () => Promise.resolve(),
 * }, { maxTexts: 2 });
 * const vectors = await backend.embed(["ccc", "a", "bb"]);
 * assert.deepEqual(vectors.map((v) => v[0]), [3, 1, 2]); // the caller's order
 * assert.deepEqual(calls, [["a", "bb"], ["ccc"]]); // shortest first, two per chunk
 * ```
 */
export function scheduleChunks(backend: Backend, options: ChunkOptions = {}): Backend {
  const maxTexts = options.maxTexts ?? 2;
  const maxChars = options.maxChars ?? 400;
  const jobs: Job[] = [];
  let seq = 0;
  let running = false;

  const remove = (job: Job) => {
    const i = jobs.indexOf(job);
    if (i >= 0) jobs.splice(i, 1);
  };

  const pump = async () => {
    if (running) return;
    running = true;
    try {
      while (jobs.length > 0) {
        options.beforeChunk?.();
        if (jobs.length === 0) break;
        let job = jobs[0];
        for (const other of jobs) {
          const left = other.order.length - other.done;
          const best = job.order.length - job.done;
          if (left < best || (left === best && other.seq < job.seq)) job = other;
        }
        const chunk: number[] = [];
        let chars = 0;
        for (let k = job.done; k < job.order.length && chunk.length < maxTexts; k++) {
          const length = job.texts[job.order[k]].length;
          if (chunk.length > 0 && chars + length > maxChars) break;
          chunk.push(job.order[k]);
          chars += length;
        }
        try {
          const vectors = await backend.embed(chunk.map((i) => job.texts[i]));
          if (jobs.includes(job)) {
            chunk.forEach((i, k) => (job.vectors[i] = vectors[k]));
            job.done += chunk.length;
            if (job.done === job.order.length) {
              remove(job);
              job.resolve(job.vectors);
            }
          }
        } catch (e) {
          if (jobs.includes(job)) {
            remove(job);
            job.reject(e);
          }
        }
        // Let timers and I/O in before the next chunk.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      running = false;
    }
  };

  return {
    dimensions: backend.dimensions,
    embed(texts, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (texts.length === 0) return Promise.resolve([]);
      return new Promise<Float32Array[]>((resolve, reject) => {
        const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
        const job: Job = {
          texts,
          order,
          done: 0,
          vectors: new Array(texts.length),
          seq: seq++,
          resolve,
          reject,
        };
        signal?.addEventListener("abort", () => {
          if (!jobs.includes(job)) return;
          remove(job);
          reject(signal.reason);
        }, { once: true });
        jobs.push(job);
        void pump();
      });
    },
    dispose() {
      for (const job of jobs.splice(0)) job.reject(new Error("the embedder is closed"));
      return backend.dispose();
    },
  };
}
