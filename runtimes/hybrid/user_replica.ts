/**
 * {@linkcode withUserReplica}: a local runtime whose user scope has a hybrid runtime of its own
 * (`$MEMO_HOME/config.json`), so that the person's notes follow them across machines while the
 * project's stay local. The replicator's code loads with the runtime, in the background or at the
 * first call.
 *
 * @module
 */

import type { Memo } from "@memo/memory";
import { createDeferredRuntime } from "../start/deferred.ts";
import { checkInterval, DEFAULT_CLOSE_DRAIN_MS, type UserReplicaOptions } from "./_options.ts";
import type { MemoMcpRuntime } from "../types.ts";

/**
 * `local` (a local runtime serving the user scope, over the memory client `memo`) with the user
 * scope replicated per `options`: a replicator of the user store, with its own cloud client and
 * pull interval, started with the runtime (at once when `prewarm`), kicked by its writes, run by
 * `replicate()` (which `local` lacks otherwise) and drained for at most `closeDrainMs` by
 * `close()`. `stats()` adds `userReplica`. The runtime keeps `kind` `local`; the project's notes
 * never leave this machine.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo, scopeSettingsOf, withUserReplica } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const memoHome = await Deno.makeTempDir();
 * const { settings } = scopeSettingsOf({}, { MEMO_HOME: memoHome });
 * const memo = await openMemo({ rootDir, scopes: settings });
 * const local = createMemoMcpRuntimeFromMemo(memo, { rootDir, closeMemo: true });
 * const runtime = withUserReplica(local, () => Promise.resolve(memo), {
 *   memoHome,
 *   baseUrl: "http://127.0.0.1:9", // no API key: the user's notes stay here, and stats say why
 * }, { prewarm: false });
 * await runtime.remember({ text: "Ada prefers tabs", scope: "user" });
 * await assert.rejects(runtime.replicate!(), { code: "config" });
 * const { userReplica, replica } = await runtime.stats();
 * assert.match(userReplica?.error ?? "", /set MEMO_USER_CLOUD_API_KEY/);
 * assert.equal(userReplica?.outbox, 1);
 * assert.equal(replica, undefined); // the project's notes do not replicate
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * await Deno.remove(memoHome, { recursive: true });
 * ```
 */
export function withUserReplica(
  local: MemoMcpRuntime,
  memo: () => Promise<Memo>,
  options: UserReplicaOptions,
  settings: {
    /**
     * Start replicating at once, instead of at the first call.
     * @default true
     */
    prewarm?: boolean;
    /**
     * How long `close()` keeps pushing the user scope's outbox, in milliseconds.
     * @default 1000
     */
    closeDrainMs?: number;
  } = {},
): MemoMcpRuntime {
  const drainMs = checkInterval(
    "closeDrainMs",
    settings.closeDrainMs,
    DEFAULT_CLOSE_DRAIN_MS,
    0,
  );
  const prewarm = settings.prewarm ?? true;
  const runtime = createDeferredRuntime("local", async () => {
    const [{ buildUserReplicator }, { createHybridRuntime }] = await Promise.all([
      import("./_user_replicator.ts"),
      import("./_built_runtime.ts"),
    ]);
    // The notes open through the local runtime, which closes them.
    const user = buildUserReplicator(() => {
      local.watch?.(() => {})();
      return memo();
    }, options);
    if (prewarm) user.start();
    return createHybridRuntime(local, undefined, undefined, {
      includeCloud: false,
      drainMs,
      user,
      kind: "local",
    });
  });
  if (prewarm) runtime.watch(() => {})();
  return runtime;
}
