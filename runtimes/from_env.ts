/**
 * Choosing and building a runtime from options and `MEMO_*` variables: the
 * one factory that `http.ts`, `memo mcp`, `memo serve` and every other `memo`
 * command use, so that `MEMO_RUNTIME` and `MEMO_ROOT_DIR` apply everywhere.
 * Options win over variables.
 *
 * @module
 */

import { envChoice, type EnvMap, envString } from "../_env.ts";
import { createMemoCloudMcpRuntime, type MemoCloudMcpRuntimeOptions } from "./cloud.ts";
import { MemoRuntimeError } from "./errors.ts";
import { checkRuntimeConfig, createMemoMcpRuntimeFromConfig } from "./factory.ts";
import type { MemoMcpRuntime } from "./types.ts";

/**
 * Which runtime `MEMO_RUNTIME` selects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromEnv, type RuntimeMode } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const mode: RuntimeMode = "local"; // wins over MEMO_RUNTIME
 * const runtime = createMemoMcpRuntimeFromEnv({ env: { MEMO_RUNTIME: "cloud" }, mode, rootDir });
 * assert.equal(runtime.kind, "local");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type RuntimeMode = "local" | "hybrid" | "cloud";

const MODES: readonly RuntimeMode[] = ["local", "hybrid", "cloud"];

/**
 * What the runtime variables configure; a field is unset when its variable is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRuntimeEnv, type RuntimeEnvConfig } from "./from_env.ts";
 *
 * const env = { MEMO_CLOUD_BASE_URL: "https://cloud.example" };
 * const config: RuntimeEnvConfig = readRuntimeEnv(env);
 * assert.equal(config.runtime, undefined);
 * assert.equal(config.cloud.baseUrl, "https://cloud.example");
 * ```
 */
export interface RuntimeEnvConfig {
  /** `MEMO_RUNTIME`. */
  runtime?: RuntimeMode;
  /** `MEMO_ROOT_DIR`. */
  rootDir?: string;
  /** `MEMO_CLOUD_BASE_URL`, `MEMO_CLOUD_API_KEY`, `MEMO_CLOUD_WORKSPACE_ID`, `MEMO_CLOUD_PROJECT_ID`. */
  cloud: { baseUrl?: string; apiKey?: string; workspaceId?: string; projectId?: string };
}

/**
 * Reads `MEMO_RUNTIME`, `MEMO_ROOT_DIR` and the `MEMO_CLOUD_*` variables.
 * Throws a `MemoRuntimeError` (`CONFIG`) for a malformed `MEMO_RUNTIME`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRuntimeEnv } from "./from_env.ts";
 *
 * const config = readRuntimeEnv({ MEMO_RUNTIME: "Local", MEMO_ROOT_DIR: " /srv/notes " });
 * assert.equal(config.runtime, "local");
 * assert.equal(config.rootDir, "/srv/notes");
 * assert.throws(() => readRuntimeEnv({ MEMO_RUNTIME: "mars" }), { code: "CONFIG" });
 * ```
 */
export function readRuntimeEnv(env: EnvMap): RuntimeEnvConfig {
  let runtime: RuntimeMode | undefined;
  try {
    runtime = envChoice(env, "MEMO_RUNTIME", MODES);
  } catch (e) {
    throw new MemoRuntimeError("CONFIG", (e as Error).message);
  }
  return {
    runtime,
    rootDir: envString(env, "MEMO_ROOT_DIR"),
    cloud: {
      baseUrl: envString(env, "MEMO_CLOUD_BASE_URL"),
      apiKey: envString(env, "MEMO_CLOUD_API_KEY"),
      workspaceId: envString(env, "MEMO_CLOUD_WORKSPACE_ID"),
      projectId: envString(env, "MEMO_CLOUD_PROJECT_ID"),
    },
  };
}

/**
 * Options of {@linkcode runtimeFactoryFromEnv} and {@linkcode createMemoMcpRuntimeFromEnv}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromEnv, type RuntimeFromEnvOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * // MEMO_ROOT_DIR wins over cwd; a rootDir option would win over both.
 * const options: RuntimeFromEnvOptions = { env: { MEMO_ROOT_DIR: rootDir }, cwd: "/nowhere" };
 * const runtime = createMemoMcpRuntimeFromEnv(options);
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * assert.ok((await Deno.readTextFile(`${rootDir}/.memo/memory/notes.md`)).includes("make deploy"));
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeFromEnvOptions {
  /**
   * The `MEMO_*` variables, and the connector tokens the local runtime's
   * `sync_connectors` reads.
   */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The runtime to use; wins over `MEMO_RUNTIME`.
   * @default {MEMO_RUNTIME, else "local"}
   */
  mode?: RuntimeMode;
  /**
   * Project root of the local and hybrid runtimes; wins over `MEMO_ROOT_DIR`.
   * @default {MEMO_ROOT_DIR, else `cwd`}
   */
  rootDir?: string;
  /**
   * Project root when neither `rootDir` nor `MEMO_ROOT_DIR` is set.
   * @default "."
   */
  cwd?: string;
  /**
   * Cloud API settings laid over the `MEMO_CLOUD_*` variables (hybrid and
   * cloud).
   * @default undefined
   */
  cloud?: Partial<MemoCloudMcpRuntimeOptions>;
  /**
   * Load the notes as soon as the runtime is built, instead of at the first call.
   * @default true
   */
  prewarm?: boolean;
}

/**
 * Reads and checks the configuration now, and returns the function that
 * builds the runtime. A configuration that cannot work (a malformed
 * `MEMO_RUNTIME`, a runtime this version lacks) throws here, with a
 * `MemoRuntimeError`; building happens when the caller is ready, for
 * example at an endpoint's first request. The builder may be given the
 * project root then, when finding it must wait.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeFactoryFromEnv } from "./from_env.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const build = runtimeFactoryFromEnv({ env: { MEMO_ROOT_DIR: rootDir } });
 * const runtime = build();
 * assert.equal(runtime.kind, "local");
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.close();
 * assert.throws(() => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" } }), {
 *   code: "UNAVAILABLE",
 * });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function runtimeFactoryFromEnv(
  options: RuntimeFromEnvOptions,
): (rootDir?: string) => MemoMcpRuntime {
  const config = readRuntimeEnv(options.env);
  const mode = options.mode ?? config.runtime ?? "local";
  const cloud = { ...definedOnly(config.cloud), ...definedOnly(options.cloud ?? {}) };
  checkRuntimeConfig({ mode });
  if (mode === "cloud") return () => createMemoCloudMcpRuntime(cloud);
  const configuredRoot = options.rootDir ?? config.rootDir ?? options.cwd ?? ".";
  return (rootDir = configuredRoot) =>
    createMemoMcpRuntimeFromConfig({
      mode,
      rootDir,
      env: options.env,
      prewarm: options.prewarm,
      ...(mode === "hybrid" ? { cloud } : {}),
    });
}

/**
 * Builds the runtime that the options and the `MEMO_*` variables select:
 * `MEMO_RUNTIME` (`local`, the default, on `MEMO_ROOT_DIR`; `hybrid`;
 * `cloud`). Throws a `MemoRuntimeError` for a configuration that cannot work.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromEnv } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromEnv({ env: {}, rootDir });
 * const { note } = await runtime.remember({ text: "Releases are cut on Mondays" });
 * assert.equal((await runtime.get(note.id)).title, "Releases are cut on Mondays");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpRuntimeFromEnv(options: RuntimeFromEnvOptions): MemoMcpRuntime {
  return runtimeFactoryFromEnv(options)();
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
