/**
 * The long runs of a runtime and their progress: a connector sync, a replication with the cloud,
 * and embedding the notes. `types.ts` re-exports them.
 *
 * @module
 */

import type {
  ConnectorProgress,
  ConnectorRunError,
  ConnectorRunSummary,
  RunConnectorsResult,
} from "@memo/connectors";
import type { RuntimeCallOptions } from "./_call_options.ts";

/** One connector's counts in a sync (the connectors' `ConnectorRunSummary`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeConnectorSummary } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const [summary]: RuntimeConnectorSummary[] = (await runtime.syncConnectors()).connectors;
 * assert.deepEqual(summary, {
 *   id: "team",
 *   type: "discussions",
 *   fetched: 0,
 *   written: 0,
 *   updated: 0,
 *   unchanged: 0,
 * });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeConnectorSummary = ConnectorRunSummary;

/** One failed connector of a sync (the connectors' `ConnectorRunError`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeConnectorFailure } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const [failure]: RuntimeConnectorFailure[] = (await runtime.syncConnectors()).errors;
 * assert.equal(failure.connector, "team");
 * assert.equal(failure.error.name, "RepoHostAuthError");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeConnectorFailure = ConnectorRunError;

/**
 * What {@linkcode MemoMcpRuntime.syncConnectors} reports (the connectors' `RunConnectorsResult`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeSyncResult } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * // Without .memo/config.json there is nothing to sync.
 * const result: RuntimeSyncResult = await runtime.syncConnectors();
 * assert.deepEqual(result, { connectors: [], written: 0, updated: 0, unchanged: 0, errors: [] });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeSyncResult = RunConnectorsResult;

/** Options of {@linkcode MemoMcpRuntime.syncConnectors}. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   isMemoRuntimeError,
 *   type RuntimeSyncOptions,
 * } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const options: RuntimeSyncOptions = { only: ["wiki"], full: true };
 * await assert.rejects(
 *   runtime.syncConnectors(options), // no connector "wiki" is configured
 *   (e) => isMemoRuntimeError(e, "CONNECTOR_NOT_FOUND"),
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeSyncOptions extends RuntimeCallOptions {
  /** Ids of the connectors to run; all configured ones when missing. */
  only?: string[];
  /**
   * Ignore the incremental-sync state and read everything again (`memo sync --full`).
   * @default false
   */
  full?: boolean;
  /**
   * Called as each connector fetches pages and commits.
   * @default undefined
   */
  onProgress?: (progress: RuntimeSyncProgress) => void;
}

/** Progress of one connector during a sync (the connectors' `ConnectorProgress`). *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeSyncProgress } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * // No token in this environment: the connector fails at once, without the network.
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
 * const seen: RuntimeSyncProgress[] = [];
 * await runtime.syncConnectors({ onProgress: (progress) => void seen.push(progress) });
 * assert.deepEqual(seen.map((p) => [p.connector, p.phase]), [["team", "failed"]]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeSyncProgress = ConnectorProgress;

/**
 * Options of {@linkcode MemoMcpRuntime.replicate}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateOptions, ReplicateProgress } from "@memo/mcp-server";
 * const seen: ReplicateProgress[] = [];
 * const options: ReplicateOptions = { onProgress: (p) => seen.push(p) };
 * options.onProgress!({ phase: "push", done: 3, total: 10 });
 * assert.deepEqual(seen, [{ phase: "push", done: 3, total: 10 }]);
 * ```
 */
export interface ReplicateOptions extends RuntimeCallOptions {
  /** Called as changes move. */
  onProgress?: (progress: ReplicateProgress) => void;
}

/**
 * How far a replication got: `done` of `total` changes in this phase.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateProgress } from "@memo/mcp-server";
 * const progress: ReplicateProgress = { phase: "pull", done: 100 }; // total unknown while pulling
 * assert.equal(progress.total, undefined);
 * ```
 */
export interface ReplicateProgress {
  /** `pull` (the cloud's changes coming in) or `push` (the outbox going out). */
  phase: "pull" | "push";
  /** Changes moved so far in this phase. */
  done: number;
  /** Changes in this phase, when known. */
  total?: number;
}

/**
 * What {@linkcode MemoMcpRuntime.replicate} moved (`memo replicate --json`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ReplicateResult } from "@memo/mcp-server";
 * const result: ReplicateResult = { pushed: 2, pulled: 5, conflicts: 0, outbox: 0 };
 * assert.equal(result.outbox, 0); // everything local is in the cloud
 * ```
 */
export interface ReplicateResult {
  /** Local changes the cloud took. */
  pushed: number;
  /** Cloud changes applied here. */
  pulled: number;
  /** Conflicts resolved (each kept the losing version as a `conflict` note). */
  conflicts: number;
  /** Local changes still waiting. */
  outbox: number;
  /**
   * When the user scope has a hybrid runtime of its own (`$MEMO_HOME/config.json`), what each
   * replication moved: `project` (the team's cloud project) and `user` (the person's); the counts
   * above are then their sums. Absent when only the project replicates.
   */
  scopes?: Partial<Record<"project" | "user", ReplicateResult>>;
}

/**
 * Options of {@linkcode MemoMcpRuntime.embed}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RuntimeEmbedOptions } from "@memo/mcp-server";
 * const seen: string[] = [];
 * const options: RuntimeEmbedOptions = { onProgress: (done, total) => seen.push(`${done}/${total}`) };
 * options.onProgress!(32, 400);
 * assert.deepEqual(seen, ["32/400"]);
 * ```
 */
export interface RuntimeEmbedOptions extends RuntimeCallOptions {
  /**
   * Called after each batch: notes embedded so far, of the notes in all.
   * @default undefined
   */
  onProgress?: (done: number, total: number) => void;
}

/**
 * What {@linkcode MemoMcpRuntime.embed} did (`memo embed --json`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RuntimeEmbedResult } from "@memo/mcp-server";
 * const result: RuntimeEmbedResult = { model: "use-lite", embedded: 400, total: 400, computed: 280 };
 * assert.equal(result.embedded - result.computed, 120); // found in the embedding cache
 * ```
 */
export interface RuntimeEmbedResult {
  /** The embedding model. */
  model: string;
  /** Notes embedded now, whether computed or found in the cache. */
  embedded: number;
  /** Notes in all. */
  total: number;
  /** Embeddings computed by the model in this call (the rest came from the cache). */
  computed: number;
}
