/**
 * {@linkcode createMemoHybridMcpRuntime}: local-first memory that every machine of a team shares
 * through the Memo Cloud API. Every call is served by the local runtime (`notes.md`, at local
 * speed, whatever the cloud's state); a replicator pushes the local changes to the cloud and pulls
 * the other machines' changes into `notes.md` in the background.
 *
 * @module
 */

import { createDeferredRuntime } from "../start/deferred.ts";
import {
  checkInterval,
  DEFAULT_CLOSE_DRAIN_MS,
  DEFAULT_PULL_INTERVAL_MS,
  type MemoHybridMcpRuntimeOptions,
} from "./_options.ts";
import type {
  MemoMcpRuntime,
  Note,
  NoteDraft,
  RecallResult,
  ReplicateOptions,
  ReplicateResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeEmbedOptions,
  RuntimeEmbedResult,
  RuntimeRecallOptions,
  RuntimeRememberManyResult,
} from "../types.ts";

export type { MemoHybridMcpRuntimeOptions, UserReplicaOptions } from "./_options.ts";

/**
 * The hybrid runtime: a {@linkcode MemoMcpRuntime} that also replicates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime, type MemoHybridMcpRuntime } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime: MemoHybridMcpRuntime = createMemoHybridMcpRuntime({
 *   rootDir,
 *   baseUrl: "http://127.0.0.1:9",
 *   apiKey: "mk_example",
 *   workspaceId: "team",
 *   retry: { maxRetries: 0 },
 *   closeDrainMs: 100,
 * });
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * await assert.rejects(runtime.replicate(), { name: "MemoCloudError" }); // nothing listens
 * const { replica } = await runtime.stats();
 * assert.equal(replica?.outbox, 1); // kept for later
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoHybridMcpRuntime extends MemoMcpRuntime {
  /** Always `hybrid`. */
  readonly kind: "hybrid";
  /** Pushes the outbox and pulls the cloud's changes now. */
  replicate(options?: ReplicateOptions): Promise<ReplicateResult>;
  /** The local recall's hits (with the cloud's, `includeCloud`), engine and coverage. */
  recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult>;
  /** Embeds every local note not embedded yet. */
  embed(options?: RuntimeEmbedOptions): Promise<RuntimeEmbedResult>;
  /** Calls `onChange` after writes here, by other processes, and pulled from the cloud. */
  watch(onChange: (change: RuntimeChange) => void): () => void;
  /** Stores many notes in one local commit; the outbox takes them like any write. */
  rememberMany(
    drafts: readonly NoteDraft[],
    options?: RuntimeCallOptions,
  ): Promise<RuntimeRememberManyResult>;
  /** Removes notes in one local rewrite; the outbox takes the deletions like any write. */
  forgetMany(ids: readonly string[], options?: RuntimeCallOptions): Promise<Note[]>;
}

/**
 * Builds the hybrid runtime. It returns at once: the notes load and the first replication starts in
 * the background (`prewarm`), or at the first call. A cloud that is down, slow or misconfigured
 * never fails a call; it shows in `stats().replica.error`. The options are checked now (a bad
 * interval throws a `RangeError`); the runtime's code (the replicator, the cloud client, the memory
 * package) is loaded with it, in the background or at the first call, so that importing this module
 * costs nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * // No API key: the local notes work; replication says what is wrong.
 * const runtime = createMemoHybridMcpRuntime({ rootDir, baseUrl: "http://127.0.0.1:9" });
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * await runtime.replicate().catch(() => {});
 * const { notes, replica } = await runtime.stats();
 * assert.equal(notes, 1);
 * assert.match(replica?.error ?? "", /no API key/);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoHybridMcpRuntime(
  options: MemoHybridMcpRuntimeOptions = {},
): MemoHybridMcpRuntime {
  const settings = {
    pullIntervalMs: checkInterval(
      "pullIntervalMs",
      options.pullIntervalMs,
      DEFAULT_PULL_INTERVAL_MS,
      1,
    ),
    drainMs: checkInterval("closeDrainMs", options.closeDrainMs, DEFAULT_CLOSE_DRAIN_MS, 0),
  };
  const runtime = createDeferredRuntime("hybrid", async () => {
    const { buildHybridRuntime } = await import("./_build.ts");
    return buildHybridRuntime(options, settings);
  }) as MemoHybridMcpRuntime;
  if (options.prewarm ?? true) {
    // A listener builds it now (the notes load and replication starts); it leaves at once.
    runtime.watch(() => {})();
  }
  return runtime;
}
