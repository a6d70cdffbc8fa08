/**
 * The one seam between the local runtime and `@memo/connectors`: runs the
 * connectors configured in `<rootDir>/.memo/config.json` through the memory
 * client.
 *
 * @module
 */

import type { MemoLike, RuntimeSyncOptions, RuntimeSyncResult } from "./types.ts";

/** Options of {@linkcode runConfiguredConnectors}: the sync's options, plus where and with what. */
export interface RunConfiguredOptions extends RuntimeSyncOptions {
  /** Project root. */
  rootDir: string;
  /** Environment holding the connector tokens. */
  env: Record<string, string | undefined>;
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
  return await syncConfiguredConnectors(memo, options);
}
