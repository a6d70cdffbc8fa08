/**
 * Internal: which era a request is served in. The 2026-07-28 revision's requests carry their
 * protocol version in `_meta` and are served statelessly; `initialize` and requests without it are
 * of the session era, served in the version the connection negotiated. Also the JSON-RPC failures a
 * request's method or params cause.
 *
 * @module
 */

import { JSON_RPC_CODES, STATELESS_ERROR_CODES } from "../json_rpc_codes.ts";
import { McpValidationError, toSafeError } from "../errors.ts";
import { scrubSecrets } from "../scrub.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import { RpcFailure } from "../core/rpc_failure.ts";
import {
  isSupportedVersion,
  LATEST_SESSION_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  versionFeatures,
} from "./versions.ts";
import {
  checkStatelessMeta,
  isObject,
  META_PROTOCOL_VERSION,
  unsupportedVersionError,
} from "./stateless.ts";

/**
 * A request's `params` (or a notification's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Params } from "./request_era.ts";
 *
 * const params: Params = { name: "recall", arguments: { query: "deploy" } };
 * assert.equal(params.name, "recall");
 * ```
 */
export type Params = Record<string, unknown>;

/**
 * The era a request is served in, and what its stateless `_meta` asked for.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { RequestEra } from "./request_era.ts";
 *
 * const era: RequestEra = { version: "2025-06-18", stateless: false, logLevel: -1 };
 * assert.equal(era.progressToken, undefined);
 * ```
 */
export interface RequestEra {
  /** The protocol version it is served with. */
  version: string;
  /** Whether it is a stateless (2026-07-28) request. */
  stateless: boolean;
  /** A stateless request's log level (an index into the levels); -1 for none. */
  logLevel: number;
  /** `_meta.progressToken`, when the request asks for progress. */
  progressToken?: string | number;
}

/**
 * Classifies a request into an era, as the 2026-07-28 revision says: one that carries
 * `_meta["io.modelcontextprotocol/protocolVersion"]` is served statelessly in that version;
 * `initialize` and a request without it are served in the session era. A stdio connection that
 * opened with `initialize` stays in the version it negotiated. Throws an {@linkcode RpcFailure} for
 * an unsupported version (-32022) or a malformed stateless `_meta` (-32602). `negotiated` is the
 * version `initialize` negotiated on this connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestEra } from "./request_era.ts";
 *
 * const session = requestEra("tools/list", {}, { transport: "stdio" }, undefined);
 * assert.equal(session.stateless, false);
 * const _meta = {
 *   "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {},
 * };
 * const stateless = requestEra("tools/list", { _meta }, { transport: "stdio" }, undefined);
 * assert.deepEqual(stateless, { version: "2026-07-28", stateless: true, logLevel: -1, progressToken: undefined });
 * ```
 */
export function requestEra(
  method: string,
  params: Params,
  context: MemoMcpRequestContext,
  negotiated: string | undefined,
): RequestEra {
  const meta = params._meta;
  const requested = isObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  let version: string;
  if (context.protocolVersion !== undefined) {
    // A stateless transport names the version (HTTP: MCP-Protocol-Version,
    // which its handler has checked against the body).
    version = context.protocolVersion;
  } else if (requested !== undefined && method !== "initialize") {
    if (!isSupportedVersion(requested)) throw unsupportedVersion(requested);
    if (negotiated !== undefined && requested !== negotiated) {
      // This connection opened with initialize: it stays in that version.
      throw unsupportedVersion(requested, [negotiated]);
    }
    version = requested;
  } else {
    version = negotiated ?? LATEST_SESSION_PROTOCOL_VERSION;
  }
  if (!versionFeatures(version).stateless) {
    if (method === "server/discover" && requested === undefined) {
      // The one method that exists only in the stateless era: without its
      // _meta it is a malformed stateless request, not an unknown method.
      throw invalidParams(
        `Cannot handle server/discover: params._meta["${META_PROTOCOL_VERSION}"] is required`,
      );
    }
    return { version, stateless: false, logLevel: -1, progressToken: progressTokenOf(meta) };
  }
  const checked = checkStatelessMeta(meta);
  if (typeof checked === "string") {
    throw invalidParams(`Cannot handle ${method.slice(0, 100)}: ${checked}`);
  }
  return {
    version,
    stateless: true,
    logLevel: checked.logLevel,
    progressToken: progressTokenOf(meta),
  };
}

/** `_meta.progressToken` when it is a string or an integer, else undefined. */
function progressTokenOf(meta: unknown): string | number | undefined {
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isFinite(token))
    ? token
    : undefined;
}

/**
 * -32601 for a method memo does not serve (or not in the request's era).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { methodNotFound } from "./request_era.ts";
 *
 * const failure = methodNotFound("tools/run");
 * assert.equal(failure.code, -32601);
 * assert.equal(failure.data.message, "Cannot handle method tools/run: method not found");
 * ```
 */
export function methodNotFound(method: string): RpcFailure {
  return new RpcFailure(JSON_RPC_CODES.methodNotFound, {
    name: "McpNotFoundError",
    message: `Cannot handle method ${scrubSecrets(method.slice(0, 100))}: method not found`,
    code: "MCP_NOT_FOUND",
    status: 404,
  });
}

/**
 * -32602 with `message`, for params a method cannot take.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { invalidParams } from "./request_era.ts";
 *
 * const failure = invalidParams("Cannot listen: filter must be an object");
 * assert.equal(failure.code, -32602);
 * assert.equal(failure.data.code, "MCP_VALIDATION_ERROR");
 * ```
 */
export function invalidParams(message: string): RpcFailure {
  return new RpcFailure(JSON_RPC_CODES.invalidParams, toSafeError(new McpValidationError(message)));
}

/**
 * -32022 for a protocol version memo does not speak (or, on a stdio connection that opened with
 * `initialize`, one other than it negotiated). `data` carries the revision's `supported` and
 * `requested` beside the safe error.
 */
function unsupportedVersion(
  requested: unknown,
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): RpcFailure {
  const { data } = unsupportedVersionError(requested, supported);
  return new RpcFailure(STATELESS_ERROR_CODES.unsupportedProtocolVersion, data);
}
