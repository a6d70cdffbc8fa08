/**
 * {@linkcode createMemoMcpRuntimeFromConfig}: builds a runtime from plain
 * configuration (`mode`, `rootDir`, `store`, `recall.engine` …).
 *
 * @module
 */

import type { MemoryStore, RecallEngine } from "@memo/memory";
import { MemoMcpError } from "../server/errors.ts";
import type { MemoCloudClient, MemoCloudOptions } from "./cloud.ts";
import { createLazyLocalRuntime } from "./local.ts";
import type { MemoMcpRuntime } from "./types.ts";

/** Progress of a model download or load, as `onModelProgress` receives it. */
export interface ModelProgress {
  /** 0 to 100. */
  progress: number;
  /** What is happening (`download`, `ready` …). */
  status: string;
  /** File being fetched, if any. */
  file?: string;
}

/** The `recall` options of {@linkcode RuntimeFactoryOptions}. */
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
}

/**
 * Options of {@linkcode createMemoMcpRuntimeFromConfig}. All optional.
 *
 * @example
 * ```ts
 * import type { RuntimeFactoryOptions } from "@memo/mcp-server";
 * const options: RuntimeFactoryOptions = { mode: "local", rootDir: ".", recall: { engine: "lexical" } };
 * ```
 */
export interface RuntimeFactoryOptions {
  /**
   * `local` (notes in this project) or `hybrid` (local plus a cloud replica).
   * @default "local"
   */
  mode?: "local" | "hybrid";
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
  /** A ready Cloud API client (hybrid). */
  cloudClient?: MemoCloudClient;
  /** Cloud API settings (hybrid). */
  cloud?: MemoCloudOptions;
  /** Recall settings. */
  recall?: RuntimeRecallSettings;
  /** Progress of an embedding model's download and load. */
  onModelProgress?: (progress: ModelProgress) => void;
  /**
   * Load the notes (and the embedding model) at once instead of at the first call.
   * @default true
   */
  prewarm?: boolean;
  /**
   * Environment the connectors read their tokens from.
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
}

/**
 * Builds a runtime from configuration. `mode: "local"` (the default) wraps a
 * memory client on `rootDir` (or on `store`); the notes load in the
 * background (`prewarm`) or at the first call, so this returns at once. The
 * hybrid mode is not available in this version and throws a `MemoMcpError`.
 *
 * @example
 * ```ts
 * import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir: ".", recall: { engine: "lexical" } });
 * const server = createMemoMcpProtocolServer({ runtime });
 * ```
 */
export function createMemoMcpRuntimeFromConfig(
  options: RuntimeFactoryOptions = {},
): MemoMcpRuntime {
  const mode = options.mode ?? "local";
  if (mode === "hybrid") {
    throw new MemoMcpError("Cannot start the hybrid runtime: not available in this version");
  }
  if (mode !== "local") {
    const shown = String(mode).slice(0, 40);
    throw new MemoMcpError(
      shown === "cloud"
        ? "Cannot start the cloud runtime: not available in this version"
        : `Cannot start the runtime: unknown mode ${JSON.stringify(shown)} (use local or hybrid)`,
    );
  }
  const rootDir = options.rootDir ?? ".";
  return createLazyLocalRuntime(
    async () => {
      const { openMemo } = await import("@memo/memory");
      return await openMemo({ rootDir, store: options.store, engine: options.recall?.engine });
    },
    { rootDir, env: options.env, prewarm: options.prewarm ?? true },
  );
}
