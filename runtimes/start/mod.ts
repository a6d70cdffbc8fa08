/**
 * The runtimes' light entry, for a process's start: reading the runtime variables and the
 * project's configuration file, and building (or deferring) the runtime they select. It loads
 * neither the cloud client nor the hybrid runtime (each loads when it is configured), so that
 * `memo mcp`, `memo serve` and the short commands start with only what the local runtime needs.
 * Everything here is also exported by `runtimes/mod.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRuntimeEnv, runtimeFactoryFromEnv } from "./mod.ts";
 * assert.equal(readRuntimeEnv({ MEMO_RUNTIME: "local" }).runtime, "local");
 * const rootDir = await Deno.makeTempDir();
 * const runtime = runtimeFactoryFromEnv({ env: {}, prewarm: false })(rootDir);
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @module
 */

export {
  createMemoMcpRuntimeFromEnv,
  readRuntimeEnv,
  type RuntimeEnvConfig,
  runtimeFactoryFromEnv,
  type RuntimeFromEnvOptions,
  type RuntimeMode,
} from "./from_env.ts";
export { createDeferredRuntime } from "./deferred.ts";
export { readProjectConfigFile, readProjectRuntimeConfig } from "../cloud/config.ts";
export { checkRuntimeConfig } from "../runtime_config.ts";
