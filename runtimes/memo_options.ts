/**
 * Internal: the recall and embedding settings a runtime hands to `openMemo`.
 *
 * @module
 */

import type { MemoOptions } from "@memo/memory";

/** The recall and embedding settings of a runtime, as `openMemo` names them. */
export type MemoEmbeddingSettings = Pick<
  MemoOptions,
  | "engine"
  | "localEmbeddings"
  | "embeddingModel"
  | "embedder"
  | "onModelProgress"
  | "embedInBackground"
  | "secrets"
>;

const KEYS = [
  "engine",
  "localEmbeddings",
  "embeddingModel",
  "embedder",
  "onModelProgress",
  "embedInBackground",
  "secrets",
] as const;

/**
 * The settings of `options` that `openMemo` takes, without the unset ones
 * (so that `openMemo`'s defaults apply).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoEmbeddingOptions } from "./memo_options.ts";
 * assert.deepEqual(
 *   memoEmbeddingOptions({ engine: "auto", embeddingModel: undefined, embedInBackground: false }),
 *   { engine: "auto", embedInBackground: false },
 * );
 * ```
 */
export function memoEmbeddingOptions(options: MemoEmbeddingSettings): MemoEmbeddingSettings {
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as MemoEmbeddingSettings;
}

/**
 * The `openMemo` settings of a factory configuration: `recall.engine`,
 * `recall.localEmbeddings`, `recall.embeddingModel`, `onModelProgress`,
 * `embedInBackground`, `embedder` and `secrets`, without the unset ones.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoOptionsOf } from "./memo_options.ts";
 * assert.deepEqual(
 *   memoOptionsOf({ recall: { engine: "hybrid", embeddingModel: undefined }, embedInBackground: false }),
 *   { engine: "hybrid", embedInBackground: false },
 * );
 * ```
 */
export function memoOptionsOf(options: {
  recall?: Pick<MemoOptions, "engine" | "localEmbeddings" | "embeddingModel">;
  onModelProgress?: MemoOptions["onModelProgress"];
  embedInBackground?: boolean;
  embedder?: MemoOptions["embedder"];
  secrets?: MemoOptions["secrets"];
}): MemoEmbeddingSettings {
  return memoEmbeddingOptions({
    engine: options.recall?.engine,
    localEmbeddings: options.recall?.localEmbeddings,
    embeddingModel: options.recall?.embeddingModel,
    onModelProgress: options.onModelProgress,
    embedInBackground: options.embedInBackground,
    embedder: options.embedder,
    secrets: options.secrets,
  });
}
