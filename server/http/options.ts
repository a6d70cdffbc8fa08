/**
 * {@linkcode MemoMcpHttpOptions}: the options of the hosted endpoint's handlers
 * (`handleMemoMcpRequest`, `createMemoMcpFetchHandler`, `createFrameworkMemoMcpHandler`).
 *
 * @module
 */

import type { MemoCloudMcpRuntimeOptions } from "../../runtimes/cloud/runtime.ts";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import type { MemoMcpHttpAuthOptions } from "./auth.ts";
import type { EnvMap } from "../../env.ts";
import type { MemoMcpOptions } from "../options.ts";

export type { MemoMcpHttpAuthOptions };

/**
 * A string-to-string map of environment values: the `env` option of the hosted endpoint's handlers.
 * Which variables it reads: `MEMO_ENV_VARIABLES` in `env.ts`, and docs/configuration.md.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoMcpHttpEnv } from "@memo/mcp-server/http";
 * import { readEnv } from "../../env.ts";
 *
 * const env: MemoMcpHttpEnv = { MEMO_MCP_PATH: "/memory", MEMO_MCP_BEARER_TOKEN: "s3cret" };
 * assert.deepEqual(readEnv(env, "http"), { path: "/memory", bearerToken: "s3cret" });
 * ```
 */
export type MemoMcpHttpEnv = EnvMap;

/**
 * Options of the hosted endpoint: every field of `MemoMcpOptions` (with `runtime` optional) plus
 * `env`, `cloud`, `auth` and `allowedOrigins`. A field given here wins over its `MEMO_*` variable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { handleMemoMcpRequest, type MemoMcpHttpOptions } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const options: MemoMcpHttpOptions = {
 *   runtime, // else MEMO_RUNTIME and MEMO_ROOT_DIR choose it
 *   auth: { bearerToken: "change-me" },
 *   allowedOrigins: ["https://app.example.com"],
 *   readOnly: true,
 *   env: { MEMO_MCP_READ_ONLY: "false" }, // an option wins over its variable
 * };
 * const response = await handleMemoMcpRequest(
 *   new Request("https://memo.example.com/mcp", {
 *     method: "POST",
 *     headers: {
 *       authorization: "Bearer change-me",
 *       origin: "https://app.example.com",
 *       "content-type": "application/json",
 *       accept: "application/json",
 *     },
 *     body: JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "tools/call",
 *       params: { name: "forget", arguments: { id: "x1" } },
 *     }),
 *   }),
 *   options,
 * );
 * assert.equal(response.headers.get("access-control-allow-origin"), "https://app.example.com");
 * const { error } = await response.json();
 * assert.equal(error.message, "Cannot call forget: the server is read-only");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpHttpOptions extends Omit<MemoMcpOptions, "runtime"> {
  /**
   * Where the data comes from. Built once, at the first request, from `env` when missing:
   * `MEMO_RUNTIME` (`local` on `MEMO_ROOT_DIR`, `hybrid` or `cloud`).
   *
   * @default {the runtime `env` selects: local on the current directory}
   */
  runtime?: MemoMcpRuntime;
  /**
   * Environment values (`MEMO_*`, see the README's table). An edge worker's `env` argument is laid
   * over it.
   *
   * @default {the process environment ({} where there is none)}
   */
  env?: MemoMcpHttpEnv;
  /**
   * Cloud API settings, for `MEMO_RUNTIME=cloud` or `hybrid`; laid over the `MEMO_CLOUD_*`
   * variables.
   *
   * @default {undefined}
   */
  cloud?: Partial<MemoCloudMcpRuntimeOptions>;
  /**
   * Authentication: `requireAuth`, `bearerToken` (default `MEMO_MCP_BEARER_TOKEN`),
   * `authenticate(request)`.
   *
   * @default {{ bearerToken: env.MEMO_MCP_BEARER_TOKEN, requireAuth: env.MEMO_MCP_REQUIRE_AUTH }}
   */
  auth?: MemoMcpHttpAuthOptions;
  /**
   * Browser origins allowed to call the endpoint: exact origins, `scheme://host:*` for any port, or
   * `*`. A request without `Origin` always passes the origin check. A list replaces the default.
   *
   * @default {["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"] (or MEMO_MCP_ALLOWED_ORIGINS)}
   */
  allowedOrigins?: readonly string[];
}
