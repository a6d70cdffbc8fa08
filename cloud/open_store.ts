/**
 * Opens the store a configuration names: the PostgreSQL store when `databaseUrl` is set (its driver
 * is imported only then), else the file store in `dataDir`.
 *
 * @module
 */

import type { CloudConfig } from "./config.ts";
import type { CloudStore } from "./store.ts";

/**
 * Options of {@linkcode openCloudStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { OpenCloudStoreOptions } from "./open_store.ts";
 *
 * const options: OpenCloudStoreOptions = { clock: () => new Date("2026-01-01T00:00:00Z") };
 * assert.equal(options.clock!().getUTCFullYear(), 2026);
 * ```
 */
export interface OpenCloudStoreOptions {
  /**
   * The store's clock.
   * @default {() => new Date()}
   */
  clock?: () => Date;
  /** Receives a line for each failure of the store's background work. */
  log?: (line: string) => void;
}

/**
 * Opens the store of `config`: `PostgresCloudStore` (connects and migrates) when `databaseUrl` is
 * set, else `FileCloudStore` on `dataDir`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openCloudStore } from "./open_store.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const store = await openCloudStore({ dataDir });
 * assert.equal(store.kind, "file");
 * await store.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export async function openCloudStore(
  config:
    & Pick<CloudConfig, "databaseUrl" | "dataDir">
    & Partial<Pick<CloudConfig, "indexBudgetMb">>,
  options: OpenCloudStoreOptions = {},
): Promise<CloudStore> {
  const { indexBudgetMb } = config;
  if (config.databaseUrl !== undefined) {
    const { PostgresCloudStore } = await import("./postgres/store.ts");
    return await PostgresCloudStore.open({
      url: config.databaseUrl,
      clock: options.clock,
      indexBudgetMb,
      log: options.log,
    });
  }
  const { FileCloudStore } = await import("./file/store.ts");
  return new FileCloudStore({ dataDir: config.dataDir, clock: options.clock, indexBudgetMb });
}
