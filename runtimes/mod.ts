/**
 * Runtimes: the {@linkcode MemoMcpRuntime} interface and its implementations
 * (local now; hybrid and cloud later), their errors, and the factories from
 * configuration and from `MEMO_*` variables. Nothing here knows MCP: the
 * server and the CLI both call a runtime.
 *
 * @module
 */

export * from "./types.ts";
export * from "./errors.ts";
export { createMemoMcpRuntimeFromMemo, type LocalRuntimeOptions } from "./local.ts";
export * from "./factory.ts";
export * from "./from_env.ts";
export * from "./cloud.ts";
export { createDeferredRuntime } from "./deferred.ts";
