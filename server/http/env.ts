/**
 * The `MEMO_MCP_*` variables of the hosted endpoint: its path, token,
 * authentication switch and allowed origins, and the web page's `MEMO_UI`
 * and `MEMO_UI_PATH`, on top of the variables every
 * transport honours (`MEMO_MCP_READ_ONLY` and the limits, see `../env.ts`).
 * The runtime's variables (`MEMO_RUNTIME`, `MEMO_ROOT_DIR`, `MEMO_CLOUD_*`)
 * are the runtimes' to read. Empty values count as unset; a malformed value
 * is a "Cannot read MEMO_…: …" error.
 *
 * @module
 */

import { envBoolean, type EnvMap, envString, splitList } from "../../_env.ts";
import { readServerEnv, type ServerEnvConfig } from "../env.ts";

/**
 * A string-to-string map of environment values: the `env` option of the
 * hosted endpoint's handlers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoMcpHttpEnv } from "@memo/mcp-server/http";
 * import { readHttpEnv } from "./env.ts";
 *
 * const env: MemoMcpHttpEnv = { MEMO_MCP_PATH: "/memory", MEMO_MCP_BEARER_TOKEN: "s3cret" };
 * assert.deepEqual(readHttpEnv(env), { path: "/memory", bearerToken: "s3cret" });
 * ```
 */
export type MemoMcpHttpEnv = EnvMap;

/**
 * What the endpoint's variables configure; a field is unset when its variable is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HttpEnvConfig, readHttpEnv } from "./env.ts";
 *
 * const config: HttpEnvConfig = readHttpEnv({
 *   MEMO_MCP_REQUIRE_AUTH: "yes",
 *   MEMO_MCP_MAX_PAGE_SIZE: "50",
 * });
 * assert.deepEqual(config, { requireAuth: true, maxPageSize: 50 });
 * ```
 */
export interface HttpEnvConfig extends ServerEnvConfig {
  /** `MEMO_MCP_PATH`. */
  path?: string;
  /** `MEMO_MCP_BEARER_TOKEN`. */
  bearerToken?: string;
  /** `MEMO_MCP_REQUIRE_AUTH`. */
  requireAuth?: boolean;
  /** `MEMO_MCP_ALLOWED_ORIGINS` (comma-separated). */
  allowedOrigins?: string[];
  /** `MEMO_UI`: whether a routed endpoint serves the web page. */
  ui?: boolean;
  /** `MEMO_UI_PATH`: the web page's path (starts with `/`). */
  uiPath?: string;
}

/**
 * Reads the hosted endpoint's variables from an environment map.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readHttpEnv } from "./env.ts";
 *
 * const config = readHttpEnv({
 *   MEMO_MCP_READ_ONLY: "true",
 *   MEMO_MCP_ALLOWED_ORIGINS: "https://a.example",
 * });
 * assert.equal(config.readOnly, true);
 * assert.deepEqual(config.allowedOrigins, ["https://a.example"]);
 * assert.throws(() => readHttpEnv({ MEMO_MCP_PATH: "mcp" }), /the path must start with \//);
 * assert.deepEqual(readHttpEnv({ MEMO_UI: "false", MEMO_UI_PATH: "/ui" }), { ui: false, uiPath: "/ui" });
 * ```
 */
export function readHttpEnv(env: MemoMcpHttpEnv): HttpEnvConfig {
  const config: HttpEnvConfig = readServerEnv(env);
  const path = envString(env, "MEMO_MCP_PATH");
  if (path !== undefined) {
    if (!path.startsWith("/")) {
      throw new Error("Cannot read MEMO_MCP_PATH: the path must start with /");
    }
    config.path = path;
  }
  const bearerToken = envString(env, "MEMO_MCP_BEARER_TOKEN");
  if (bearerToken !== undefined) config.bearerToken = bearerToken;
  const requireAuth = envBoolean(env, "MEMO_MCP_REQUIRE_AUTH");
  if (requireAuth !== undefined) config.requireAuth = requireAuth;
  const origins = envString(env, "MEMO_MCP_ALLOWED_ORIGINS");
  if (origins !== undefined) config.allowedOrigins = splitList(origins);
  const ui = envBoolean(env, "MEMO_UI");
  if (ui !== undefined) config.ui = ui;
  const uiPath = envString(env, "MEMO_UI_PATH");
  if (uiPath !== undefined) {
    if (!uiPath.startsWith("/")) {
      throw new Error("Cannot read MEMO_UI_PATH: the path must start with /");
    }
    config.uiPath = uiPath;
  }
  return config;
}
