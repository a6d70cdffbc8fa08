/**
 * The options of the hybrid runtime ({@linkcode MemoHybridMcpRuntimeOptions}, public through
 * `runtime.ts`), their defaults and their checks: what `createMemoHybridMcpRuntime` reads before it
 * loads the runtime itself (`_build.ts`).
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
import type { MemoCloudClient, MemoCloudOptions } from "../cloud/client.ts";
import type { RuntimeScopes } from "../types.ts";

/**
 * Options of {@linkcode createMemoHybridMcpRuntime}: the Cloud API settings (`baseUrl`, `apiKey`,
 * `workspaceId`, `projectId`, `timeoutMs`, `retry` …) or a ready `cloudClient`, plus where the
 * local notes are and how often to pull.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime, type MemoHybridMcpRuntimeOptions } from "@memo/mcp-server";
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
   * Project folder: the notes are in `<rootDir>/.memo/memory/notes.md`, the replication state in
   * `<rootDir>/.memo/replica/`.
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
   * The scopes served beside the project (`scopeSettingsOf`): the local and user notes are read
   * and written on this machine, and only the project's replicate.
   * @default the project alone
   */
  scopes?: { settings: ScopeSettings; profile: RuntimeScopes };
  /**
   * The user scope's own replication, when `$MEMO_HOME/config.json` gives the user store a hybrid
   * runtime: a second replicator, with its own cloud client and pull interval, started and closed
   * with this runtime. It needs the user scope served (`scopes`).
   * @default undefined: the user scope stays on this machine
   */
  userReplica?: UserReplicaOptions;
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
   * Load the embedder after the notes and embed new and changed notes in the background; false
   * embeds only on `embed()`.
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
   * What a write does with a detected secret, before it reaches `notes.md` or the outbox: `redact`,
   * `refuse` or `allow` (see `@memo/memory`'s `MemoOptions.secrets`).
   * @default "redact"
   */
  secrets?: SecretsPolicy;
}

/**
 * The user scope's own replication (`$MEMO_HOME/config.json` with `"runtime": "hybrid"`): the
 * user store (`<memoHome>/memory/notes.md`) replicated with a cloud project of its own, separate
 * from the team's, with its state in `<memoHome>/replica/`. The environment's `MEMO_CLOUD_*`
 * variables never apply to it; its API key comes from `MEMO_USER_CLOUD_API_KEY` (or code).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UserReplicaOptions } from "@memo/mcp-server";
 * const user: UserReplicaOptions = {
 *   memoHome: "/home/ada/.local/share/memo",
 *   baseUrl: "https://cloud.example",
 *   apiKey: "mk_ada",
 *   workspaceId: "ada",
 *   projectId: "me",
 * };
 * assert.equal(user.pullIntervalMs, undefined); // 10000
 * ```
 */
export interface UserReplicaOptions extends MemoCloudOptions {
  /** The user scope's home (`MEMO_HOME`): its state goes to `<memoHome>/replica/`. */
  memoHome: string;
  /**
   * `fetch` its client uses.
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  /**
   * How often to pull the user cloud's changes, in milliseconds.
   * @default 10000
   */
  pullIntervalMs?: number;
}

/** Default of `pullIntervalMs`. */
export const DEFAULT_PULL_INTERVAL_MS = 10_000;
/** Default of `closeDrainMs`. */
export const DEFAULT_CLOSE_DRAIN_MS = 1_000;

/** An integer option of at least `min` milliseconds, or its default. */
export function checkInterval(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    const rule = min === 1 ? "a positive integer" : `an integer of at least ${min}`;
    throw new RangeError(`Cannot start the hybrid runtime: ${name} must be ${rule}`);
  }
  return value;
}
