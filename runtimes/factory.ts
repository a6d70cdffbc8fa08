/**
 * {@linkcode createMemoMcpRuntimeFromConfig}: builds a runtime from plain configuration (`mode`,
 * `rootDir`, `store`, `recall.engine`, `cloud` …).
 *
 * @module
 */

import type {
  Embedder,
  EmbedderLoader,
  MemoryStore,
  ModelProgress,
  RecallEngine,
  ScopeSettings,
  SecretsPolicy,
} from "@memo/memory";
import { createMemoCloudMcpRuntime, type MemoCloudMcpRuntimeOptions } from "./cloud/runtime.ts";
import type { MemoCloudClient } from "./cloud/client.ts";
import { createMemoHybridMcpRuntime, type UserReplicaOptions } from "./hybrid/runtime.ts";
import { withUserReplica } from "./hybrid/user_replica.ts";
import { createLazyLocalRuntime, openOnce } from "./local/runtime.ts";
import type { MemoMcpRuntime, RuntimeScopes } from "./types.ts";
import { memoOptionsOf } from "./memo_options.ts";
import { checkRuntimeConfig } from "./runtime_config.ts";

export type { ModelProgress } from "@memo/memory";

/**
 * The `recall` options of {@linkcode RuntimeFactoryOptions}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeRecallSettings } from "@memo/mcp-server";
 * const recall: RuntimeRecallSettings = { engine: "lexical", localEmbeddings: false };
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall });
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * const [hit] = await runtime.recall("deploy", { limit: 1 });
 * assert.equal(hit.engine, "lexical");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeRecallSettings {
  /**
   * Engine used when a recall names none.
   * @default "auto"
   */
  engine?: RecallEngine;
  /**
   * Compute embeddings locally with the offline model.
   * @default true
   */
  localEmbeddings?: boolean;
  /**
   * Embedding model: `use-lite` (shipped on npm) or a hub model id.
   * @default "use-lite"
   */
  embeddingModel?: string;
  /**
   * Hybrid runtime: also ask the cloud on recall and merge its hits (marked `origin: "cloud"`,
   * de-duplicated by id against the local ones).
   * @default false
   */
  includeCloud?: boolean;
}

/**
 * Options of {@linkcode createMemoMcpRuntimeFromConfig}. All optional.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeFactoryOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const options: RuntimeFactoryOptions = {
 *   mode: "local",
 *   rootDir,
 *   recall: { engine: "lexical" },
 *   prewarm: false, // load the notes at the first call
 *   env: {}, // no connector tokens
 * };
 * const runtime = createMemoMcpRuntimeFromConfig(options);
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeFactoryOptions {
  /**
   * `local` (notes in this project), `hybrid` (notes in this project, replicated through the Memo
   * Cloud API to every machine of the project) or `cloud` (notes behind the Memo Cloud API).
   * @default "local"
   */
  mode?: "local" | "hybrid" | "cloud";
  /**
   * Project directory.
   * @default "." (the current directory)
   */
  rootDir?: string;
  /** Project id (hybrid and cloud). */
  projectId?: string;
  /** Workspace id (hybrid and cloud). */
  workspaceId?: string;
  /**
   * Store to use instead of the file store under `rootDir`.
   * @default a `FileMemoryStore` on `rootDir`
   */
  store?: MemoryStore;
  /**
   * Local and hybrid: the scopes served beside the project (`scopeSettingsOf`); only the project
   * replicates.
   * @default the project alone
   */
  scopes?: { settings: ScopeSettings; profile: RuntimeScopes };
  /**
   * Local and hybrid: the user scope's own replication (`$MEMO_HOME/config.json` with
   * `"runtime": "hybrid"`), with a cloud project of its own; it needs the user scope in `scopes`,
   * and is ignored by the cloud runtime, which serves the project alone.
   * @default undefined: the user scope stays on this machine
   */
  userReplica?: UserReplicaOptions;
  /** A ready Cloud API client (hybrid and cloud). */
  cloudClient?: MemoCloudClient;
  /**
   * Cloud API settings (hybrid and cloud): `baseUrl`, `apiKey`, `fetch` …; `workspaceId` and
   * `projectId` above win over theirs. `pullIntervalMs` (hybrid only, 10000 when missing) is how
   * often the hybrid runtime pulls the cloud's changes; `watchIntervalMs` is the cloud runtime's
   * only.
   */
  cloud?: Omit<MemoCloudMcpRuntimeOptions, "rootDir" | "env"> & { pullIntervalMs?: number };
  /** Recall settings. */
  recall?: RuntimeRecallSettings;
  /** Progress of an embedding model's download and load (local and hybrid). */
  onModelProgress?: (progress: ModelProgress) => void;
  /**
   * Load the notes (and the embedding model) at once instead of at the first call.
   * @default true
   */
  prewarm?: boolean;
  /**
   * Local and hybrid: once the notes are loaded, load the embedding model and embed new and changed
   * notes in the background, in batches (writes never wait for it). False embeds nothing except
   * through `embed()` (`memo embed`), and `auto` uses what the embedding cache holds: the short CLI
   * commands run so.
   * @default true
   */
  embedInBackground?: boolean;
  /**
   * Local and hybrid: an embedder, or a function that loads one, used instead of loading
   * `recall.embeddingModel` (tests inject a deterministic or a slow one).
   * @default undefined
   */
  embedder?: Embedder | EmbedderLoader;
  /**
   * Environment the connectors read their tokens from.
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * What a write does with a detected secret: `redact` (`[redacted:<rule-id>]`), `refuse`, or
   * `allow` (the guard off). Every runtime applies it before anything is written or sent.
   * @default "redact"
   */
  secrets?: SecretsPolicy;
}

/**
 * The settings hybrid and cloud share: `cloud`, plus the client and ids given beside it, the root
 * folder and the environment.
 */
function cloudSettingsOf<C extends object>(cloud: C, options: RuntimeFactoryOptions) {
  return {
    ...cloud,
    rootDir: options.rootDir ?? ".",
    env: options.env,
    ...(options.cloudClient ? { cloudClient: options.cloudClient } : {}),
    ...(options.workspaceId !== undefined ? { workspaceId: options.workspaceId } : {}),
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
  };
}

/**
 * Builds a runtime from configuration. `mode: "local"` (the default) wraps a memory client on
 * `rootDir` (or on `store`); the notes load in the background (`prewarm`) or at the first call, so
 * this returns at once. A configuration that cannot work throws at once (see
 * {@linkcode checkRuntimeConfig}); an I/O failure, such as an unreadable `notes.md`, fails each
 * call instead, and the next call tries again. `mode: "cloud"` builds
 * {@linkcode createMemoCloudMcpRuntime} from `cloud` (or `cloudClient`), with `rootDir` as the
 * folder of the connectors' configuration; it writes no notes there. `mode: "hybrid"` builds
 * {@linkcode createMemoHybridMcpRuntime}: the local notes on `rootDir`, replicated through the
 * cloud that `cloud` (or `cloudClient`) names, with `recall.includeCloud` and
 * `cloud.pullIntervalMs`; it needs no API key to start (writes stay local, and
 * `stats().replica.error` says what is wrong).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall: { engine: "lexical" } });
 * const { status } = await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.equal(status, "written");
 * assert.equal((await runtime.stats()).notes, 1);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ``` *
 * @example The hybrid runtime: local writes, replicated through the cloud
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({
 *   mode: "hybrid",
 *   rootDir,
 *   workspaceId: "team",
 *   cloud: { baseUrl: "http://127.0.0.1:9", pullIntervalMs: 60_000 }, // nothing listens there
 *   recall: { engine: "lexical", includeCloud: false },
 * });
 * assert.equal(runtime.kind, "hybrid");
 * // No API key and no server: the write still lands in notes.md.
 * const { status } = await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.equal(status, "written");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpRuntimeFromConfig(
  options: RuntimeFactoryOptions = {},
): MemoMcpRuntime {
  checkRuntimeConfig(options);
  const rootDir = options.rootDir ?? ".";
  if (options.mode === "hybrid") {
    const { watchIntervalMs: _cloudOnly, ...cloud } = options.cloud ?? {};
    return createMemoHybridMcpRuntime({
      ...cloudSettingsOf(cloud, options),
      store: options.store,
      scopes: options.scopes,
      ...(options.userReplica ? { userReplica: options.userReplica } : {}),
      ...memoOptionsOf(options),
      includeCloud: options.recall?.includeCloud,
      prewarm: options.prewarm ?? true,
    });
  }
  if (options.mode === "cloud") {
    const { pullIntervalMs: _hybridOnly, ...cloud } = options.cloud ?? {};
    return createMemoCloudMcpRuntime({
      ...cloudSettingsOf(cloud, options),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
    });
  }
  const prewarm = options.prewarm ?? true;
  const memo = openOnce(async () => {
    const { openMemo } = await import("@memo/memory");
    return await openMemo({
      rootDir,
      store: options.store,
      ...memoOptionsOf(options),
      ...(options.scopes ? { scopes: options.scopes.settings } : {}),
    });
  });
  const local = createLazyLocalRuntime(memo, {
    rootDir,
    env: options.env,
    prewarm,
    recall: () => ({
      ...memoOptionsOf(options),
      ...(options.scopes ? { scopes: options.scopes.profile } : {}),
    }),
  });
  return options.userReplica
    ? withUserReplica(local, memo, options.userReplica, { prewarm })
    : local;
}
