/**
 * The hybrid runtime's class: the local runtime for every call, a replicator
 * beside it. Public surface: `hybrid.ts`.
 *
 * @module
 */

import type { MemoHybridMcpRuntime, MemoHybridMcpRuntimeOptions } from "./hybrid.ts";
import { createLazyLocalRuntime } from "./local.ts";
import { MemoRuntimeError } from "./errors.ts";

/** Builds the hybrid runtime (see `createMemoHybridMcpRuntime`). */
export function createHybridRuntime(options: MemoHybridMcpRuntimeOptions): MemoHybridMcpRuntime {
  const rootDir = options.rootDir ?? ".";
  const local = createLazyLocalRuntime(
    async () => {
      const { openMemo } = await import("@memo/memory");
      return await openMemo({ rootDir, store: options.store, engine: options.engine });
    },
    { rootDir, env: options.env, prewarm: options.prewarm ?? true },
  );
  return Object.assign(Object.create(null), {
    kind: "hybrid" as const,
    remember: local.remember.bind(local),
    recall: local.recall.bind(local),
    get: local.get.bind(local),
    list: local.list.bind(local),
    update: local.update.bind(local),
    forget: local.forget.bind(local),
    stats: local.stats.bind(local),
    syncConnectors: local.syncConnectors.bind(local),
    completeIds: local.completeIds.bind(local),
    watch: local.watch!.bind(local),
    close: local.close.bind(local),
    replicate(): Promise<never> {
      return Promise.reject(new MemoRuntimeError("UNAVAILABLE", "Cannot replicate: not yet"));
    },
  });
}
