/**
 * The `initialize` result (serialized once per version), the capabilities
 * memo declares, and the log levels.
 *
 * @module
 */

import type { MemoMcpLogLevel, ResolvedMemoMcpOptions } from "./options.ts";

/** Log levels in increasing severity. */
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

/** The capabilities memo declares. */
export const CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
  prompts: { listChanged: false },
  logging: {},
  completions: {},
} as const;

const initCache = new WeakMap<ResolvedMemoMcpOptions, Map<string, string>>();

/** The serialized `initialize` result for a negotiated version. */
export function initializeJson(options: ResolvedMemoMcpOptions, version: string): string {
  let byVersion = initCache.get(options);
  if (!byVersion) initCache.set(options, byVersion = new Map());
  let json = byVersion.get(version);
  if (json === undefined) {
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: CAPABILITIES,
      serverInfo: { name: options.name, version: options.version },
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    json = JSON.stringify(result);
    byVersion.set(version, json);
  }
  return json;
}
