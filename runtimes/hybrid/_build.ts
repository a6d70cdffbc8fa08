/**
 * The hybrid runtime itself, loaded by `createMemoHybridMcpRuntime` (`runtime.ts`) when it is
 * first used: the local runtime, the cloud client and the replicator (which bring in the memory
 * package). A process that does not use the hybrid runtime loads none of it.
 *
 * @module
 */

import type { Memo } from "@memo/memory";
import { createHybridRuntime } from "./_built_runtime.ts";
import { lazyReplicaClient } from "./_replica_client.ts";
import { createLazyLocalRuntime, openOnce } from "../local/runtime.ts";
import { Replicator } from "./_replicator.ts";
import { buildUserReplicator } from "./_user_replicator.ts";
import { memoEmbeddingOptions } from "../memo_options.ts";
import type { MemoHybridMcpRuntimeOptions } from "./_options.ts";
import type { MemoMcpRuntime } from "../types.ts";

/**
 * Builds the hybrid runtime of `options`, whose intervals are already checked: `pullIntervalMs`
 * and `drainMs` are the checked values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { buildHybridRuntime } from "./_build.ts";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = buildHybridRuntime(
 *   { rootDir, baseUrl: "http://127.0.0.1:9", prewarm: false },
 *   { pullIntervalMs: 60_000, drainMs: 0 },
 * );
 * assert.equal(runtime.kind, "hybrid");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function buildHybridRuntime(
  options: MemoHybridMcpRuntimeOptions,
  { pullIntervalMs, drainMs }: { pullIntervalMs: number; drainMs: number },
): MemoMcpRuntime {
  const rootDir = options.rootDir ?? ".";
  const memo = openOnce(async (): Promise<Memo> => {
    const { openMemo } = await import("@memo/memory");
    return await openMemo({
      rootDir,
      store: options.store,
      ...memoEmbeddingOptions(options),
      ...(options.scopes ? { scopes: options.scopes.settings } : {}),
    });
  });
  const prewarm = options.prewarm ?? true;
  const local = createLazyLocalRuntime(memo, {
    rootDir,
    env: options.env,
    prewarm,
    recall: () => ({
      ...memoEmbeddingOptions(options),
      ...(options.scopes ? { scopes: options.scopes.profile } : {}),
    }),
  });
  const lazyClient = lazyReplicaClient(options, () => replicator.refused()); // called after it is built
  const cloudClient = options.cloudClient ? () => options.cloudClient! : lazyClient;
  const replicator = new Replicator({ rootDir, memo, client: cloudClient, pullIntervalMs });
  // The user scope's own replication: the notes open through the local runtime, which closes them.
  const user = options.userReplica && buildUserReplicator(() => {
    local.watch!(() => {})();
    return memo();
  }, options.userReplica);
  if (prewarm) {
    replicator.start();
    user?.start();
  }
  return createHybridRuntime(local, replicator, cloudClient, {
    includeCloud: options.includeCloud ?? false,
    drainMs,
    user,
  });
}
