/**
 * The `MEMO_*` environment variables of the hosted endpoint (DESIGN.md,
 * "Hosted endpoint", "Configuration"), parsed and checked. Empty values count
 * as unset; a malformed value is a "Cannot read MEMO_…: …" error.
 *
 * @module
 */

/** A string-to-string map of environment values (the spec's `MemoMcpHttpEnv`). */
export type MemoMcpHttpEnv = Readonly<Record<string, string | undefined>>;

/** Which runtime `MEMO_RUNTIME` selects. */
export type HttpRuntimeMode = "local" | "hybrid" | "cloud";

/** What the environment configures; every field is unset when its variable is. */
export interface HttpEnvConfig {
  /** `MEMO_ROOT_DIR`. */
  rootDir?: string;
  /** `MEMO_RUNTIME`. */
  runtime?: HttpRuntimeMode;
  /** `MEMO_MCP_PATH`. */
  path?: string;
  /** `MEMO_MCP_BEARER_TOKEN`. */
  bearerToken?: string;
  /** `MEMO_MCP_REQUIRE_AUTH`. */
  requireAuth?: boolean;
  /** `MEMO_MCP_ALLOWED_ORIGINS` (comma-separated). */
  allowedOrigins?: string[];
  /** `MEMO_MCP_READ_ONLY`. */
  readOnly?: boolean;
  /** `MEMO_MCP_REQUEST_TIMEOUT_MS`. */
  requestTimeoutMs?: number;
  /** `MEMO_MCP_MAX_INPUT_BYTES`. */
  maxInputBytes?: number;
  /** `MEMO_MCP_MAX_OUTPUT_BYTES`. */
  maxOutputBytes?: number;
  /** `MEMO_MCP_DEFAULT_PAGE_SIZE`. */
  defaultPageSize?: number;
  /** `MEMO_MCP_MAX_PAGE_SIZE`. */
  maxPageSize?: number;
  /** `MEMO_CLOUD_BASE_URL`, `MEMO_CLOUD_API_KEY`, `MEMO_CLOUD_WORKSPACE_ID`, `MEMO_CLOUD_PROJECT_ID`. */
  cloud: { baseUrl?: string; apiKey?: string; workspaceId?: string; projectId?: string };
}

/** The limit variables and the option each sets. */
export const LIMIT_VARIABLES = [
  ["MEMO_MCP_REQUEST_TIMEOUT_MS", "requestTimeoutMs"],
  ["MEMO_MCP_MAX_INPUT_BYTES", "maxInputBytes"],
  ["MEMO_MCP_MAX_OUTPUT_BYTES", "maxOutputBytes"],
  ["MEMO_MCP_DEFAULT_PAGE_SIZE", "defaultPageSize"],
  ["MEMO_MCP_MAX_PAGE_SIZE", "maxPageSize"],
] as const;

/**
 * Reads the hosted endpoint's variables from an environment map.
 *
 * @example
 * ```ts
 * import { readHttpEnv } from "./http_env.ts";
 * const config = readHttpEnv({ MEMO_MCP_READ_ONLY: "true", MEMO_MCP_ALLOWED_ORIGINS: "https://a.example" });
 * console.log(config.readOnly, config.allowedOrigins); // true ["https://a.example"]
 * ```
 */
export function readHttpEnv(env: MemoMcpHttpEnv): HttpEnvConfig {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const config: HttpEnvConfig = {
    rootDir: get("MEMO_ROOT_DIR"),
    path: get("MEMO_MCP_PATH"),
    bearerToken: get("MEMO_MCP_BEARER_TOKEN"),
    requireAuth: parseBoolean("MEMO_MCP_REQUIRE_AUTH", get("MEMO_MCP_REQUIRE_AUTH")),
    readOnly: parseBoolean("MEMO_MCP_READ_ONLY", get("MEMO_MCP_READ_ONLY")),
    cloud: {
      baseUrl: get("MEMO_CLOUD_BASE_URL"),
      apiKey: get("MEMO_CLOUD_API_KEY"),
      workspaceId: get("MEMO_CLOUD_WORKSPACE_ID"),
      projectId: get("MEMO_CLOUD_PROJECT_ID"),
    },
  };
  const runtime = get("MEMO_RUNTIME");
  if (runtime !== undefined) {
    const mode = runtime.toLowerCase();
    if (mode !== "local" && mode !== "hybrid" && mode !== "cloud") {
      throw new Error(`Cannot read MEMO_RUNTIME: expected local, hybrid or cloud, got ${runtime}`);
    }
    config.runtime = mode;
  }
  if (config.path !== undefined && !config.path.startsWith("/")) {
    throw new Error("Cannot read MEMO_MCP_PATH: the path must start with /");
  }
  const origins = get("MEMO_MCP_ALLOWED_ORIGINS");
  if (origins !== undefined) config.allowedOrigins = splitList(origins);
  for (const [name, key] of LIMIT_VARIABLES) {
    const n = parsePositiveInt(name, get(name));
    if (n !== undefined) config[key] = n;
  }
  return config;
}

/**
 * Splits a comma-separated list, trimming and dropping empty entries.
 *
 * @example
 * ```ts
 * import { splitList } from "./http_env.ts";
 * splitList(" a, ,b "); // ["a", "b"]
 * ```
 */
export function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (v === "true" || v === "1" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "no") return false;
  throw new Error(`Cannot read ${name}: expected true or false`);
}

function parsePositiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`Cannot read ${name}: expected a positive integer, got ${value}`);
  }
  return n;
}
