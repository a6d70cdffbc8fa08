/**
 * The `initialize` result (serialized once per version), the capabilities
 * memo declares, and the log levels.
 *
 * @module
 */

import type { MemoMcpLogLevel } from "../logging.ts";
import type { ResolvedMemoMcpOptions } from "../options.ts";

/**
 * Log levels in increasing severity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LOG_LEVELS } from "./capabilities.ts";
 *
 * // `logging/setLevel` "warning" lets through warning and everything after it.
 * assert.deepEqual(LOG_LEVELS.slice(LOG_LEVELS.indexOf("warning")), [
 *   "warning",
 *   "error",
 *   "critical",
 *   "alert",
 *   "emergency",
 * ]);
 * ```
 */
export const LOG_LEVELS: readonly MemoMcpLogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/**
 * The capabilities memo declares.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CAPABILITIES } from "./capabilities.ts";
 *
 * assert.deepEqual(Object.keys(CAPABILITIES), [
 *   "tools",
 *   "resources",
 *   "prompts",
 *   "logging",
 *   "completions",
 * ]);
 * assert.equal(CAPABILITIES.resources.subscribe, false);
 * ```
 */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  logging: {},
  completions: {},
} as const;

/**
 * The capabilities where changes of the notes can be sent (a stdio
 * connection, or `subscriptions/listen`, on a runtime that can `watch`):
 * resources can be subscribed to and their list announces changes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LIVE_CAPABILITIES } from "./capabilities.ts";
 *
 * assert.deepEqual(LIVE_CAPABILITIES.resources, { subscribe: true, listChanged: true });
 * ```
 */
export const LIVE_CAPABILITIES = {
  ...CAPABILITIES,
  resources: { subscribe: true, listChanged: true },
} as const;

const initCache = new WeakMap<ResolvedMemoMcpOptions, Map<string, string>>();

/**
 * The serialized `initialize` result for a negotiated version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { initializeJson } from "./capabilities.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const options = resolveMemoMcpOptions({ runtime, version: "1.2.3" });
 * const result = JSON.parse(initializeJson(options, "2025-06-18"));
 * assert.equal(result.protocolVersion, "2025-06-18");
 * assert.deepEqual(result.serverInfo, { name: "memo", version: "1.2.3" });
 * assert.equal("instructions" in result, false);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function initializeJson(
  options: ResolvedMemoMcpOptions,
  version: string,
  live = false,
): string {
  let byVersion = initCache.get(options);
  if (!byVersion) initCache.set(options, byVersion = new Map());
  const key = live ? `${version}+live` : version;
  let json = byVersion.get(key);
  if (json === undefined) {
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: live ? LIVE_CAPABILITIES : CAPABILITIES,
      serverInfo: { name: options.name, version: options.version },
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    json = JSON.stringify(result);
    byVersion.set(key, json);
  }
  return json;
}
