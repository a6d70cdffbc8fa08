/**
 * Runtimes: the {@linkcode MemoMcpRuntime} interface and its implementations
 * (local now; hybrid and cloud later), and the factory from configuration.
 *
 * @module
 */

export * from "./types.ts";
export { createMemoMcpRuntimeFromMemo, type LocalRuntimeOptions } from "./local.ts";
export * from "./factory.ts";
export * from "./cloud.ts";
