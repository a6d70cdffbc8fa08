/**
 * The MCP server: the protocol server, the stdio transport, the SDK bridge,
 * options and errors.
 *
 * @module
 */

export * from "./types.ts";
export {
  JSON_RPC_CODES,
  jsonRpcCodeOf,
  McpAuthorizationError,
  McpNotFoundError,
  McpOutputLimitError,
  McpTimeoutError,
  McpValidationError,
  MemoMcpError,
  type MemoMcpErrorCode,
  type MemoMcpErrorOptions,
  type SafeError,
  toSafeError,
} from "./errors.ts";
export * from "./options.ts";
export * from "./protocol_server.ts";
export * from "./stdio.ts";
export * from "./sdk_bridge.ts";
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "./_versions.ts";
