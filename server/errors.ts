/**
 * The MCP server's errors: {@linkcode MemoMcpError} and its subclasses, each with a stable `.code`
 * and an HTTP `.status`, and {@linkcode toSafeError}, which turns anything caught into the `{name,
 * message, code, status, details?}` object that goes on the wire (no stack, no secrets).
 *
 * @module
 */

import { JSON_RPC_CODES } from "./json_rpc_codes.ts";
import { oneLine, safeDetails } from "./scrub.ts";

export { JSON_RPC_CODES };

/**
 * The stable machine codes of the MCP errors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpTimeoutError, type MemoMcpErrorCode, toSafeError } from "@memo/mcp-server";
 *
 * const code: MemoMcpErrorCode = toSafeError(new McpTimeoutError("Cannot call recall: timed out"))
 *   .code;
 * assert.equal(code, "MCP_TIMEOUT");
 * ```
 */
export type MemoMcpErrorCode =
  | "MEMO_MCP_ERROR"
  | "MCP_VALIDATION_ERROR"
  | "MCP_AUTHORIZATION_ERROR"
  | "MCP_NOT_FOUND"
  | "MCP_TIMEOUT"
  | "MCP_OUTPUT_LIMIT"
  | "MCP_CONFLICT";

/**
 * Options of the MCP error constructors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpNotFoundError, type MemoMcpErrorOptions, toSafeError } from "@memo/mcp-server";
 *
 * const options: MemoMcpErrorOptions = {
 *   details: { kind: "note", id: "x1" },
 *   cause: new Error("ENOENT: /srv/notes/.memo/memory/notes.md"),
 * };
 * const e = new McpNotFoundError("Cannot find note x1", options);
 * assert.equal(e.cause, options.cause);
 * assert.equal("cause" in toSafeError(e), false); // the cause stays off the wire
 * assert.deepEqual(toSafeError(e).details, { kind: "note", id: "x1" });
 * ```
 */
export interface MemoMcpErrorOptions {
  /** Extra facts about the failure; never secrets (they go through the scrubber anyway). */
  details?: Record<string, unknown>;
  /** The underlying error; kept for logs, never put on the wire. */
  cause?: unknown;
}

/**
 * Base class of every MCP error memo throws on purpose (`MEMO_MCP_ERROR`, status 500, JSON-RPC
 * -32603).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpValidationError, MemoMcpError } from "@memo/mcp-server";
 *
 * const e = new MemoMcpError("Cannot read notes.md: disk gone");
 * assert.equal(e.code, "MEMO_MCP_ERROR");
 * assert.equal(e.status, 500);
 * assert.ok(new McpValidationError("Cannot call recall: query is empty") instanceof MemoMcpError);
 * ```
 */
export class MemoMcpError extends Error {
  /** Stable machine-readable code. */
  readonly code: MemoMcpErrorCode = "MEMO_MCP_ERROR";
  /** HTTP status that matches the error. */
  readonly status: number = 500;
  /** Extra facts about the failure, safe to send to the client. */
  readonly details?: Record<string, unknown>;
  /** Creates the error; `options.details` goes on the wire, `options.cause` does not. */
  constructor(message: string, options: MemoMcpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoMcpError";
    if (options.details !== undefined) this.details = options.details;
  }
}

/**
 * A request or tool arguments that fail validation, or an input over `maxInputBytes`
 * (`MCP_VALIDATION_ERROR`, 400).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonRpcCodeOf, McpValidationError } from "@memo/mcp-server";
 *
 * const e = new McpValidationError("Cannot call recall: query is empty");
 * assert.equal(e.code, "MCP_VALIDATION_ERROR");
 * assert.equal(e.status, 400);
 * assert.equal(jsonRpcCodeOf(e), -32602);
 * ```
 */
export class McpValidationError extends MemoMcpError {
  /** Always `MCP_VALIDATION_ERROR`. */
  override readonly code: MemoMcpErrorCode = "MCP_VALIDATION_ERROR";
  /** Always 400. */
  override readonly status: number = 400;
  /** Always `McpValidationError`. */
  override name: string = "McpValidationError";
}

/**
 * A write without authorization, or any write in read-only mode (`MCP_AUTHORIZATION_ERROR`, 403).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonRpcCodeOf, McpAuthorizationError } from "@memo/mcp-server";
 *
 * const e = new McpAuthorizationError("Cannot call remember: the server is read-only");
 * assert.equal(e.code, "MCP_AUTHORIZATION_ERROR");
 * assert.equal(e.status, 403);
 * assert.equal(jsonRpcCodeOf(e), -32010);
 * ```
 */
export class McpAuthorizationError extends MemoMcpError {
  /** Always `MCP_AUTHORIZATION_ERROR`. */
  override readonly code: MemoMcpErrorCode = "MCP_AUTHORIZATION_ERROR";
  /** Always 403. */
  override readonly status: number = 403;
  /** Always `McpAuthorizationError`. */
  override name: string = "McpAuthorizationError";
}

/**
 * An unknown tool, resource, prompt or note (`MCP_NOT_FOUND`, 404). `details.kind` says what was
 * not found.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonRpcCodeOf, McpNotFoundError } from "@memo/mcp-server";
 *
 * const e = new McpNotFoundError("Cannot find note x1", { details: { kind: "note", id: "x1" } });
 * assert.equal(e.code, "MCP_NOT_FOUND");
 * assert.equal(e.status, 404);
 * assert.equal(jsonRpcCodeOf(e), -32602); // an unknown note is a bad argument
 * const resource = new McpNotFoundError("Cannot read memo://nope", {
 *   details: { kind: "resource" },
 * });
 * assert.equal(jsonRpcCodeOf(resource), -32002);
 * ```
 */
export class McpNotFoundError extends MemoMcpError {
  /** Always `MCP_NOT_FOUND`. */
  override readonly code: MemoMcpErrorCode = "MCP_NOT_FOUND";
  /** Always 404. */
  override readonly status: number = 404;
  /** Always `McpNotFoundError`. */
  override name: string = "McpNotFoundError";
}

/**
 * An operation that ran past `requestTimeoutMs` (`MCP_TIMEOUT`, 504).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpTimeoutError } from "@memo/mcp-server";
 *
 * const e = new McpTimeoutError("Cannot call recall: timed out after 30000 ms");
 * assert.equal(e.code, "MCP_TIMEOUT");
 * assert.equal(e.status, 504);
 * ```
 */
export class McpTimeoutError extends MemoMcpError {
  /** Always `MCP_TIMEOUT`. */
  override readonly code: MemoMcpErrorCode = "MCP_TIMEOUT";
  /** Always 504. */
  override readonly status: number = 504;
  /** Always `McpTimeoutError`. */
  override name: string = "McpTimeoutError";
}

/**
 * A response larger than `maxOutputBytes` (`MCP_OUTPUT_LIMIT`, 413).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpOutputLimitError } from "@memo/mcp-server";
 *
 * const e = new McpOutputLimitError(
 *   "Cannot send the response: 600000 bytes is over the limit of 512000",
 *   { details: { limit: 512000, size: 600000 } },
 * );
 * assert.equal(e.code, "MCP_OUTPUT_LIMIT");
 * assert.equal(e.status, 413);
 * assert.deepEqual(e.details, { limit: 512000, size: 600000 });
 * ```
 */
export class McpOutputLimitError extends MemoMcpError {
  /** Always `MCP_OUTPUT_LIMIT`. */
  override readonly code: MemoMcpErrorCode = "MCP_OUTPUT_LIMIT";
  /** Always 413. */
  override readonly status: number = 413;
  /** Always `McpOutputLimitError`. */
  override name: string = "McpOutputLimitError";
}

/**
 * A write refused while the project's `notes.md` holds an unresolved git merge (git's conflict
 * markers): nothing in the file is touched, and the message names `memo resolve`
 * (`MCP_CONFLICT`, 409). A tool answers it as a result with `isError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpConflictError } from "@memo/mcp-server";
 *
 * const e = new McpConflictError(
 *   "Cannot write notes: notes.md has an unresolved merge (git's conflict markers); run `memo resolve`",
 * );
 * assert.equal(e.code, "MCP_CONFLICT");
 * assert.equal(e.status, 409);
 * ```
 */
export class McpConflictError extends MemoMcpError {
  /** Always `MCP_CONFLICT`. */
  override readonly code: MemoMcpErrorCode = "MCP_CONFLICT";
  /** Always 409. */
  override readonly status: number = 409;
  /** Always `McpConflictError`. */
  override name: string = "McpConflictError";
}

/**
 * The wire form of an error: what `error.data` and `structuredContent.error` hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpValidationError, type SafeError, toSafeError } from "@memo/mcp-server";
 *
 * const safe: SafeError = toSafeError(
 *   new McpValidationError("Cannot call recall: query is empty", { details: { field: "query" } }),
 * );
 * assert.deepEqual(safe, {
 *   name: "McpValidationError",
 *   message: "Cannot call recall: query is empty",
 *   code: "MCP_VALIDATION_ERROR",
 *   status: 400,
 *   details: { field: "query" },
 * });
 * ```
 */
export interface SafeError {
  /** Class name (`McpValidationError` …); `MemoMcpError` for anything unexpected. */
  name: string;
  /** One-line message without secrets or stack. */
  message: string;
  /** Stable machine code. */
  code: MemoMcpErrorCode;
  /** Matching HTTP status. */
  status: number;
  /** Extra facts, with secret-looking keys and values masked. */
  details?: Record<string, unknown>;
}

/**
 * Turns any caught error into the object sent on the wire: `{name, message, code, status,
 * details?}`. memo's own errors keep their class, message and details; anything else becomes a
 * `MemoMcpError` (500) with a one-line message. Stacks never appear; token-shaped strings and
 * secret-named detail keys are masked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpNotFoundError, toSafeError } from "@memo/mcp-server";
 *
 * assert.deepEqual(toSafeError(new McpNotFoundError("Cannot find note x1")), {
 *   name: "McpNotFoundError",
 *   message: "Cannot find note x1",
 *   code: "MCP_NOT_FOUND",
 *   status: 404,
 * });
 * assert.deepEqual(toSafeError(new TypeError("boom")), {
 *   name: "MemoMcpError",
 *   message: "Cannot complete the request: boom",
 *   code: "MEMO_MCP_ERROR",
 *   status: 500,
 * });
 * ```
 */
export function toSafeError(error: unknown): SafeError {
  if (error instanceof MemoMcpError) {
    const safe: SafeError = {
      name: error.name,
      message: oneLine(error.message),
      code: error.code,
      status: error.status,
    };
    if (error.details !== undefined) {
      safe.details = safeDetails(error.details) as Record<string, unknown>;
    }
    return safe;
  }
  let message = "Cannot complete the request: unexpected error";
  if (error instanceof Error && error.message) {
    message = /^Cannot /.test(error.message)
      ? error.message
      : `Cannot complete the request: ${error.message}`;
  }
  return { name: "MemoMcpError", message: oneLine(message), code: "MEMO_MCP_ERROR", status: 500 };
}

/**
 * The JSON-RPC error code of an error: -32602 for validation and for an unknown tool or prompt,
 * -32002 for an unknown resource, -32010, -32011 and -32012 for authorization, timeout and output
 * limit, -32603 otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonRpcCodeOf, McpTimeoutError } from "@memo/mcp-server";
 *
 * assert.equal(jsonRpcCodeOf(new McpTimeoutError("Cannot call recall: timed out")), -32011);
 * assert.equal(jsonRpcCodeOf(new Error("disk gone")), -32603);
 * ```
 */
export function jsonRpcCodeOf(error: unknown): number {
  if (!(error instanceof MemoMcpError)) return JSON_RPC_CODES.internalError;
  switch (error.code) {
    case "MCP_VALIDATION_ERROR":
      return JSON_RPC_CODES.invalidParams;
    case "MCP_NOT_FOUND":
      return error.details?.kind === "resource"
        ? JSON_RPC_CODES.resourceNotFound
        : JSON_RPC_CODES.invalidParams;
    case "MCP_AUTHORIZATION_ERROR":
      return JSON_RPC_CODES.authorization;
    case "MCP_TIMEOUT":
      return JSON_RPC_CODES.timeout;
    case "MCP_OUTPUT_LIMIT":
      return JSON_RPC_CODES.outputLimit;
    default:
      return JSON_RPC_CODES.internalError;
  }
}
