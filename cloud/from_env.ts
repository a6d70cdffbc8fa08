/**
 * The reference server assembled from `MEMO_CLOUD_*` variables: the configuration, its store and
 * the handler. `cloud/main.ts` (`deno serve`) and `memo cloud serve` both start this way.
 *
 * @module
 */

import { createMemoCloudHandler, type MemoCloudHandler } from "./app.ts";
import { type CloudConfig, readCloudConfig } from "./config.ts";
import { openCloudStore } from "./open_store.ts";
import type { CloudStore } from "./store.ts";

/**
 * A running server's parts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudServer } from "./from_env.ts";
 *
 * function kindOf(server: MemoCloudServer): string {
 *   return server.store.kind;
 * }
 * assert.equal(typeof kindOf, "function");
 * ```
 */
export interface MemoCloudServer {
  /** The Cloud API handler. */
  handler: MemoCloudHandler;
  /** The store it serves. */
  store: CloudStore;
  /** What it was configured with. */
  config: CloudConfig;
  /** Closes the store. */
  close(): Promise<void>;
}

/**
 * Options of {@linkcode createMemoCloudServerFromEnv}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoCloudServerOptions } from "./from_env.ts";
 *
 * const lines: string[] = [];
 * const options: MemoCloudServerOptions = { cwd: "/srv", log: (line) => lines.push(line) };
 * assert.equal(options.cwd, "/srv");
 * ```
 */
export interface MemoCloudServerOptions {
  /**
   * Folder a relative `MEMO_CLOUD_DATA_DIR` is resolved against.
   * @default {the process's working directory}
   */
  cwd?: string;
  /** Receives the log lines. */
  log?: (line: string) => void;
  /**
   * True once the server drains before it stops (`GET /readyz` answers 503).
   * @default {() => false}
   */
  draining?: () => boolean;
  /**
   * The clock of the store and the handler.
   * @default {() => new Date()}
   */
  clock?: () => Date;
}

/**
 * Reads the configuration from `env`, opens its store and creates the handler. Throws before
 * opening anything when the configuration is bad (no keys: "Cannot start the cloud API:
 * MEMO_CLOUD_API_KEYS is empty; …").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudServerFromEnv } from "./from_env.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const server = await createMemoCloudServerFromEnv({
 *   MEMO_CLOUD_API_KEYS: "k-team:team",
 *   MEMO_CLOUD_DATA_DIR: dataDir,
 * });
 * const response = await server.handler(new Request("http://127.0.0.1:8788/v1/health"));
 * assert.equal((await response.json()).store, "file");
 * await server.close();
 * await Deno.remove(dataDir, { recursive: true });
 *
 * await assert.rejects(createMemoCloudServerFromEnv({}), /MEMO_CLOUD_API_KEYS is empty/);
 * ```
 */
export async function createMemoCloudServerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: MemoCloudServerOptions = {},
): Promise<MemoCloudServer> {
  const config = readCloudConfig(env, { cwd: options.cwd });
  const store = await openCloudStore(config, { clock: options.clock, log: options.log });
  try {
    const handler = createMemoCloudHandler({
      store,
      apiKeys: config.apiKeys,
      operatorKeys: config.operatorKeys,
      draining: options.draining,
      rateLimit: config.rateLimit,
      maxBodyBytes: config.maxBodyBytes,
      logLevel: config.logLevel,
      secrets: config.secrets,
      log: options.log,
      clock: options.clock,
    });
    return { handler, store, config, close: () => store.close() };
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
}
