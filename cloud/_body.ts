/**
 * Internal: request bodies. A body is read as a stream and refused with 413
 * as soon as it passes the limit (a `Content-Length` over the limit is
 * refused before reading); then it must be UTF-8 JSON holding an object.
 *
 * @module
 */

import { readLimited } from "../platform/mod.ts";
import { CloudApiError } from "./errors.ts";

function tooLarge(limit: number): CloudApiError {
  return new CloudApiError(
    "payload_too_large",
    `Cannot read the request body: it is larger than ${limit} bytes`,
    { details: { limit } },
  );
}

/** Reads the whole body, at most `limit` bytes; throws 413 past it. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  if (request.body === null) return new Uint8Array(0);
  const bytes = await readLimited(request.body, limit);
  if (bytes === undefined) throw tooLarge(limit);
  return bytes;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Parses a body as a JSON object; throws 400 otherwise. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new CloudApiError("invalid_request", "Cannot read the request body: it is not UTF-8");
  }
  if (text.trim() === "") {
    throw new CloudApiError(
      "invalid_request",
      "Cannot read the request body: it is empty; send a JSON object",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CloudApiError("invalid_request", "Cannot read the request body: it is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CloudApiError(
      "invalid_request",
      "Cannot read the request body: it is not a JSON object",
    );
  }
  return value as Record<string, unknown>;
}
