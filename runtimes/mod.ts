/**
 * Runtimes: the {@linkcode MemoMcpRuntime} interface and its implementations
 * (local, hybrid and cloud), the Cloud API client, their errors, and
 * the factories from configuration and from `MEMO_*` variables. Nothing here knows MCP: the
 * server and the CLI both call a runtime.
 *
 * @module
 */

export * from "./types.ts";
export * from "./errors.ts";
export {
  createMemoMcpRuntimeFromMemo,
  type LocalRuntimeOptions,
  recallDetailedOf,
} from "./local.ts";
export * from "./factory.ts";
export * from "./from_env.ts";
export * from "./cloud.ts";
export * from "./hybrid.ts";
export * from "./cloud_client.ts";
export {
  isMemoCloudError,
  MemoCloudError,
  type MemoCloudErrorCode,
  type MemoCloudErrorOptions,
} from "./_cloud_errors.ts";
export { createDeferredRuntime } from "./deferred.ts";
export { readProjectConfigFile } from "./_cloud_config.ts";
