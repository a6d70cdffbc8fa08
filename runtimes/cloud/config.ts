/**
 * Internal: the runtime part of a project's `.memo/config.json`, its `runtime`, its `secrets`
 * policy, its `cloud` block and its `recall` block (`engine`, `embeddingModel`, `localEmbeddings`,
 * `includeCloud`). Secrets never come from the file: an `apiKey` (or any token-like key) in `cloud`
 * is refused.
 *
 * @module
 */

import { MemoRuntimeError } from "../errors.ts";
import { MAX_LIMIT_VALUE } from "../../env.ts";

/** What `.memo/config.json` says about the runtime. */
export interface ProjectRuntimeConfig {
  /** `runtime`. */
  runtime?: "local" | "hybrid" | "cloud";
  /** `cloud`. */
  cloud: {
    baseUrl?: string;
    workspaceId?: string;
    projectId?: string;
    timeoutMs?: number;
    pullIntervalMs?: number;
    retry?: { maxRetries?: number; backoffMs?: number };
  };
  /** `recall`; absent when the file has no `recall` block. */
  recall?: ProjectRecallConfig;
  /** `secrets`: what a write does with a detected secret; absent when the file leaves it out. */
  secrets?: "redact" | "refuse" | "allow";
  /** `scopes`: the scopes read and written; absent: every scope. */
  scopes?: ("user" | "project" | "local")[];
  /** `defaultScope`: where a write without `scope` goes; absent: `project`. */
  defaultScope?: "user" | "project" | "local";
}

/** The `recall` block of `.memo/config.json`; a key is absent when the file leaves it out. */
export interface ProjectRecallConfig {
  /** `lexical`, `vector`, `hybrid` or `auto`. */
  engine?: "lexical" | "vector" | "hybrid" | "auto";
  /** `use-lite` or a hub model id. */
  embeddingModel?: string;
  /** Compute embeddings on this machine. */
  localEmbeddings?: boolean;
  /** Hybrid runtime: also ask the cloud on recall. */
  includeCloud?: boolean;
}

const MODES = ["local", "hybrid", "cloud"] as const;
const ENGINES = ["lexical", "vector", "hybrid", "auto"] as const;
const RECALL_KEYS = ["engine", "embeddingModel", "localEmbeddings", "includeCloud"] as const;
const STRING_KEYS = ["baseUrl", "workspaceId", "projectId"] as const;
const NUMBER_KEYS = ["timeoutMs", "pullIntervalMs"] as const;
/** Keys that would hold a secret. */
const SECRET_KEYS =
  /^(apiKey|api_key|apikey|key|token|secret|password|auth|authorization|bearer)$/i;

/**
 * Where a configuration file came from, for the errors that refuse it: the project's
 * `.memo/config.json`, or the user scope's `$MEMO_HOME/config.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConfigFileLabel, parseProjectRuntimeConfig } from "./config.ts";
 * const label: ConfigFileLabel = {
 *   file: "$MEMO_HOME/config.json",
 *   apiKeyVariable: "MEMO_USER_CLOUD_API_KEY",
 * };
 * assert.throws(() => parseProjectRuntimeConfig({ cloud: { apiKey: "mk_x" } }, label), {
 *   message: /^Cannot read \$MEMO_HOME\/config.json: cloud.apiKey is refused: the API key comes only from MEMO_USER_CLOUD_API_KEY/,
 * });
 * ```
 */
export interface ConfigFileLabel {
  /**
   * The file named in errors.
   * @default ".memo/config.json"
   */
  file?: string;
  /**
   * The variable that the refusal of a key in the file names.
   * @default "MEMO_CLOUD_API_KEY"
   */
  apiKeyVariable?: string;
}

type Fail = (reason: string) => MemoRuntimeError;

function failIn(file: string): Fail {
  return (reason) => new MemoRuntimeError("CONFIG", `Cannot read ${file}: ${reason}`);
}

const fail = failIn(".memo/config.json");

/**
 * Reads `<rootDir>/.memo/config.json`'s `runtime` and `cloud`. A missing file (or a platform
 * without a file system) reads as nothing set; a file that is not JSON, or a bad value, throws a
 * `MemoRuntimeError` (`CONFIG`) that never repeats a value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readProjectRuntimeConfig } from "./config.ts";
 * const rootDir = await Deno.makeTempDir();
 * assert.deepEqual(await readProjectRuntimeConfig(rootDir), { cloud: {} });
 * await Deno.mkdir(`${rootDir}/.memo`);
 * const cloud = { baseUrl: "http://127.0.0.1:8788", projectId: "handbook" };
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, JSON.stringify({ runtime: "cloud", cloud }));
 * assert.deepEqual(await readProjectRuntimeConfig(rootDir), { runtime: "cloud", cloud });
 * await Deno.writeTextFile(
 *   `${rootDir}/.memo/config.json`,
 *   JSON.stringify({ cloud: { apiKey: "mk_secret" } }),
 * );
 * await assert.rejects(readProjectRuntimeConfig(rootDir), (e: Error) =>
 *   /the API key comes only from MEMO_CLOUD_API_KEY/.test(e.message) &&
 *   !e.message.includes("mk_secret"));
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function readProjectRuntimeConfig(rootDir: string): Promise<ProjectRuntimeConfig> {
  const parsed = await readProjectConfigFile(rootDir);
  return parsed === undefined ? { cloud: {} } : parseProjectRuntimeConfig(parsed);
}

/**
 * Reads and parses `<rootDir>/.memo/config.json`: undefined when there is no such file (or no file
 * system, on an edge worker); a `MemoRuntimeError` (`CONFIG`) when it cannot be read or is not
 * JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readProjectConfigFile } from "./config.ts";
 * const rootDir = await Deno.makeTempDir();
 * assert.equal(await readProjectConfigFile(rootDir), undefined);
 * await Deno.mkdir(`${rootDir}/.memo`);
 * await Deno.writeTextFile(`${rootDir}/.memo/config.json`, '{"oauth":{}}');
 * assert.deepEqual(await readProjectConfigFile(rootDir), { oauth: {} });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function readProjectConfigFile(rootDir: string): Promise<unknown> {
  let readFile: (path: string, encoding: "utf8") => Promise<string>;
  try {
    ({ readFile } = await import("node:fs/promises"));
  } catch {
    return undefined; // no file system (an edge worker): no project file
  }
  let text: string;
  try {
    text = await readFile(`${rootDir.replace(/[\\/]+$/, "") || "/"}/.memo/config.json`, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw fail(code ?? "it cannot be opened");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw fail("it is not valid JSON");
  }
}

/**
 * Checks the `runtime`, `cloud` and `recall` values of a parsed `.memo/config.json`; an unknown key
 * in `cloud` or `recall` is refused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseProjectRuntimeConfig } from "./config.ts";
 * assert.deepEqual(parseProjectRuntimeConfig({ runtime: "local", connectors: [] }), {
 *   runtime: "local",
 *   cloud: {},
 * });
 * assert.throws(() => parseProjectRuntimeConfig({ runtime: "mars" }), { code: "CONFIG" });
 * assert.throws(() => parseProjectRuntimeConfig({ cloud: { baseURL: "x" } }), {
 *   message: /cloud.baseURL is not a setting/,
 * });
 * assert.deepEqual(
 *   parseProjectRuntimeConfig({ runtime: "hybrid", recall: { includeCloud: true, engine: "auto" } }),
 *   { runtime: "hybrid", cloud: {}, recall: { includeCloud: true, engine: "auto" } },
 * );
 * assert.throws(() => parseProjectRuntimeConfig({ recall: { includeCloud: "yes" } }), {
 *   message: /recall.includeCloud must be true or false/,
 * });
 * assert.throws(() => parseProjectRuntimeConfig({ recall: { engine: "semantic" } }), {
 *   message: /recall.engine must be lexical, vector, hybrid or auto/,
 * });
 * assert.equal(parseProjectRuntimeConfig({ secrets: "refuse" }).secrets, "refuse");
 * assert.throws(() => parseProjectRuntimeConfig({ secrets: "off" }), {
 *   message: /secrets must be redact, refuse or allow/,
 * });
 * assert.throws(() => parseProjectRuntimeConfig({ recall: { model: "use-lite" } }), {
 *   message: /recall.model is not a setting/,
 * });
 * ```
 */
export function parseProjectRuntimeConfig(
  parsed: unknown,
  label: ConfigFileLabel = {},
): ProjectRuntimeConfig {
  const fail = failIn(label.file ?? ".memo/config.json");
  const apiKeyVariable = label.apiKeyVariable ?? "MEMO_CLOUD_API_KEY";
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw fail("it must hold a JSON object");
  }
  const { runtime, cloud, recall, secrets, scopes, defaultScope } = parsed as {
    runtime?: unknown;
    cloud?: unknown;
    recall?: unknown;
    secrets?: unknown;
    scopes?: unknown;
    defaultScope?: unknown;
  };
  const out: ProjectRuntimeConfig = { cloud: {} };
  if (runtime !== undefined) {
    if (typeof runtime !== "string" || !(MODES as readonly string[]).includes(runtime)) {
      throw fail("runtime must be local, hybrid or cloud");
    }
    out.runtime = runtime as ProjectRuntimeConfig["runtime"];
  }
  if (recall !== undefined) out.recall = parseRecall(recall, fail);
  if (secrets !== undefined) {
    if (secrets !== "redact" && secrets !== "refuse" && secrets !== "allow") {
      throw fail("secrets must be redact, refuse or allow");
    }
    out.secrets = secrets;
  }
  if (scopes !== undefined) {
    const names = ["user", "project", "local"];
    if (
      !Array.isArray(scopes) || scopes.length === 0 ||
      !scopes.every((s) => typeof s === "string" && names.includes(s))
    ) {
      throw fail("scopes must be a non-empty array of user, project and local");
    }
    out.scopes = [...new Set(scopes)] as ProjectRuntimeConfig["scopes"];
  }
  if (defaultScope !== undefined) {
    if (defaultScope !== "user" && defaultScope !== "project" && defaultScope !== "local") {
      throw fail("defaultScope must be user, project or local");
    }
    if (out.scopes && !out.scopes.includes(defaultScope)) {
      throw fail(`defaultScope ${defaultScope} is not one of scopes`);
    }
    out.defaultScope = defaultScope;
  }
  if (cloud === undefined) return out;
  if (cloud === null || typeof cloud !== "object" || Array.isArray(cloud)) {
    throw fail("cloud must be an object");
  }
  for (const [key, value] of Object.entries(cloud)) {
    if (SECRET_KEYS.test(key)) {
      throw fail(
        `cloud.${key} is refused: the API key comes only from ${apiKeyVariable} ` +
          "(or the apiKey option in code): remove it",
      );
    }
    if ((STRING_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== "string" || value.trim() === "") {
        throw fail(`cloud.${key} must be a non-empty string`);
      }
      (out.cloud as Record<string, unknown>)[key] = value.trim();
    } else if ((NUMBER_KEYS as readonly string[]).includes(key)) {
      if (
        !Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > MAX_LIMIT_VALUE
      ) {
        throw fail(`cloud.${key} must be an integer from 1 to ${MAX_LIMIT_VALUE}`);
      }
      (out.cloud as Record<string, unknown>)[key] = value;
    } else if (key === "retry") {
      out.cloud.retry = parseRetry(value, fail);
    } else {
      throw fail(
        `cloud.${key.slice(0, 40)} is not a setting (use baseUrl, workspaceId, projectId, ` +
          "timeoutMs, retry, pullIntervalMs)",
      );
    }
  }
  return out;
}

/** `recall`: `engine`, `embeddingModel`, `localEmbeddings` and `includeCloud`. */
function parseRecall(value: unknown, fail: Fail): ProjectRecallConfig {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw fail("recall must be an object");
  }
  const out: ProjectRecallConfig = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    switch (key) {
      case "engine":
        if (typeof v !== "string" || !(ENGINES as readonly string[]).includes(v)) {
          throw fail("recall.engine must be lexical, vector, hybrid or auto");
        }
        out.engine = v as ProjectRecallConfig["engine"];
        break;
      case "embeddingModel":
        if (typeof v !== "string" || v.trim() === "") {
          throw fail("recall.embeddingModel must be a non-empty string");
        }
        out.embeddingModel = v.trim();
        break;
      case "localEmbeddings":
      case "includeCloud":
        if (typeof v !== "boolean") throw fail(`recall.${key} must be true or false`);
        out[key] = v;
        break;
      default:
        throw fail(
          `recall.${key.slice(0, 40)} is not a setting (use ${RECALL_KEYS.join(", ")})`,
        );
    }
  }
  return out;
}

function parseRetry(
  value: unknown,
  fail: Fail,
): { maxRetries?: number; backoffMs?: number } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw fail("cloud.retry must be an object");
  }
  const out: { maxRetries?: number; backoffMs?: number } = {};
  for (const [key, v] of Object.entries(value)) {
    if (key !== "maxRetries" && key !== "backoffMs") {
      throw fail(`cloud.retry.${key.slice(0, 40)} is not a setting (use maxRetries, backoffMs)`);
    }
    if (!Number.isSafeInteger(v) || (v as number) < 0) {
      throw fail(`cloud.retry.${key} must be an integer of at least 0`);
    }
    out[key] = v as number;
  }
  return out;
}
