/**
 * What the `auto` recall engine does with a configuration: fuse lexical and vector recall
 * (`hybrid`, once some note is embedded), or stay `lexical`. It reads no notes and loads no
 * embedding code, so a runtime can tell before it opens anything, and a `Memo` client knows
 * from it whether its engine needs the model at all.
 *
 * @module
 */

import { DEFAULT_EMBEDDING_MODEL, type Embedder, type EmbedderLoader } from "../embed/types.ts";

/**
 * Models with which `auto` stays lexical. On the LoCoMo dev split, hybrid recall with `use-lite`
 * did not beat lexical recall by the 0.03 (R@10 and nDCG@10) memo asks of it before making it
 * the default (bench/README.md, "Semantic recall"); `vector` and `hybrid` still use it when
 * asked by name. Hub models and injected embedders fuse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AUTO_LEXICAL_MODELS } from "@memo/memory";
 * assert.ok(AUTO_LEXICAL_MODELS.has("use-lite"));
 * assert.ok(!AUTO_LEXICAL_MODELS.has("Xenova/all-MiniLM-L6-v2"));
 * ```
 */
export const AUTO_LEXICAL_MODELS: ReadonlySet<string> = new Set(["use-lite"]);

/**
 * The settings that decide what `auto` does, as {@linkcode MemoOptions} names them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AutoEngineSettings, autoEngineOf } from "@memo/memory";
 * const settings: AutoEngineSettings = { embeddingModel: "Xenova/all-MiniLM-L6-v2" };
 * assert.equal(autoEngineOf(settings).engine, "hybrid");
 * ```
 */
export interface AutoEngineSettings {
  /**
   * The embedding model.
   * @default "use-lite"
   */
  embeddingModel?: string;
  /**
   * Embed on this machine at all.
   * @default true
   */
  localEmbeddings?: boolean;
  /**
   * An embedder, or its loader, used instead of loading `embeddingModel` (used even when
   * `localEmbeddings` is false).
   * @default undefined
   */
  embedder?: Embedder | EmbedderLoader;
}

/**
 * What `auto` does with a configuration (see {@linkcode autoEngineOf}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AutoEngine, autoEngineOf } from "@memo/memory";
 * const auto: AutoEngine = autoEngineOf({ localEmbeddings: false });
 * assert.deepEqual(auto, { engine: "lexical", model: "use-lite", reason: "local embeddings are off" });
 * ```
 */
export interface AutoEngine {
  /**
   * `hybrid`: auto fuses lexical and vector recall once some note is embedded (lexical until
   * then, and for the notes not embedded yet); `lexical`: it never uses the model.
   */
  engine: "lexical" | "hybrid";
  /** The embedding model (an injected embedder's own name). */
  model: string;
  /** Why auto stays lexical, when it does. */
  reason?: string;
}

/**
 * What `auto` does with these settings: `lexical` when local embeddings are off (and no embedder
 * is given) or with a model of {@linkcode AUTO_LEXICAL_MODELS} (`use-lite`), `hybrid` with a hub
 * model or an injected embedder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { autoEngineOf } from "@memo/memory";
 * const lite = autoEngineOf({});
 * assert.equal(lite.engine, "lexical");
 * assert.match(lite.reason ?? "", /^hybrid recall with use-lite did not beat lexical recall/);
 * assert.deepEqual(autoEngineOf({ embeddingModel: "Xenova/all-MiniLM-L6-v2" }), {
 *   engine: "hybrid",
 *   model: "Xenova/all-MiniLM-L6-v2",
 * });
 * ```
 */
export function autoEngineOf(settings: AutoEngineSettings = {}): AutoEngine {
  const given = settings.embedder;
  const model = given && typeof given !== "function"
    ? given.model
    : settings.embeddingModel ?? DEFAULT_EMBEDDING_MODEL;
  if (settings.localEmbeddings === false && !given) {
    return { engine: "lexical", model, reason: "local embeddings are off" };
  }
  if (AUTO_LEXICAL_MODELS.has(model)) {
    return {
      engine: "lexical",
      model,
      reason: `hybrid recall with ${model} did not beat lexical recall on the LoCoMo dev ` +
        "split (bench/README.md), so auto stays lexical; ask for vector or hybrid by name",
    };
  }
  return { engine: "hybrid", model };
}
