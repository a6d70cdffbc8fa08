/**
 * JSON-RPC 2.0 framing: id checks, and responses serialized as strings in one
 * pass (results that are already JSON are spliced in, not re-serialized).
 *
 * @module
 */

import type { SafeError } from "./errors.ts";

/**
 * A valid JSON-RPC id for MCP: a string or an integer that JavaScript holds
 * exactly (never null; a larger number could not be echoed as sent).
 */
export function isValidId(id: unknown): id is string | number {
  return typeof id === "string" || Number.isSafeInteger(id);
}

/** A success response around an already serialized result. */
export function resultResponse(idJson: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson}}`;
}

/** A JSON-RPC error response, serialized. `idJson` is `"null"` when the id is unknown. */
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

/** -32700 with id null, serialized once. */
export const PARSE_ERROR_JSON: string = rpcErrorJson(
  "null",
  -32700,
  "Cannot parse the message: invalid JSON",
);

/** -32600 with id null for a batch the protocol version does not allow. */
export const BATCH_REFUSED: string = rpcErrorJson(
  "null",
  -32600,
  "Cannot handle a batch: this protocol version does not allow batches",
);

/** -32600 with id null for an empty batch. */
export const EMPTY_BATCH: string = rpcErrorJson(
  "null",
  -32600,
  "Cannot handle a batch: it is empty",
);

/** UTF-8 length of a string, counted without allocating. */
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

/** Whether a string's UTF-8 length is over `limit`, counting only when it must. */
export function overLimit(text: string, limit: number): number | undefined {
  if (text.length * 3 <= limit) return undefined;
  if (text.length > limit) return utf8Length(text);
  const size = utf8Length(text);
  return size > limit ? size : undefined;
}
