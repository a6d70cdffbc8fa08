/**
 * The `MEMO_MCP_*` variables every transport honours: `MEMO_MCP_READ_ONLY`
 * and the limits of `MEMO_MCP_LIMITS`. (The HTTP endpoint reads
 * its own on top: path, token, origins.) Empty values count as unset; a
 * malformed value is a "Cannot read MEMO_…: …" error.
 *
 * @module
 */

import { envBoolean, type EnvMap } from "../_env.ts";
import { type MemoMcpLimitValues, readLimitEnv } from "./limits.ts";

/**
 * What the server variables configure; a field is unset when its variable is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readServerEnv, type ServerEnvConfig } from "./env.ts";
 *
 * const config: ServerEnvConfig = readServerEnv({ MEMO_MCP_READ_ONLY: "", HOME: "/home/me" });
 * assert.deepEqual(config, {}); // an empty value counts as unset
 * ```
 */
export interface ServerEnvConfig extends MemoMcpLimitValues {
  /** `MEMO_MCP_READ_ONLY`. */
  readOnly?: boolean;
}

/**
 * Reads `MEMO_MCP_READ_ONLY` and the limit variables.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readServerEnv } from "./env.ts";
 *
 * const config = readServerEnv({ MEMO_MCP_READ_ONLY: "true", MEMO_MCP_REQUEST_TIMEOUT_MS: "5000" });
 * assert.deepEqual(config, { readOnly: true, requestTimeoutMs: 5000 });
 * ```
 */
export function readServerEnv(env: EnvMap): ServerEnvConfig {
  const config: ServerEnvConfig = readLimitEnv(env);
  const readOnly = envBoolean(env, "MEMO_MCP_READ_ONLY");
  if (readOnly !== undefined) config.readOnly = readOnly;
  return config;
}
