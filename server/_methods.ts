/**
 * Results of the protocol methods that the protocol server serializes
 * itself: `initialize` (cached per version) and `tools/call`.
 *
 * @module
 */

import type { MemoMcpLogLevel, ResolvedMemoMcpOptions } from "./options.ts";
import type { ToolCallOutcome } from "./_core.ts";

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

/**
 * The serialized `tools/call` result: a text rendering (the JSON, or the
 * error message for a tool error), `structuredContent` from 2025-06-18 on,
 * and `isError`.
 */
export function callToolJson(outcome: ToolCallOutcome, structured: boolean): string {
  const error = outcome.isError
    ? (outcome.structured.error as { message?: string } | undefined)?.message
    : undefined;
  let out = `{"content":[{"type":"text","text":${JSON.stringify(error ?? outcome.json)}}]`;
  if (structured) out += `,"structuredContent":${outcome.json}`;
  if (outcome.isError) out += `,"isError":true`;
  return out + "}";
}
