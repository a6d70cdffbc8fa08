/**
 * Internal: what the `recall` tool tells the model about the engines, from the runtime's recall
 * settings (`MemoMcpRuntime.recallProfile`): what `auto` does with the configured model, and
 * the default engine. Without a profile (the cloud runtime, the SDK bridge), the text says how
 * `auto` follows the model.
 *
 * @module
 */

import type { RuntimeRecallProfile } from "../../runtimes/types.ts";

/**
 * The sentences of the `recall` tool's description about the engines: which is the default, and
 * what `auto` does with the configured model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { engineSentences } from "./_recall_text.ts";
 *
 * const lite = engineSentences({
 *   engine: "auto",
 *   auto: { engine: "lexical", model: "use-lite", reason: "…" },
 * });
 * assert.match(lite, /and auto \(the default\)\. Here auto is lexical: with use-lite, fusing/);
 * const hub = engineSentences({ engine: "lexical", auto: { engine: "hybrid", model: "Xenova/all-MiniLM-L6-v2" } });
 * assert.match(hub, /and auto; the default here is lexical\. Here auto is hybrid with Xenova\/all-MiniLM-L6-v2/);
 * assert.match(engineSentences(undefined), /\. With a hub model, auto is hybrid/);
 * ```
 */
export function engineSentences(profile: RuntimeRecallProfile | undefined): string {
  const engines =
    "Engines: lexical (words), vector (meaning, through local embeddings), hybrid (both, fused) " +
    "and auto";
  if (!profile) {
    return `${engines} (the default). With a hub model, auto is hybrid over the notes embedded ` +
      "so far (lexical for the rest and while no embedder is ready); with use-lite, the offline " +
      "default model, it stays lexical.";
  }
  const head = profile.engine === "auto"
    ? `${engines} (the default).`
    : `${engines}; the default here is ${profile.engine}.`;
  const { engine, model, reason } = profile.auto;
  if (engine === "hybrid") {
    return `${head} Here auto is hybrid with ${model}: it fuses lexical and vector ranks over ` +
      "the notes embedded so far, and is lexical for the rest and while the model loads.";
  }
  if (reason === "local embeddings are off") {
    return `${head} Here auto is lexical: local embeddings are off, so vector and hybrid are ` +
      "refused.";
  }
  return `${head} Here auto is lexical: with ${model}, fusing did not beat lexical recall, so ` +
    "auto never uses it; vector and hybrid still do when asked by name (the first such call " +
    "loads the model).";
}

/**
 * The description of the `recall` tool's `engine` argument.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { engineArgument } from "./_recall_text.ts";
 *
 * assert.equal(
 *   engineArgument({ engine: "auto", auto: { engine: "lexical", model: "use-lite", reason: "…" } }),
 *   "Ranking engine; auto when omitted. auto is lexical with use-lite; vector and hybrid rank only the notes embedded so far.",
 * );
 * ```
 */
export function engineArgument(profile: RuntimeRecallProfile | undefined): string {
  if (!profile) {
    return "Ranking engine: auto (the default) is hybrid over the notes embedded so far with a " +
      "hub model and lexical with use-lite; vector and hybrid rank only the notes embedded so far.";
  }
  const { engine, model, reason } = profile.auto;
  const head = `Ranking engine; ${profile.engine} when omitted.`;
  if (engine === "hybrid") {
    return `${head} auto is hybrid with ${model} (lexical for the notes not embedded yet); ` +
      "vector and hybrid rank only the notes embedded so far.";
  }
  if (reason === "local embeddings are off") {
    return `${head} auto is lexical; vector and hybrid are refused (local embeddings are off).`;
  }
  return `${head} auto is lexical with ${model}; vector and hybrid rank only the notes embedded ` +
    "so far.";
}
