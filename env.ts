/**
 * The one reader of configuration from the environment: every `MEMO_*` variable that
 * `@memo/mcp-server` reads is a row of {@linkcode MEMO_ENV_VARIABLES}, and {@linkcode readEnv}
 * reads one section of them. A value is trimmed, an empty one counts as unset, and a malformed one
 * is a "Cannot read NAME: …" error. A section is read only when asked for, so a bad variable of the
 * Cloud API server never stops `memo mcp`.
 *
 * The connectors' tokens (`MEMO_GITHUB_TOKEN`, `MEMO_NOTION_TOKEN` and their plain fallbacks) are
 * read by `@memo/connectors`, which stands alone.
 *
 * @module
 */

import type { RecallEngine, SecretsPolicy } from "@memo/memory";

/**
 * A string-to-string map of environment values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EnvMap, readEnv } from "./env.ts";
 *
 * const env: EnvMap = { MEMO_ROOT_DIR: "/srv/notes", MEMO_RUNTIME: undefined };
 * assert.deepEqual(readEnv(env, "runtime"), { rootDir: "/srv/notes", cloud: {}, recall: {} });
 * ```
 */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/**
 * Splits a comma-separated list, trimming and dropping empty entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitList } from "./env.ts";
 *
 * assert.deepEqual(splitList(" a, ,b "), ["a", "b"]);
 * ```
 */
export function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * `read,write`: the two OAuth scopes, different and both present.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScopePair } from "./env.ts";
 *
 * assert.deepEqual(parseScopePair("notes:read, notes:write"), { read: "notes:read", write: "notes:write" });
 * assert.throws(() => parseScopePair("a,a"), /^Error: it needs two different scopes$/);
 * ```
 */
export function parseScopePair(text: string): { read: string; write: string } {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length !== 2 || parts.some((p) => p === "")) {
    throw new Error("it needs the read scope and the write scope, comma-separated");
  }
  const [read, write] = parts;
  if (read === write) throw new Error("it needs two different scopes");
  return { read, write };
}

/** The log levels of `MEMO_LOG_LEVEL`, quietest first. */
export type LogLevel = "error" | "warn" | "info" | "debug";
/**
 * Every {@linkcode LogLevel}, quietest first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LOG_LEVELS } from "./env.ts";
 *
 * assert.deepEqual(LOG_LEVELS, ["error", "warn", "info", "debug"]);
 * ```
 */
export const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug"];

/**
 * Which data runtime `MEMO_RUNTIME` selects.
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
const ENGINES: readonly RecallEngine[] = ["lexical", "vector", "hybrid", "auto"];
const SECRETS: readonly SecretsPolicy[] = ["redact", "refuse", "allow"];

/** The sections of the environment, each read on its own. */
export type EnvSection = keyof MemoEnv;

/** What a variable holds, and so how it is read. */
// prettier-ignore
export type EnvKind =
  | "string"
  | "boolean"
  | "positive"
  | "whole"
  | "choice"
  | "list"
  | "path"
  | "scopes";

/**
 * One `MEMO_*` variable: its section, where its value lands (`key`, dotted for a nested field) and
 * how it is read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EnvVariable, MEMO_ENV_VARIABLES } from "./env.ts";
 *
 * const path: EnvVariable = MEMO_ENV_VARIABLES.find((v) => v.name === "MEMO_MCP_PATH")!;
 * assert.deepEqual([path.section, path.key, path.kind], ["http", "path", "path"]);
 * ```
 */
export interface EnvVariable {
  name: string;
  section: EnvSection;
  key: string;
  kind: EnvKind;
  /** For `choice`: the values allowed. */
  choices?: readonly string[];
  /** For `whole`: what 0 means, said in the error. */
  hint?: string;
}

const v = (
  name: string,
  section: EnvSection,
  key: string,
  kind: EnvKind,
  extra: Pick<EnvVariable, "choices" | "hint"> = {},
): EnvVariable => ({ name, section, key, kind, ...extra });

/**
 * Every `MEMO_*` variable that `@memo/mcp-server` reads. `docs/configuration.md` documents each one
 * (a test holds them together).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_ENV_VARIABLES } from "./env.ts";
 *
 * const names = MEMO_ENV_VARIABLES.map((v) => v.name);
 * assert.ok(names.includes("MEMO_RUNTIME") && names.includes("MEMO_CLOUD_API_KEYS"));
 * assert.equal(new Set(names).size, names.length);
 * ```
 */
export const MEMO_ENV_VARIABLES: readonly EnvVariable[] = [
  v("MEMO_RUNTIME", "runtime", "runtime", "choice", { choices: MODES }),
  v("MEMO_ROOT_DIR", "runtime", "rootDir", "string"),
  v("MEMO_CLOUD_BASE_URL", "runtime", "cloud.baseUrl", "string"),
  v("MEMO_CLOUD_API_KEY", "runtime", "cloud.apiKey", "string"),
  v("MEMO_CLOUD_WORKSPACE_ID", "runtime", "cloud.workspaceId", "string"),
  v("MEMO_CLOUD_PROJECT_ID", "runtime", "cloud.projectId", "string"),
  v("MEMO_CLOUD_PULL_INTERVAL_MS", "runtime", "cloud.pullIntervalMs", "positive"),
  v("MEMO_RECALL_ENGINE", "runtime", "recall.engine", "choice", { choices: ENGINES }),
  v("MEMO_EMBEDDING_MODEL", "runtime", "recall.embeddingModel", "string"),
  v("MEMO_LOCAL_EMBEDDINGS", "runtime", "recall.localEmbeddings", "boolean"),
  v("MEMO_SECRETS", "runtime", "secrets", "choice", { choices: SECRETS }),
  v("MEMO_HOME", "runtime", "memoHome", "string"),
  v("MEMO_USER_CLOUD_API_KEY", "runtime", "userCloud.apiKey", "string"),
  v("MEMO_MCP_READ_ONLY", "server", "readOnly", "boolean"),
  v("MEMO_MCP_REQUEST_TIMEOUT_MS", "server", "requestTimeoutMs", "positive"),
  v("MEMO_MCP_MAX_INPUT_BYTES", "server", "maxInputBytes", "positive"),
  v("MEMO_MCP_MAX_OUTPUT_BYTES", "server", "maxOutputBytes", "positive"),
  v("MEMO_MCP_DEFAULT_PAGE_SIZE", "server", "defaultPageSize", "positive"),
  v("MEMO_MCP_MAX_PAGE_SIZE", "server", "maxPageSize", "positive"),
  v("MEMO_MCP_MAX_LISTEN_STREAMS", "server", "maxListenStreams", "positive"),
  v("MEMO_MCP_PATH", "http", "path", "path"),
  v("MEMO_MCP_BEARER_TOKEN", "http", "bearerToken", "string"),
  v("MEMO_MCP_REQUIRE_AUTH", "http", "requireAuth", "boolean"),
  v("MEMO_MCP_ALLOWED_ORIGINS", "http", "allowedOrigins", "list"),
  v("MEMO_UI", "http", "ui", "boolean"),
  v("MEMO_UI_PATH", "http", "uiPath", "path"),
  v("MEMO_OAUTH_ISSUER", "oauth", "issuer", "string"),
  v("MEMO_OAUTH_RESOURCE", "oauth", "resource", "string"),
  v("MEMO_OAUTH_SCOPES", "oauth", "scopes", "scopes"),
  v("MEMO_OAUTH_JWKS_URI", "oauth", "jwksUri", "string"),
  v("MEMO_OAUTH_INTROSPECTION_URL", "oauth", "introspection.url", "string"),
  v("MEMO_OAUTH_INTROSPECTION_CLIENT_ID", "oauth", "introspection.clientId", "string"),
  v("MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET", "oauth", "introspection.clientSecret", "string"),
  v("MEMO_OAUTH_PAGE_CLIENT_ID", "oauth", "pageClientId", "string"),
  v("MEMO_LOG_LEVEL", "log", "level", "choice", { choices: LOG_LEVELS }),
  v("MEMO_CLOUD_API_KEYS", "cloud", "apiKeys", "string"),
  v("MEMO_CLOUD_RATE_LIMIT", "cloud", "rateLimit", "whole", { hint: "0 turns the limit off" }),
  v("MEMO_CLOUD_OPERATOR_KEYS", "cloud", "operatorKeys", "string"),
  v("MEMO_CLOUD_DATA_DIR", "cloud", "dataDir", "string"),
  v("MEMO_CLOUD_MAX_BODY_BYTES", "cloud", "maxBodyBytes", "positive"),
  v("MEMO_CLOUD_SECRETS", "cloud", "secrets", "choice", { choices: SECRETS }),
  v("MEMO_CLOUD_INDEX_BUDGET_MB", "cloud", "indexBudgetMb", "positive"),
  v("MEMO_CLOUD_DRAIN_MS", "cloud", "drainMs", "whole", { hint: "0 stops at once" }),
  v("MEMO_CLOUD_DATABASE_URL", "cloud", "databaseUrl", "string"),
];

/** `MEMO_RUNTIME`, `MEMO_ROOT_DIR`, `MEMO_CLOUD_*` of the client, the recall variables, `MEMO_SECRETS`. */
export interface RuntimeEnv {
  runtime?: RuntimeMode;
  rootDir?: string;
  cloud: {
    baseUrl?: string;
    apiKey?: string;
    workspaceId?: string;
    projectId?: string;
    pullIntervalMs?: number;
  };
  recall: { engine?: RecallEngine; embeddingModel?: string; localEmbeddings?: boolean };
  secrets?: SecretsPolicy;
  /** `MEMO_HOME`: where the user scope lives. */
  memoHome?: string;
  /**
   * `MEMO_USER_CLOUD_API_KEY`: the key of the user scope's own cloud project
   * (`$MEMO_HOME/config.json`); the team's `MEMO_CLOUD_API_KEY` is never sent there.
   */
  userCloud?: { apiKey?: string };
}

/** `MEMO_MCP_READ_ONLY` and the limits, which every transport honours. */
export interface ServerEnv {
  readOnly?: boolean;
  requestTimeoutMs?: number;
  maxInputBytes?: number;
  maxOutputBytes?: number;
  defaultPageSize?: number;
  maxPageSize?: number;
  maxListenStreams?: number;
}

/** The hosted endpoint's variables, on top of {@linkcode ServerEnv}. */
export interface HttpEnv extends ServerEnv {
  /** `MEMO_MCP_PATH` (starts with `/`). */
  path?: string;
  bearerToken?: string;
  requireAuth?: boolean;
  /** `MEMO_MCP_ALLOWED_ORIGINS`, comma-separated. */
  allowedOrigins?: string[];
  /** `MEMO_UI`: whether a routed endpoint serves the web page. */
  ui?: boolean;
  /** `MEMO_UI_PATH` (starts with `/`). */
  uiPath?: string;
}

/** The `MEMO_OAUTH_*` variables. */
export interface OAuthEnv {
  issuer?: string;
  resource?: string;
  scopes?: { read: string; write: string };
  jwksUri?: string;
  introspection?: { url?: string; clientId?: string; clientSecret?: string };
  pageClientId?: string;
}

/** The Cloud API server's `MEMO_CLOUD_*` variables, before their defaults. */
export interface CloudServerEnv {
  /** `MEMO_CLOUD_API_KEYS`, unparsed: `key:workspaceId` pairs. */
  apiKeys?: string;
  rateLimit?: number;
  /** `MEMO_CLOUD_OPERATOR_KEYS`, unparsed. */
  operatorKeys?: string;
  dataDir?: string;
  maxBodyBytes?: number;
  secrets?: SecretsPolicy;
  indexBudgetMb?: number;
  drainMs?: number;
  databaseUrl?: string;
}

/**
 * Every section of the environment, by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoEnv, readEnv } from "./env.ts";
 *
 * const log: MemoEnv["log"] = readEnv({ MEMO_LOG_LEVEL: "Debug" }, "log");
 * assert.deepEqual(log, { level: "debug" });
 * ```
 */
export interface MemoEnv {
  runtime: RuntimeEnv;
  server: ServerEnv;
  http: HttpEnv;
  oauth: OAuthEnv;
  /** The reference Cloud API server's own variables. */
  cloud: CloudServerEnv;
  log: { level?: LogLevel };
}

/**
 * The largest value a number limit takes, from a flag, a variable, an option or config.json (10^9):
 * a time in ms must stay below what a timer holds (2^31 - 1), or it fires at once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_LIMIT_VALUE, readEnv } from "./env.ts";
 * const at = String(MAX_LIMIT_VALUE);
 * assert.equal(readEnv({ MEMO_MCP_REQUEST_TIMEOUT_MS: at }, "server").requestTimeoutMs, MAX_LIMIT_VALUE);
 * ```
 */
export const MAX_LIMIT_VALUE = 1_000_000_000;

function fail(variable: EnvVariable, what: string): never {
  throw new Error(`Cannot read ${variable.name}: ${what}`);
}

const digits = (value: string) => /^\d+$/.test(value) && Number.isSafeInteger(Number(value));

/** How each kind reads a value that is set (trimmed, not blank). */
const PARSERS: Record<EnvKind, (value: string, variable: EnvVariable) => unknown> = {
  string: (value) => value,
  boolean: (value, variable) => {
    const lower = value.toLowerCase();
    if (lower === "true" || lower === "1" || lower === "yes") return true;
    if (lower === "false" || lower === "0" || lower === "no") return false;
    return fail(variable, "expected true or false");
  },
  positive: (value, variable) =>
    digits(value) && Number(value) >= 1 && Number(value) <= MAX_LIMIT_VALUE ? Number(value) : fail(
      variable,
      `expected an integer from 1 to ${MAX_LIMIT_VALUE}, got ${value.slice(0, 40)}`,
    ),
  whole: (value, variable) =>
    digits(value)
      ? Number(value)
      : fail(variable, `expected a whole number (${variable.hint}), got ${value.slice(0, 40)}`),
  choice: (value, variable) => {
    const choices = variable.choices ?? [];
    if (choices.includes(value.toLowerCase())) return value.toLowerCase();
    const list = `${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}`;
    return fail(variable, `expected ${list}, got ${value.slice(0, 40)}`);
  },
  list: (value) => splitList(value),
  path: (value, variable) =>
    value.startsWith("/") ? value : fail(variable, "the path must start with /"),
  scopes: (value, variable) => {
    try {
      return parseScopePair(value);
    } catch (e) {
      return fail(variable, (e as Error).message);
    }
  },
};

/** The groups a section always has, even when none of their variables is set. */
const GROUPS: Partial<Record<EnvSection, readonly string[]>> = { runtime: ["cloud", "recall"] };
/** Sections that include another's variables. */
const INCLUDES: Partial<Record<EnvSection, EnvSection>> = { http: "server" };

/**
 * Reads one section of the environment: the value of each of its variables that is set, in
 * {@linkcode MEMO_ENV_VARIABLES}' order; unset ones are left out. Throws "Cannot read NAME: …" for
 * the first malformed value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readEnv } from "./env.ts";
 *
 * const env = { MEMO_MCP_PATH: "/memory", MEMO_MCP_MAX_PAGE_SIZE: "50", MEMO_RUNTIME: "Hybrid" };
 * assert.deepEqual(readEnv(env, "http"), { maxPageSize: 50, path: "/memory" });
 * assert.deepEqual(readEnv(env, "runtime"), { runtime: "hybrid", cloud: {}, recall: {} });
 * assert.throws(() => readEnv({ MEMO_UI_PATH: "ui" }, "http"), /Cannot read MEMO_UI_PATH: the path must start with \//);
 * ```
 */
export function readEnv<S extends EnvSection>(env: EnvMap, section: S): MemoEnv[S] {
  const out: Record<string, unknown> = {};
  for (const group of GROUPS[section] ?? []) out[group] = {};
  const included = INCLUDES[section];
  for (const variable of MEMO_ENV_VARIABLES) {
    if (variable.section !== section && variable.section !== included) continue;
    const raw = env[variable.name]?.trim();
    if (!raw) continue;
    const value = PARSERS[variable.kind](raw, variable);
    const path = variable.key.split(".");
    let target = out;
    for (const part of path.slice(0, -1)) {
      target = (target[part] ??= {}) as Record<string, unknown>;
    }
    target[path[path.length - 1]] = value;
  }
  return out as unknown as MemoEnv[S];
}

/**
 * The user scope's home: `MEMO_HOME`, else the platform's data folder (`$XDG_DATA_HOME/memo`, else
 * `~/.local/share/memo`, on Linux and macOS; `%APPDATA%\\memo` on Windows, which sets `OS` to
 * `Windows_NT`). `undefined` when the environment names no home folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoHomeOf } from "./env.ts";
 * assert.equal(memoHomeOf({ MEMO_HOME: " /srv/me " }), "/srv/me");
 * assert.equal(memoHomeOf({ HOME: "/home/ada" }), "/home/ada/.local/share/memo");
 * assert.equal(memoHomeOf({ XDG_DATA_HOME: "/d", HOME: "/h" }), "/d/memo");
 * assert.equal(memoHomeOf({ OS: "Windows_NT", APPDATA: "C:\\Users\\ada\\AppData\\Roaming" }), "C:\\Users\\ada\\AppData\\Roaming\\memo");
 * assert.equal(memoHomeOf({}), undefined);
 * ```
 */
export function memoHomeOf(env: EnvMap): string | undefined {
  const set = env.MEMO_HOME?.trim();
  if (set) return set;
  if (env.OS === "Windows_NT") {
    const appData = env.APPDATA?.trim();
    return appData ? `${appData.replace(/[\\/]+$/, "")}\\memo` : undefined;
  }
  const data = env.XDG_DATA_HOME?.trim();
  if (data) return `${data.replace(/\/+$/, "")}/memo`;
  const home = env.HOME?.trim();
  return home ? `${home.replace(/\/+$/, "")}/.local/share/memo` : undefined;
}
