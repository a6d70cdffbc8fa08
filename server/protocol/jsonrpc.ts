/**
 * JSON-RPC 2.0 framing: id checks, and responses serialized as strings in one
 * pass (results that are already JSON are spliced in, not re-serialized).
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import type { SafeError } from "../errors.ts";

/**
 * A valid JSON-RPC id for MCP: a string or an integer that JavaScript holds
 * exactly (never null; a larger number could not be echoed as sent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidId } from "./jsonrpc.ts";
 *
 * assert.ok(isValidId(1));
 * assert.ok(isValidId("req-1"));
 * assert.ok(!isValidId(null));
 * assert.ok(!isValidId(1.5));
 * assert.ok(!isValidId(2 ** 60));
 * ```
 */
export function isValidId(id: unknown): id is string | number {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/**
 * A success response around an already serialized result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultResponse } from "./jsonrpc.ts";
 *
 * assert.equal(resultResponse('"a"', "{}"), '{"jsonrpc":"2.0","id":"a","result":{}}');
 * ```
 */
export function resultResponse(idJson: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson}}`;
}

/**
 * A JSON-RPC error response, serialized. `idJson` is `"null"` when the id is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rpcErrorJson } from "./jsonrpc.ts";
 *
 * assert.deepEqual(JSON.parse(rpcErrorJson("7", -32601, "Cannot call foo: unknown method")), {
 *   jsonrpc: "2.0",
 *   id: 7,
 *   error: { code: -32601, message: "Cannot call foo: unknown method" },
 * });
 * ```
 */
export function rpcErrorJson(
  idJson: string,
  code: number,
  message: string,
  data?: SafeError,
): string {
  const error = data === undefined
    ? `{"code":${code},"message":${JSON.stringify(message)}}`
    : `{"code":${code},"message":${JSON.stringify(message)},"data":${JSON.stringify(data)}}`;
  return `{"jsonrpc":"2.0","id":${idJson},"error":${error}}`;
}

/**
 * -32700 with id null, serialized once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PARSE_ERROR_JSON } from "./jsonrpc.ts";
 *
 * const { id, error } = JSON.parse(PARSE_ERROR_JSON);
 * assert.equal(id, null);
 * assert.equal(error.code, -32700);
 * ```
 */
export const PARSE_ERROR_JSON: string = rpcErrorJson(
  "null",
  JSON_RPC_CODES.parseError,
  "Cannot parse the message: invalid JSON",
);

/**
 * -32600 with id null for a batch the protocol version does not allow.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BATCH_REFUSED } from "./jsonrpc.ts";
 *
 * assert.equal(JSON.parse(BATCH_REFUSED).error.code, -32600);
 * ```
 */
export const BATCH_REFUSED: string = rpcErrorJson(
  "null",
  JSON_RPC_CODES.invalidRequest,
  "Cannot handle a batch: this protocol version does not allow batches",
);

/**
 * -32600 with id null for an empty batch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EMPTY_BATCH } from "./jsonrpc.ts";
 *
 * assert.equal(JSON.parse(EMPTY_BATCH).error.message, "Cannot handle a batch: it is empty");
 * ```
 */
export const EMPTY_BATCH: string = rpcErrorJson(
  "null",
  JSON_RPC_CODES.invalidRequest,
  "Cannot handle a batch: it is empty",
);

/**
 * UTF-8 length of a string, counted without allocating.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { utf8Length } from "./jsonrpc.ts";
 *
 * assert.equal(utf8Length("abc"), 3);
 * assert.equal(utf8Length("é"), 2);
 * assert.equal(utf8Length("🙂"), new TextEncoder().encode("🙂").length); // 4
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 2; // 4 bytes for the pair, which counts 2 in length
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Whether a string's UTF-8 length is over `limit`, counting only when it must:
 * the length when it is over, else undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { overLimit } from "./jsonrpc.ts";
 *
 * assert.equal(overLimit("abc", 9), undefined); // 3 characters cannot pass 9 bytes
 * assert.equal(overLimit("ééé", 5), 6);
 * ```
 */
export function overLimit(text: string, limit: number): number | undefined {
  if (text.length * 3 <= limit) return undefined;
  if (text.length > limit) return utf8Length(text);
  const size = utf8Length(text);
  return size > limit ? size : undefined;
}
