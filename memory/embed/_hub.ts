/**
 * Internal: hub models (an id such as `Xenova/all-MiniLM-L6-v2`) through transformers.js, an
 * optional peer dependency imported only when such a model is loaded, through a specifier held in a
 * variable (so neither `deno run` nor a type check fetches it). Feature extraction with mean
 * pooling, normalised.
 *
 * @module
 */

import { EmbedderUnavailableError } from "../errors.ts";
import type { ModelProgress } from "./types.ts";
import { type Backend, toUnitVector } from "./_model.ts";

/**
 * The transformers.js package, imported at run time only. The npm build turns
 * this literal into the bare name `@huggingface/transformers`.
 */
const TRANSFORMERS = "npm:@huggingface/transformers@4.3.1";

/** Internal, for tests: overrides of transformers.js' `env`. */
export interface HubEnv {
  /** Where hub files are fetched from (`env.remoteHost`); local models are then off. */
  remoteHost?: string;
  /** Where fetched files are cached (`env.cacheDir`). */
  cacheDir?: string;
}

/** Options of {@linkcode loadHub}. */
export interface HubLoadOptions {
  /** Overrides of transformers.js' `env` (tests). */
  env?: HubEnv;
  /** Silence transformers.js' warnings (the worker thread sets it). @default false */
  quiet?: boolean;
  /** Imports a module by specifier (tests inject a failing one). @default dynamic import */
  importModule?: (specifier: string) => Promise<unknown>;
}

/** The parts of transformers.js used here (its own types are not imported). */
interface TransformersModule {
  env: {
    remoteHost: string;
    allowLocalModels: boolean;
    cacheDir: string | null;
    useFSCache: boolean;
    logLevel: number;
  };
  pipeline(
    task: "feature-extraction",
    model: string,
    options: { progress_callback?: (event: unknown) => void },
  ): Promise<FeatureExtractor>;
}

interface FeatureExtractor {
  (texts: string[], options: { pooling: "mean"; normalize: boolean }): Promise<{
    data: Float32Array;
    dims: number[];
    dispose?(): void;
  }>;
  dispose?(): Promise<unknown>;
}

/** transformers.js' `LogLevel.ERROR`. */
const LOG_LEVEL_ERROR = 40;

/**
 * Loads a hub model with transformers.js in this thread. `onProgress` gets transformers.js' own
 * events (`initiate`, `download`, `progress`, `done`, `ready`…), with `progress` clamped to 0..100
 * (0 when absent, 100 for `ready` and `done`).
 *
 * Fails with `EmbedderUnavailableError`: "Cannot load model X: install
 * @huggingface/transformers" when the package is missing, "Cannot load model
 * X: could not fetch its files (…)" when the hub cannot be reached or does not have the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadHub } from "./_hub.ts";
 * const missing = () => Promise.reject(Object.assign(new Error("not found"), { code: "ERR_MODULE_NOT_FOUND" }));
 * await assert.rejects(
 *   loadHub("Xenova/all-MiniLM-L6-v2", () => {}, { importModule: missing }),
 *   { code: "EMBEDDER_UNAVAILABLE", message: "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers" },
 * );
 * ```
 */
export async function loadHub(
  id: string,
  onProgress: (progress: ModelProgress) => void,
  options: HubLoadOptions = {},
): Promise<Backend> {
  const importModule = options.importModule ?? ((specifier: string) => import(specifier));
  let transformers: TransformersModule;
  try {
    transformers = await importModule(TRANSFORMERS) as TransformersModule;
  } catch (e) {
    throw new EmbedderUnavailableError(
      isModuleMissing(e)
        ? `Cannot load model ${id}: install @huggingface/transformers`
        : `Cannot load model ${id}: could not load @huggingface/transformers (${shortReason(e)})`,
      { cause: e, details: { model: id } },
    );
  }
  const { env } = transformers;
  if (options.quiet) env.logLevel = LOG_LEVEL_ERROR;
  if (options.env?.remoteHost !== undefined) {
    env.remoteHost = options.env.remoteHost.endsWith("/")
      ? options.env.remoteHost
      : `${options.env.remoteHost}/`;
    env.allowLocalModels = false;
  }
  if (options.env?.cacheDir !== undefined) {
    env.cacheDir = options.env.cacheDir;
    env.useFSCache = true;
  }

  let extractor: FeatureExtractor;
  let dimensions: number;
  try {
    extractor = await transformers.pipeline("feature-extraction", id, {
      progress_callback: (event) => onProgress(toModelProgress(event)),
    });
    const probe = await extractor(["dimensions"], { pooling: "mean", normalize: true });
    dimensions = probe.dims.at(-1) ?? 0;
    probe.dispose?.();
  } catch (e) {
    throw new EmbedderUnavailableError(
      isFetchFailure(e)
        ? `Cannot load model ${id}: could not fetch its files (${shortReason(e)})`
        : `Cannot load model ${id}: ${shortReason(e)}`,
      { cause: e, details: { model: id } },
    );
  }
  return {
    dimensions,
    async embed(texts) {
      if (texts.length === 0) return [];
      const out = await extractor([...texts], { pooling: "mean", normalize: true });
      try {
        const width = out.dims.at(-1) ?? dimensions;
        return texts.map((_, i) => toUnitVector(out.data.subarray(i * width, (i + 1) * width)));
      } finally {
        out.dispose?.();
      }
    },
    async dispose() {
      await extractor.dispose?.();
    },
  };
}

/**
 * A transformers.js progress event in the spec's shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toModelProgress } from "./_hub.ts";
 * assert.deepEqual(
 *   toModelProgress({ status: "progress", file: "onnx/model.onnx", progress: 42.5, loaded: 1 }),
 *   { status: "progress", progress: 42.5, file: "onnx/model.onnx" },
 * );
 * assert.deepEqual(toModelProgress({ status: "initiate", file: "config.json" }), {
 *   status: "initiate",
 *   progress: 0,
 *   file: "config.json",
 * });
 * assert.deepEqual(toModelProgress({ status: "ready", task: "feature-extraction" }), {
 *   status: "ready",
 *   progress: 100,
 * });
 * assert.equal(toModelProgress({ status: "progress", progress: 180 }).progress, 100);
 * ```
 */
export function toModelProgress(event: unknown): ModelProgress {
  const e = (event ?? {}) as { status?: unknown; progress?: unknown; file?: unknown };
  const status = typeof e.status === "string" ? e.status : "progress";
  const raw = typeof e.progress === "number" && Number.isFinite(e.progress)
    ? e.progress
    : status === "ready" || status === "done"
    ? 100
    : 0;
  const progress: ModelProgress = { status, progress: Math.min(100, Math.max(0, raw)) };
  if (typeof e.file === "string") progress.file = e.file;
  return progress;
}

/** Whether an import failed because the package is not installed. */
function isModuleMissing(e: unknown): boolean {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return true;
  return typeof message === "string" &&
    /cannot find (?:package|module)|could not find|module not found|not found in/i.test(message);
}

/** Whether a load failed at fetching the model's files. */
function isFetchFailure(e: unknown): boolean {
  for (let err = e, depth = 0; err && depth < 5; depth++) {
    const { name, message, code, cause } = err as {
      name?: unknown;
      message?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    if (name === "ModelFileNotFoundError" || name === "NotCapable") return true;
    if (
      typeof code === "string" &&
      /^(?:ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR)/.test(code)
    ) return true;
    if (
      typeof message === "string" &&
      /trying to load file|could not locate file|access to file|fetch failed|error sending request|requires net access|network/i
        .test(message)
    ) return true;
    err = cause;
  }
  return false;
}

/** A short, secret-free reason: the first line of the message (and its cause's). */
function shortReason(e: unknown): string {
  const messageOf = (x: unknown) =>
    x instanceof Error ? x.message : typeof x === "string" ? x : String(x);
  let text = messageOf(e).split("\n")[0].trim();
  const cause = (e as { cause?: unknown } | undefined)?.cause;
  if (/^fetch failed$/i.test(text) && cause !== undefined) {
    text += `: ${messageOf(cause).split("\n")[0].trim()}`;
  }
  text = text
    .replace(/\/\/[^/\s@"']+@/g, "//") // credentials in URLs
    .replace(/\bhf_[A-Za-z0-9]{6,}/g, "hf_…") // hub tokens
    .replace(/(https?:\/\/[^\s"'?#]*)[?#][^\s"']*/g, "$1") // query strings of URLs
    .replace(/\.$/, "");
  return text.length > 240 ? `${text.slice(0, 239)}…` : text || "unknown error";
}
