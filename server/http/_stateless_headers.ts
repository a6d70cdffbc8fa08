/**
 * The Streamable HTTP rules of MCP 2026-07-28, checked before dispatch: the `MCP-Protocol-Version`
 * header must agree with the body's `_meta["io.modelcontextprotocol/protocolVersion"]`, and a
 * stateless request must carry `Mcp-Method` (and `Mcp-Name` for `tools/call`, `resources/read` and
 * `prompts/get`) matching its body. A refusal is `400 Bad Request` with a JSON-RPC error: -32020
 * (`HeaderMismatch`) for a missing or disagreeing header, -32602 for a stateless request without
 * its required `_meta`, -32022 for a version memo does not speak.
 *
 * @module
 */

import { JSON_RPC_CODES, STATELESS_ERROR_CODES } from "../json_rpc_codes.ts";
import { McpValidationError, type SafeError, toSafeError } from "../errors.ts";
import {
  checkStatelessMeta,
  isObject,
  META_PROTOCOL_VERSION,
  unsupportedVersionError,
} from "../protocol/stateless.ts";
import { idJsonOf } from "./_message_meta.ts";
import { versionFeatures } from "../protocol/versions.ts";

/** A refusal of the HTTP layer: a 400 with this JSON-RPC error. */
export interface HttpRefusal {
  /** HTTP status (always 400 here). */
  status: number;
  code: number;
  message: string;
  /** `error.data`: the revision's fields and the safe error. */
  data: SafeError & { supported?: string[]; requested?: string };
  /** The request's id, serialized, or `null`. */
  idJson: string;
}

/** The methods whose `Mcp-Name` header names a tool, resource or prompt, and where. */
const NAMED: ReadonlyMap<string, "name" | "uri"> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
]);

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The value of `Mcp-Name` (or an `Mcp-Param-*` header): as it is, or, in the `=?base64?…?=` form,
 * its Base64 decoded as UTF-8; undefined when that form does not decode.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeHeaderValue } from "./_stateless_headers.ts";
 *
 * assert.equal(decodeHeaderValue("recall"), "recall");
 * assert.equal(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
 * assert.equal(decodeHeaderValue("=?base64?***?="), undefined);
 * ```
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?base64?")) return value;
  const m = SENTINEL.exec(value);
  if (!m) return undefined;
  try {
    const binary = atob(m[1]);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function refusal(idJson: string, code: number, message: string): HttpRefusal {
  return { status: 400, code, message, data: toSafeError(new McpValidationError(message)), idJson };
}

function mismatch(idJson: string, message: string): HttpRefusal {
  return refusal(idJson, STATELESS_ERROR_CODES.headerMismatch, `Header mismatch: ${message}`);
}

/**
 * -32022 with the versions memo speaks, for an `MCP-Protocol-Version` (or a body version) it does
 * not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unsupportedVersionRefusal } from "./_stateless_headers.ts";
 *
 * const r = unsupportedVersionRefusal("1900-01-01", "null");
 * assert.equal(r.status, 400);
 * assert.equal(r.code, -32022);
 * assert.equal(r.data.requested, "1900-01-01");
 * assert.ok(r.data.supported?.includes("2026-07-28"));
 * ```
 */
export function unsupportedVersionRefusal(requested: string, idJson: string): HttpRefusal {
  const { message, data } = unsupportedVersionError(requested);
  return {
    status: 400,
    code: STATELESS_ERROR_CODES.unsupportedProtocolVersion,
    message,
    data,
    idJson,
  };
}

/**
 * Checks a parsed body against the headers. `versionHeader` is the `MCP-Protocol-Version` header
 * (null when absent), already known to be one memo speaks. Returns undefined when the request may
 * be dispatched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkStatelessHeaders } from "./_stateless_headers.ts";
 *
 * const body = {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: {
 *     name: "recall",
 *     arguments: { query: "deploys" },
 *     _meta: {
 *       "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *       "io.modelcontextprotocol/clientCapabilities": {},
 *     },
 *   },
 * };
 * const headers = new Headers({ "mcp-method": "tools/call", "mcp-name": "recall" });
 * assert.equal(checkStatelessHeaders(body, headers, "2026-07-28"), undefined);
 * const wrong = new Headers({ "mcp-method": "tools/call", "mcp-name": "forget" });
 * assert.equal(checkStatelessHeaders(body, wrong, "2026-07-28")?.code, -32020);
 * ```
 */
export function checkStatelessHeaders(
  message: unknown,
  headers: Headers,
  versionHeader: string | null,
): HttpRefusal | undefined {
  const stateless = versionHeader !== null && versionFeatures(versionHeader).stateless;
  if (!isObject(message)) {
    if (stateless && Array.isArray(message)) {
      return refusal(
        "null",
        JSON_RPC_CODES.invalidRequest,
        "Cannot accept the request: 2026-07-28 takes one JSON-RPC message per POST, not a batch",
      );
    }
    // A batch (a session era's): each of its messages is held to the header as one alone is.
    if (Array.isArray(message)) {
      for (const one of message) {
        const refused = isObject(one)
          ? checkStatelessHeaders(one, headers, versionHeader)
          : undefined;
        if (refused !== undefined) return refused;
      }
    }
    return undefined; // not a message: the protocol server answers -32600
  }
  const params = isObject(message.params) ? message.params : undefined;
  const meta = params?._meta;
  const bodyVersion = isObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
  if (!stateless) {
    if (bodyVersion === undefined) return undefined; // a session request
    if (versionHeader === null) {
      return mismatch(idJsonOf(message), "MCP-Protocol-Version header is missing");
    }
    return bodyVersion === versionHeader
      ? undefined
      : disagrees(message, "MCP-Protocol-Version", versionHeader, bodyVersion, 40);
  }
  const method = message.method;
  if (typeof method !== "string") return undefined; // malformed: the protocol server answers
  if (!("id" in message)) {
    // A notification needs no Mcp-Method header, but one that disagrees with the body, or a body
    // version that disagrees with the header, is refused as a request's is.
    const named = headers.get("mcp-method");
    if (named !== null && named !== method) {
      return disagrees(message, "Mcp-Method", named, method, 100);
    }
    if (bodyVersion !== undefined && bodyVersion !== versionHeader) {
      return disagrees(message, "MCP-Protocol-Version", versionHeader, bodyVersion, 40);
    }
    return undefined;
  }
  const methodHeader = headers.get("mcp-method");
  if (methodHeader === null) return mismatch(idJsonOf(message), "Mcp-Method header is missing");
  if (methodHeader !== method) return disagrees(message, "Mcp-Method", methodHeader, method, 100);
  const field = NAMED.get(method);
  if (field !== undefined) {
    const raw = headers.get("mcp-name");
    if (raw === null) {
      return mismatch(idJsonOf(message), `Mcp-Name header is missing (required for ${method})`);
    }
    const name = decodeHeaderValue(raw);
    if (name === undefined) {
      return mismatch(idJsonOf(message), "Mcp-Name header is not valid =?base64?…?=");
    }
    const bodyName = params?.[field];
    if (name !== bodyName) return disagrees(message, "Mcp-Name", name, bodyName, 100);
  }
  const checked = checkStatelessMeta(meta);
  if (typeof checked === "string") {
    return refusal(
      idJsonOf(message),
      JSON_RPC_CODES.invalidParams,
      `Cannot handle ${method.slice(0, 100)}: ${checked}`,
    );
  }
  if (bodyVersion !== versionHeader) {
    return disagrees(message, "MCP-Protocol-Version", versionHeader, bodyVersion, 40);
  }
  return undefined;
}

/** A header that disagrees with the body: -32020, naming both values (cut at `max`). */
function disagrees(
  message: Record<string, unknown>,
  header: string,
  value: string,
  bodyValue: unknown,
  max: number,
): HttpRefusal {
  return mismatch(
    idJsonOf(message),
    `${header} header value '${value.slice(0, max)}' does not match body value ${
      shown(bodyValue, max)
    }`,
  );
}

/**
 * A body value as an error message names it: a string quoted and cut at `max`, a number, boolean or
 * null as itself, anything else by its kind (never converted: an object's own `toString` may be
 * anything, or throw).
 */
function shown(value: unknown, max: number): string {
  if (typeof value === "string") return `'${value.slice(0, max)}'`;
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  return value === undefined ? "(none)" : Array.isArray(value) ? "(an array)" : "(an object)";
}
