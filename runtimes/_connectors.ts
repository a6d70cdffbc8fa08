/**
 * The one seam between the local runtime and `@memo/connectors`: runs the
 * connectors configured in `<rootDir>/.memo/config.json` through the memory
 * client.
 *
 * @module
 */

import type { MemoLike, RuntimeSyncProgress, RuntimeSyncResult } from "./types.ts";

/** Options of {@linkcode runConfiguredConnectors}. */
export interface RunConfiguredOptions {
  /** Project root. */
  rootDir: string;
  /** Environment holding the connector tokens. */
  env: Record<string, string | undefined>;
  /** Aborts the run. */
  signal?: AbortSignal;
  /** Ids of the connectors to run; all when missing. */
  only?: string[];
  /** Ignore the incremental-sync state. */
  full?: boolean;
  /** Progress of each connector. */
  onProgress?: (progress: RuntimeSyncProgress) => void;
}

/**
 * Runs the connectors configured in `<rootDir>/.memo/config.json` through
 * `syncConfiguredConnectors` of `@memo/connectors`, imported at the first
 * sync so that `memo mcp` starts without loading the connectors.
 */
export async function runConfiguredConnectors(
  memo: MemoLike,
  options: RunConfiguredOptions,
): Promise<RuntimeSyncResult> {
  const { syncConfiguredConnectors } = await import("@memo/connectors");
  return await syncConfiguredConnectors(memo, {
    rootDir: options.rootDir,
    env: options.env,
    signal: options.signal,
    only: options.only,
    full: options.full,
    onProgress: options.onProgress,
  });
}
