/**
 * The MCP server: the protocol server, the stdio transport, options, limits and errors. It reaches
 * data only through a `MemoMcpRuntime` it is given, and imports only types from `runtimes/`.
 *
 * @module
 */

export * from "./types.ts";
export {
  JSON_RPC_CODES,
  jsonRpcCodeOf,
  McpAuthorizationError,
  McpConflictError,
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
export { STATELESS_ERROR_CODES, STATELESS_MEMO_CODES } from "./json_rpc_codes.ts";
export { isSecretKey, oneLine, safeDetails, scrubSecrets } from "./scrub.ts";
export * from "./options.ts";
export * from "./logging.ts";
export * from "./limits.ts";
export * from "./protocol_server.ts";
export * from "./stdio.ts";
export { MEMO_MCP_INSTRUCTIONS } from "./catalog/instructions.ts";
export {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LATEST_SESSION_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol/versions.ts";
