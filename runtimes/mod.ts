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
} from "./local/runtime.ts";
export * from "./factory.ts";
export * from "./start/from_env.ts";
export * from "./cloud/runtime.ts";
export * from "./hybrid/runtime.ts";
export * from "./cloud/client.ts";
export {
  isMemoCloudError,
  MemoCloudError,
  type MemoCloudErrorCode,
  type MemoCloudErrorOptions,
} from "./cloud/errors.ts";
export { createDeferredRuntime } from "./start/deferred.ts";
export { readProjectConfigFile } from "./cloud/config.ts";
