/**
 * {@linkcode createMemoHybridMcpRuntime}: local-first memory that every
 * machine of a team shares through the Memo Cloud API. Every call is served
 * by the local runtime (`notes.md`, at local speed, whatever the cloud's
 * state); a replicator pushes the local changes to the cloud and pulls the
 * other machines' changes into `notes.md` in the background.
 *
 * @module
 */

import type {
  Embedder,
  EmbedderLoader,
  Memo,
  MemoryStore,
  ModelProgress,
  RecallEngine,
  SecretsPolicy,
} from "@memo/memory";
import { MemoCloudClient, type MemoCloudOptions } from "./cloud_client.ts";
import {
  checkInterval,
  DEFAULT_CLOSE_DRAIN_MS,
  DEFAULT_PULL_INTERVAL_MS,
  HybridRuntime,
} from "./_hybrid_runtime.ts";
import { isConnectionRefused } from "./_cloud_transport.ts";
import { createLazyLocalRuntime, openOnce } from "./local.ts";
import { Replicator } from "./_replicator.ts";
import { memoEmbeddingOptions } from "./_memo_options.ts";
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
} from "./types.ts";

/**
 * Options of {@linkcode createMemoHybridMcpRuntime}: the Cloud API settings
 * (`baseUrl`, `apiKey`, `workspaceId`, `projectId`, `timeoutMs`, `retry` …)
 * or a ready `cloudClient`, plus where the local notes are and how often to
 * pull.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime, type MemoHybridMcpRuntimeOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const options: MemoHybridMcpRuntimeOptions = {
 *   rootDir,
 *   baseUrl: "http://127.0.0.1:9", // nothing listens there: writes still succeed
 *   apiKey: "mk_example",
 *   workspaceId: "team",
 *   pullIntervalMs: 60_000,
 *   closeDrainMs: 100,
 * };
 * const runtime = createMemoHybridMcpRuntime(options);
 * const { status } = await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.equal(status, "written");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoHybridMcpRuntimeOptions extends MemoCloudOptions {
  /**
   * Project folder: the notes are in `<rootDir>/.memo/memory/notes.md`, the
   * replication state in `<rootDir>/.memo/replica/`.
   * @default "." (the current directory)
   */
  rootDir?: string;
  /** A ready Cloud API client; built from the other fields when missing. */
  cloudClient?: MemoCloudClient;
  /**
   * `fetch` the client uses (when it is built here).
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * Local store; it must be able to write notes verbatim (`applyReplica`).
   * @default a `FileMemoryStore` on `rootDir`
   */
  store?: MemoryStore;
  /**
   * Engine of a recall that names none.
   * @default "auto"
   */
  engine?: RecallEngine;
  /**
   * Compute embeddings on this machine (the vector, hybrid and auto engines).
   * @default true
   */
  localEmbeddings?: boolean;
  /**
   * Embedding model: `use-lite` (offline) or a hub model id.
   * @default "use-lite"
   */
  embeddingModel?: string;
  /**
   * An embedder (or its loader) to use instead of loading `embeddingModel`.
   * @default undefined
   */
  embedder?: Embedder | EmbedderLoader;
  /**
   * Progress of the embedding model's download and load.
   * @default undefined
   */
  onModelProgress?: (progress: ModelProgress) => void;
  /**
   * Load the embedder after the notes and embed new and changed notes in the
   * background; false embeds only on `embed()`.
   * @default true
   */
  embedInBackground?: boolean;
  /**
   * Environment the connectors read their tokens from.
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * Load the notes and start replicating at once, instead of at the first call.
   * @default true
   */
  prewarm?: boolean;
  /**
   * How often to pull the cloud's changes (and push anything left), in milliseconds.
   * @default 10000
   */
  pullIntervalMs?: number;
  /**
   * Also ask the cloud on recall, and merge its hits (marked `origin: "cloud"`).
   * @default false
   */
  includeCloud?: boolean;
  /**
   * How long `close()` keeps pushing the outbox, in milliseconds.
   * @default 1000
   */
  closeDrainMs?: number;
  /**
   * What a write does with a detected secret, before it reaches `notes.md` or the outbox:
   * `redact`, `refuse` or `allow` (see `@memo/memory`'s `MemoOptions.secrets`).
   * @default "redact"
   */
  secrets?: SecretsPolicy;
}

/**
 * The hybrid runtime: a {@linkcode MemoMcpRuntime} that also replicates.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime, type MemoHybridMcpRuntime } from "@memo/mcp-server";
 *
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
 * Builds the hybrid runtime. It returns at once: the notes load and the
 * first replication starts in the background (`prewarm`), or at the first
 * call. A cloud that is down, slow or misconfigured never fails a call; it
 * shows in `stats().replica.error`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime } from "@memo/mcp-server";
 *
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
  return createHybridRuntime(options);
}

function createHybridRuntime(options: MemoHybridMcpRuntimeOptions): MemoHybridMcpRuntime {
  const rootDir = options.rootDir ?? ".";
  const pullIntervalMs = checkInterval(
    "pullIntervalMs",
    options.pullIntervalMs,
    DEFAULT_PULL_INTERVAL_MS,
    1,
  );
  const drainMs = checkInterval("closeDrainMs", options.closeDrainMs, DEFAULT_CLOSE_DRAIN_MS, 0);
  // One client for the local runtime and the replicator.
  const memo = openOnce(async (): Promise<Memo> => {
    const { openMemo } = await import("@memo/memory");
    return await openMemo({ rootDir, store: options.store, ...memoEmbeddingOptions(options) });
  });
  const prewarm = options.prewarm ?? true;
  const local = createLazyLocalRuntime(memo, { rootDir, env: options.env, prewarm });
  let client: MemoCloudClient | undefined = options.cloudClient;
  const cloudClient = () => {
    if (client) return client;
    const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    client = new MemoCloudClient({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      workspaceId: options.workspaceId,
      projectId: options.projectId,
      timeoutMs: options.timeoutMs,
      userAgent: options.userAgent,
      requireApiKey: options.requireApiKey,
      retry: options.retry,
      fetch: async (input, init) => {
        try {
          return await fetchImpl(input, init);
        } catch (e) {
          if (isConnectionRefused(e)) replicator.refused(); // called after it is built
          throw e;
        }
      },
    });
    return client;
  };
  const replicator = new Replicator({ rootDir, memo, client: cloudClient, pullIntervalMs });
  if (prewarm) replicator.start();
  return new HybridRuntime(local, replicator, cloudClient, {
    includeCloud: options.includeCloud ?? false,
    drainMs,
  });
}
