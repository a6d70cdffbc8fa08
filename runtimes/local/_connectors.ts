/**
 * The one seam between the local runtime and `@memo/connectors`: runs the connectors configured in
 * `<rootDir>/.memo/config.json` through the memory client.
 *
 * @module
 */

import type { MemoLike, RuntimeSyncOptions, RuntimeSyncResult } from "../types.ts";

/**
 * Options of {@linkcode runConfiguredConnectors}: the sync's options, plus where and with what.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { runConfiguredConnectors, type RunConfiguredOptions } from "./_connectors.ts";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * const options: RunConfiguredOptions = { rootDir, env: {}, full: true };
 * const result = await runConfiguredConnectors(memo, options);
 * assert.deepEqual(result.connectors, []); // nothing configured
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RunConfiguredOptions extends RuntimeSyncOptions {
  /** Project root. */
  rootDir: string;
  /** Environment holding the connector tokens. */
  env: Record<string, string | undefined>;
}

/**
 * Runs the connectors configured in `<rootDir>/.memo/config.json` through
 * `syncConfiguredConnectors` of `@memo/connectors`, imported at the first sync so that `memo mcp`
 * starts without loading the connectors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { runConfiguredConnectors } from "./_connectors.ts";
 * const rootDir = await Deno.makeTempDir();
 * await Deno.mkdir(`${rootDir}/.memo`);
 * const team = { id: "team", type: "discussions", repositories: ["acme/handbook"] };
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ connectors: [team] }));
 * const memo = await openMemo({ rootDir });
 * // No GitHub token in `env`: the connector fails at once, without the network.
 * const result = await runConfiguredConnectors(memo, { rootDir, env: {} });
 * assert.equal(result.errors[0].connector, "team");
 * assert.equal(result.errors[0].error.name, "RepoHostAuthError");
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function runConfiguredConnectors(
  memo: MemoLike,
  options: RunConfiguredOptions,
): Promise<RuntimeSyncResult> {
  const { syncConfiguredConnectors } = await import("@memo/connectors");
  return await syncConfiguredConnectors(memo, options);
}
