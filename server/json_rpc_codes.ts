/**
 * Every JSON-RPC error code memo answers with, named once: the standard and MCP codes
 * ({@linkcode JSON_RPC_CODES}), the codes the 2026-07-28 revision defines
 * ({@linkcode STATELESS_ERROR_CODES}) and memo's own codes in a stateless answer
 * ({@linkcode STATELESS_MEMO_CODES}). `errors.ts` re-exports {@linkcode JSON_RPC_CODES}.
 *
 * @module
 */

/**
 * JSON-RPC error codes memo uses: the standard JSON-RPC 2.0 codes (-32700 … -32603), the MCP
 * specification's -32002 for an unknown resource, and memo's own server errors -32010
 * (authorization), -32011 (timeout) and -32012 (output limit).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JSON_RPC_CODES, jsonRpcCodeOf, McpOutputLimitError } from "@memo/mcp-server";
 *
 * const e = new McpOutputLimitError("Cannot send the response: over the limit");
 * assert.equal(jsonRpcCodeOf(e), JSON_RPC_CODES.outputLimit);
 * assert.equal(JSON_RPC_CODES.methodNotFound, -32601);
 * ```
 */
export const JSON_RPC_CODES: {
  readonly parseError: -32700;
  readonly invalidRequest: -32600;
  readonly methodNotFound: -32601;
  readonly invalidParams: -32602;
  readonly internalError: -32603;
  readonly resourceNotFound: -32002;
  readonly authorization: -32010;
  readonly timeout: -32011;
  readonly outputLimit: -32012;
} = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  resourceNotFound: -32002,
  authorization: -32010,
  timeout: -32011,
  outputLimit: -32012,
};

/**
 * JSON-RPC codes the 2026-07-28 (stateless) revision defines: a header that disagrees with the
 * body, a client capability the request needs, and a protocol version memo does not speak.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATELESS_ERROR_CODES } from "./json_rpc_codes.ts";
 *
 * assert.equal(STATELESS_ERROR_CODES.headerMismatch, -32020);
 * ```
 */
export const STATELESS_ERROR_CODES: {
  readonly headerMismatch: -32020;
  readonly missingRequiredClientCapability: -32021;
  readonly unsupportedProtocolVersion: -32022;
} = {
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
};

/**
 * memo's own codes in a stateless answer: the revision asks that codes it does not define stay out
 * of the JSON-RPC reserved range (-32768 to -32000), so authorization, timeout and output limit
 * read -31403, -31504 and -31413 there (the HTTP status they stand for, under -31000), and a
 * `subscriptions/listen` past the limit reads -31503.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATELESS_MEMO_CODES } from "./json_rpc_codes.ts";
 *
 * assert.equal(STATELESS_MEMO_CODES.authorization, -31403);
 * assert.equal(STATELESS_MEMO_CODES.listenLimit, -31503);
 * ```
 */
export const STATELESS_MEMO_CODES: {
  readonly authorization: -31403;
  readonly timeout: -31504;
  readonly outputLimit: -31413;
  readonly listenLimit: -31503;
} = {
  authorization: -31403,
  timeout: -31504,
  outputLimit: -31413,
  listenLimit: -31503,
};
