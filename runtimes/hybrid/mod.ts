/**
 * The hybrid runtime: the local runtime, replicated with a Memo Cloud
 * workspace in the background (push of local writes, pull of the change feed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoHybridMcpRuntime } from "./mod.ts";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoHybridMcpRuntime({
 *   rootDir,
 *   baseUrl: "https://cloud.example",
 *   apiKey: "mk_example",
 *   prewarm: false,
 * });
 * assert.equal(runtime.kind, "hybrid");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @module
 */

export * from "./runtime.ts";
export * from "./user_config.ts";
export * from "./user_replica.ts";
