/**
 * Internal: a runtime's {@linkcode RuntimeRecallProfile}, from its recall settings or from an open
 * memory client. The memory package (`autoEngineOf`) is imported when a profile is asked for, so
 * that this module costs nothing at start.
 *
 * @module
 */

import type { MemoEmbeddingSettings } from "../memo_options.ts";
import type { MemoLike, RuntimeRecallProfile, RuntimeScopes } from "../types.ts";

/**
 * The profile of recall settings as `openMemo` takes them (`engine` defaults to `auto`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recallProfileOf } from "./_recall_profile.ts";
 * const profile = await recallProfileOf({ embeddingModel: "Xenova/all-MiniLM-L6-v2" });
 * assert.deepEqual(profile, {
 *   engine: "auto",
 *   auto: { engine: "hybrid", model: "Xenova/all-MiniLM-L6-v2" },
 * });
 * assert.equal((await recallProfileOf({ localEmbeddings: false })).auto.reason, "local embeddings are off");
 * ```
 */
export async function recallProfileOf(
  settings: MemoEmbeddingSettings & { scopes?: RuntimeScopes },
): Promise<RuntimeRecallProfile> {
  const { autoEngineOf } = await import("@memo/memory");
  const profile: RuntimeRecallProfile = {
    engine: settings.engine ?? "auto",
    auto: autoEngineOf(settings),
  };
  if (settings.scopes) profile.scopes = settings.scopes;
  return profile;
}

/**
 * The profile of an open memory client: its engine, and its model as `embeddingStatus()` says
 * (local embeddings count as off when the client reports no status).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { recallProfileOfMemo } from "./_recall_profile.ts";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir, engine: "lexical" });
 * const profile = await recallProfileOfMemo(memo);
 * assert.equal(profile.engine, "lexical");
 * assert.equal(profile.auto.model, "use-lite");
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function recallProfileOfMemo(memo: MemoLike): Promise<RuntimeRecallProfile> {
  const status = memo.embeddingStatus?.();
  return recallProfileOf({
    engine: memo.engine,
    embeddingModel: status?.model,
    localEmbeddings: status !== undefined && status.state !== "off",
  });
}
