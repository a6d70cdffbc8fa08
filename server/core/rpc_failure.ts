/**
 * {@linkcode RpcFailure}: how the core hands a failure to the JSON-RPC layer.
 *
 * @module
 */

import type { SafeError } from "../errors.ts";

/**
 * A failure that goes on the wire as a JSON-RPC error (`code`, `message`, `data`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { McpTimeoutError, toSafeError } from "@memo/mcp-server";
 * import { RpcFailure } from "./rpc_failure.ts";
 *
 * const timeout = new McpTimeoutError("Cannot call recall: timed out");
 * const failure = new RpcFailure(-32011, toSafeError(timeout));
 * assert.equal(failure.message, "Cannot call recall: timed out");
 * assert.equal(failure.data.code, "MCP_TIMEOUT");
 * assert.equal(failure.cancelled, false);
 * ```
 */
export class RpcFailure extends Error {
  readonly code: number;
  /** `error.data`: the safe error. */
  readonly data: SafeError;
  /** Whether the request was cancelled by the client (no response is sent). */
  readonly cancelled: boolean;
  constructor(code: number, data: SafeError, cancelled = false) {
    super(data.message);
    this.name = "RpcFailure";
    this.code = code;
    this.data = data;
    this.cancelled = cancelled;
  }
}
