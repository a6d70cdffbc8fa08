/**
 * The protocol server's log records and the logger that receives them (the `logger` option).
 *
 * @module
 */

/**
 * Severity of a log record, as MCP's `logging/setLevel` names them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpLogLevel,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const levels: MemoMcpLogLevel[] = [];
 * const server = createMemoMcpProtocolServer({
 *   runtime,
 *   logger: (record) => void levels.push(record.level),
 * });
 * await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "recall", arguments: { query: "" } },
 * }));
 * assert.deepEqual(levels, ["info", "warning"]); // the call, then its invalid arguments
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoMcpLogLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/**
 * One log record of the protocol server. Arguments in `data` are already redacted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpLogRecord,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const records: MemoMcpLogRecord[] = [];
 * const server = createMemoMcpProtocolServer({ runtime, logger: (r) => void records.push(r) });
 * await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "recall", arguments: { query: "deploy", token: "s3cret" } },
 * }));
 * assert.deepEqual(records[0], {
 *   level: "info",
 *   message: "tools/call recall",
 *   data: { tool: "recall", arguments: { query: "deploy", token: "[REDACTED]" } },
 * });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpLogRecord {
  /** Severity. */
  level: MemoMcpLogLevel;
  /** One-line message. */
  message: string;
  /** Structured facts (method, tool, redacted arguments, safe error). */
  data?: Record<string, unknown>;
}

/**
 * Receives the server's log records. Library code never writes to the console; the CLI's logger
 * writes to stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpLogger,
 * } from "@memo/mcp-server";
 *
 * const lines: string[] = [];
 * const logger: MemoMcpLogger = (record) => void lines.push(`${record.level}: ${record.message}`);
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime, logger });
 * await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "memory_stats", arguments: {} },
 * }));
 * assert.deepEqual(lines, ["info: tools/call memory_stats"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoMcpLogger = (record: MemoMcpLogRecord) => void;
