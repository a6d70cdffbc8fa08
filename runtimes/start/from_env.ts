/**
 * Choosing and building a runtime from options, `MEMO_*` variables and the project's
 * `.memo/config.json`: the one factory that `http.ts`, `memo mcp`, `memo serve` and every other
 * `memo` command use, so that `MEMO_RUNTIME`, `MEMO_ROOT_DIR` and the file's `runtime` apply
 * everywhere. Precedence: options > `MEMO_*` variables > `.memo/config.json` > defaults.
 *
 * @module
 */

import type { Embedder, EmbedderLoader, SecretsPolicy } from "@memo/memory";
import { type EnvMap, memoHomeOf, readEnv, type RuntimeEnv, type RuntimeMode } from "../../env.ts";
import type { UserReplicaOptions } from "../hybrid/runtime.ts";
import type { withUserReplica as WithUserReplica } from "../hybrid/user_replica.ts";
import { type ProjectRuntimeConfig, readProjectRuntimeConfig } from "../cloud/config.ts";
import type { MemoCloudMcpRuntimeOptions } from "../cloud/runtime.ts";
import { createDeferredRuntime } from "./deferred.ts";
import { MemoRuntimeError } from "../errors.ts";
import type { ModelProgress, RuntimeRecallSettings } from "../factory.ts";
import { checkRuntimeConfig } from "../runtime_config.ts";
import { createLazyLocalRuntime, openOnce } from "../local/runtime.ts";
import { memoOptionsOf } from "../memo_options.ts";
import { scopeSettingsOf } from "../scopes.ts";
import type { MemoMcpRuntime } from "../types.ts";

export type { RuntimeMode };

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
export type RuntimeEnvConfig = RuntimeEnv;

/**
 * Reads `MEMO_RUNTIME`, `MEMO_ROOT_DIR`, the `MEMO_CLOUD_*` variables and the recall ones
 * (`MEMO_RECALL_ENGINE`, `MEMO_EMBEDDING_MODEL`, `MEMO_LOCAL_EMBEDDINGS`). Throws a
 * `MemoRuntimeError` (`CONFIG`) naming the variable for a malformed `MEMO_RUNTIME` or
 * `MEMO_RECALL_ENGINE`, a `MEMO_LOCAL_EMBEDDINGS` that is not true or false, or a
 * `MEMO_CLOUD_PULL_INTERVAL_MS` that is not a positive integer.
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
 * assert.equal(readRuntimeEnv({ MEMO_CLOUD_PULL_INTERVAL_MS: "30000" }).cloud.pullIntervalMs, 30000);
 * assert.throws(() => readRuntimeEnv({ MEMO_CLOUD_PULL_INTERVAL_MS: "10s" }), {
 *   code: "CONFIG",
 *   message: "Cannot read MEMO_CLOUD_PULL_INTERVAL_MS: expected an integer from 1 to 1000000000, got 10s",
 * });
 * const recall = readRuntimeEnv({ MEMO_RECALL_ENGINE: "Hybrid", MEMO_LOCAL_EMBEDDINGS: "false" }).recall;
 * assert.deepEqual(recall, { engine: "hybrid", localEmbeddings: false });
 * assert.equal(readRuntimeEnv({ MEMO_SECRETS: "Refuse" }).secrets, "refuse");
 * assert.throws(() => readRuntimeEnv({ MEMO_SECRETS: "off" }), {
 *   code: "CONFIG",
 *   message: "Cannot read MEMO_SECRETS: expected redact, refuse or allow, got off",
 * });
 * assert.throws(() => readRuntimeEnv({ MEMO_LOCAL_EMBEDDINGS: "maybe" }), {
 *   code: "CONFIG",
 *   message: "Cannot read MEMO_LOCAL_EMBEDDINGS: expected true or false",
 * });
 * ```
 */
export function readRuntimeEnv(env: EnvMap): RuntimeEnvConfig {
  try {
    return readEnv(env, "runtime");
  } catch (e) {
    throw new MemoRuntimeError("CONFIG", (e as Error).message);
  }
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
   * The `MEMO_*` variables, and the connector tokens the local runtime's `sync_connectors` reads.
   */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The runtime to use; wins over `MEMO_RUNTIME` and `.memo/config.json`'s `runtime`.
   * @default {MEMO_RUNTIME, else .memo/config.json's runtime, else "local"}
   */
  mode?: RuntimeMode;
  /**
   * Project root (the folder of `.memo/`): the local runtime's notes, and every runtime's
   * `.memo/config.json`; wins over `MEMO_ROOT_DIR`.
   * @default {MEMO_ROOT_DIR, else `cwd`}
   */
  rootDir?: string;
  /**
   * Project root when neither `rootDir` nor `MEMO_ROOT_DIR` is set.
   * @default "."
   */
  cwd?: string;
  /**
   * Cloud API settings laid over the `MEMO_CLOUD_*` variables, which are laid over
   * `.memo/config.json`'s `cloud` (hybrid and cloud); `pullIntervalMs` is the hybrid runtime's.
   * @default undefined
   */
  cloud?: Partial<MemoCloudMcpRuntimeOptions> & { pullIntervalMs?: number };
  /**
   * Local and hybrid: the Cloud API settings of the user scope's own hybrid runtime, laid over
   * `MEMO_USER_CLOUD_API_KEY`, which is laid over `$MEMO_HOME/config.json`'s `cloud` block. They
   * apply only when that file says `"runtime": "hybrid"`; the `MEMO_CLOUD_*` variables and
   * `cloud` above (the team's) never do.
   * @default undefined
   */
  userCloud?: Omit<Partial<UserReplicaOptions>, "memoHome">;
  /**
   * Load the notes as soon as the runtime is built, instead of at the first call.
   * @default true
   */
  prewarm?: boolean;
  /**
   * Recall settings laid over the `MEMO_RECALL_ENGINE`, `MEMO_EMBEDDING_MODEL` and
   * `MEMO_LOCAL_EMBEDDINGS` variables, which are laid over `.memo/config.json`'s `recall` block
   * (local and hybrid).
   * @default undefined
   */
  recall?: RuntimeRecallSettings;
  /**
   * Progress of the embedding model's download and load (local and hybrid).
   * @default undefined
   */
  onModelProgress?: (progress: ModelProgress) => void;
  /**
   * Local and hybrid: embed new and changed notes in the background once the notes are loaded;
   * false embeds only through `embed()` (the short CLI commands).
   * @default true
   */
  embedInBackground?: boolean;
  /**
   * Local and hybrid: an embedder, or its loader, instead of loading the configured model.
   * @default undefined
   */
  embedder?: Embedder | EmbedderLoader;
  /**
   * What a write does with a detected secret; wins over `MEMO_SECRETS`, which wins over
   * `.memo/config.json`'s `secrets`.
   * @default {MEMO_SECRETS, else .memo/config.json's secrets, else "redact"}
   */
  secrets?: SecretsPolicy;
  /**
   * Why this runtime serves the project scope alone: set for a hosted endpoint (one that requires
   * auth or listens beyond loopback), whose answer to another scope says so.
   * @default undefined: every scope configured (user, project and local)
   */
  hosted?: string;
}

/**
 * Reads and checks the configuration now, and returns the function that builds the runtime. A
 * configuration that cannot work (a malformed `MEMO_RUNTIME` or `MEMO_CLOUD_PULL_INTERVAL_MS`, the
 * cloud runtime without an API key) throws here, with a `MemoRuntimeError`; building happens when
 * the caller is ready, for example at an endpoint's first request. The builder may be given the
 * project root then, when finding it must wait. The hybrid runtime starts without an API key or a
 * base URL: its writes are local, and `stats().replica.error` says what is missing.
 *
 * The runtime also reads `<rootDir>/.memo/config.json` (at its first call, or at once when
 * `prewarm`; never before `build` returns): its `runtime` chooses when neither the `mode` option
 * nor `MEMO_RUNTIME` does, its `cloud` block (`baseUrl`, `workspaceId`, `projectId`, `timeoutMs`,
 * `retry`, `pullIntervalMs`) fills what the `cloud` option and the `MEMO_CLOUD_*` variables leave
 * unset, and its `recall` block (`engine`, `embeddingModel`, `localEmbeddings`, and the hybrid
 * runtime's `includeCloud`) fills what the `recall` option and `MEMO_RECALL_ENGINE`,
 * `MEMO_EMBEDDING_MODEL` and `MEMO_LOCAL_EMBEDDINGS` leave unset, in the local and hybrid runtimes.
 * A file that cannot be read, or a `vector` or `hybrid` engine with `localEmbeddings` false, fails
 * the calls with `CONFIG`; the same settings in code or the variables throw here.
 *
 * Where the user scope is served (a home folder known, not hosted, `user` in `scopes`), the local
 * and hybrid runtimes also read `$MEMO_HOME/config.json`: with `"runtime": "hybrid"` and a `cloud`
 * block of its own, the user store replicates with that cloud project (its key from
 * `MEMO_USER_CLOUD_API_KEY`, or the `userCloud` option), beside the project's replication if any.
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
 * const hybrid = runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" }, prewarm: false })(rootDir);
 * assert.equal(hybrid.kind, "hybrid"); // no API key needed to start
 * await hybrid.close();
 * assert.throws(() => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "cloud" } }), {
 *   code: "CONFIG",
 *   message: "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
 * });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function runtimeFactoryFromEnv(
  options: RuntimeFromEnvOptions,
): (rootDir?: string) => MemoMcpRuntime {
  const config = readRuntimeEnv(options.env);
  const fixed = options.mode ?? config.runtime;
  const cloud: Partial<MemoCloudMcpRuntimeOptions> & { pullIntervalMs?: number } = {
    ...definedOnly(config.cloud),
    ...definedOnly(options.cloud ?? {}),
  };
  // Code over the variables; the file's recall block goes under both when it is read.
  const recall: RuntimeRecallSettings = {
    ...definedOnly(config.recall),
    ...definedOnly(options.recall ?? {}),
  };
  if (fixed !== undefined) checkRuntimeConfig({ mode: fixed, recall });
  if (fixed === "cloud") checkApiKey(cloud);
  const prewarm = options.prewarm ?? true;
  const embedding = {
    onModelProgress: options.onModelProgress,
    embedInBackground: options.embedInBackground,
    embedder: options.embedder,
  };
  // Code over the variable over the file (read when the runtime opens).
  const secrets = (file: ProjectRuntimeConfig) => options.secrets ?? config.secrets ?? file.secrets;
  const configuredRoot = options.rootDir ?? config.rootDir ?? options.cwd ?? ".";
  // The local runtime reads .memo/config.json (its recall block) when it opens
  // its notes: at the first call, or at once when prewarm; never before.
  const local = (
    rootDir: string,
    read?: ProjectRuntimeConfig,
    userReplica?: { options: UserReplicaOptions; wrap: typeof WithUserReplica },
  ) => {
    // The file is read once, by the open or by recallProfile() (tools/list), whichever is first.
    const file = openOnce(() => read ? Promise.resolve(read) : readProjectRuntimeConfig(rootDir));
    const settings = async () => {
      const read = await file();
      const merged = { ...definedOnly(read.recall ?? {}), ...recall };
      checkRuntimeConfig({ mode: "local", recall: merged });
      return memoOptionsOf({ ...embedding, recall: merged, secrets: secrets(read) });
    };
    const scopes = async () => scopeSettingsOf(await file(), options.env, options.hosted);
    const memo = openOnce(async () => {
      const { openMemo } = await import("@memo/memory");
      return await openMemo({ rootDir, ...await settings(), scopes: (await scopes()).settings });
    });
    const runtime = createLazyLocalRuntime(memo, {
      rootDir,
      env: options.env,
      prewarm,
      recall: async () => ({ ...await settings(), scopes: (await scopes()).profile }),
    });
    return userReplica
      ? userReplica.wrap(runtime, memo, userReplica.options, { prewarm })
      : runtime;
  };
  // The user scope's own runtime: `$MEMO_HOME/config.json`, read only when the scope is served.
  const userReplicaOf = async (
    scopes: ReturnType<typeof scopeSettingsOf>,
  ): Promise<UserReplicaOptions | undefined> => {
    const memoHome = scopes.settings.memoHome;
    if (memoHome === undefined || !scopes.profile.served.includes("user")) return undefined;
    // Its code loads only where the user scope is served and has a home folder.
    const { readUserRuntimeConfig } = await import("../hybrid/user_config.ts");
    const user = await readUserRuntimeConfig(memoHome);
    if (user.runtime !== "hybrid") return undefined;
    const code = definedOnly(options.userCloud ?? {});
    return {
      ...user.cloud,
      ...definedOnly(config.userCloud ?? {}),
      ...code,
      retry: { ...user.cloud.retry, ...code.retry },
      memoHome,
    };
  };
  // Without a home folder (or hosted), no user scope: a fixed local runtime needs no file first.
  const home = options.hosted ? undefined : memoHomeOf(options.env);
  return (rootDir = configuredRoot) => {
    if (fixed === "local" && home === undefined) return local(rootDir);
    return selectedRuntime(fixed ?? "local", prewarm, async () => {
      const file = await readProjectRuntimeConfig(rootDir);
      const mode = fixed ?? file.runtime ?? "local";
      checkRuntimeConfig({ mode });
      const scopes = scopeSettingsOf(file, options.env, options.hosted);
      // The cloud runtime serves the project alone: the user scope never replicates there.
      const userReplica = mode === "cloud" ? undefined : await userReplicaOf(scopes);
      if (mode === "local") {
        if (!userReplica) return local(rootDir, file);
        const { withUserReplica } = await import("../hybrid/user_replica.ts");
        return local(rootDir, file, { options: userReplica, wrap: withUserReplica });
      }
      const settings = {
        ...file.cloud,
        ...cloud,
        retry: { ...file.cloud.retry, ...cloud.retry },
      };
      if (mode === "hybrid") {
        const hybridRecall = { ...definedOnly(file.recall ?? {}), ...recall };
        checkRuntimeConfig({ mode, recall: hybridRecall });
        // The hybrid and cloud runtimes' code loads only when one is configured.
        const { createMemoMcpRuntimeFromConfig } = await import("../factory.ts");
        return createMemoMcpRuntimeFromConfig({
          mode,
          rootDir,
          cloud: settings,
          recall: hybridRecall,
          ...embedding,
          env: options.env,
          prewarm,
          secrets: secrets(file),
          scopes,
          ...(userReplica ? { userReplica } : {}),
        });
      }
      checkApiKey(cloud);
      const { pullIntervalMs: _hybridOnly, ...cloudSettings } = settings;
      const { createMemoCloudMcpRuntime } = await import("../cloud/runtime.ts");
      return createMemoCloudMcpRuntime({
        ...cloudSettings,
        rootDir,
        env: { ...options.env },
        secrets: secrets(file),
      });
    });
  };
}

/** The cloud runtime needs a key, and only code or the environment may give it. */
function checkApiKey(cloud: Partial<MemoCloudMcpRuntimeOptions>): void {
  if (cloud.cloudClient || cloud.apiKey?.trim() || cloud.requireApiKey === false) return;
  throw new MemoRuntimeError(
    "CONFIG",
    "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
  );
}

/**
 * A runtime built at its first call by `build` (at once when `prewarm`), whose `kind` is `guess`
 * until it is built.
 */
function selectedRuntime(
  guess: MemoMcpRuntime["kind"],
  prewarm: boolean,
  build: () => Promise<MemoMcpRuntime>,
): MemoMcpRuntime {
  let kind = guess;
  const runtime = createDeferredRuntime(guess, async () => {
    const built = await build();
    kind = built.kind;
    return built;
  });
  Object.defineProperty(runtime, "kind", { get: () => kind, enumerable: true });
  if (prewarm) {
    // A listener starts the build (a local runtime then loads its notes); it
    // leaves at once, so nothing is watched.
    runtime.watch!(() => {})();
  }
  return runtime;
}

/**
 * Builds the runtime that the options, the `MEMO_*` variables and `.memo/config.json` select:
 * `MEMO_RUNTIME` or the file's `runtime` (`local`, the default, on `MEMO_ROOT_DIR`; `hybrid`;
 * `cloud`, with the `MEMO_CLOUD_*` variables). Throws a `MemoRuntimeError` for a configuration that
 * cannot work (see {@linkcode runtimeFactoryFromEnv}).
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
