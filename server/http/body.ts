/**
 * Reads a request body once, refusing it past `maxInputBytes` before it is
 * parsed: from `Content-Length` when present, otherwise (chunked) by counting
 * while reading and stopping at the first byte over the limit.
 *
 * @module
 */

import { readLimited } from "../../platform/mod.ts";

/**
 * What {@linkcode readBodyLimited} got.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type BodyOutcome, readBodyLimited } from "./body.ts";
 *
 * const request = new Request("http://localhost/mcp", {
 *   method: "POST",
 *   headers: { "content-length": "5000" },
 *   body: "{}",
 * });
 * const outcome: BodyOutcome = await readBodyLimited(request, 1000);
 * assert.deepEqual(outcome, { ok: false, tooLarge: true, bytes: 5000 }); // refused unread
 * await request.body?.cancel();
 * ```
 */
export type BodyOutcome =
  | { ok: true; text: string; bytes: number }
  | { ok: false; tooLarge: true; bytes?: number }
  | { ok: false; tooLarge: false; error: string };

const decoder = new TextDecoder();

/**
 * Reads the body of `request` as UTF-8 text if it has at most `limit` bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBodyLimited } from "./body.ts";
 *
 * const r = await readBodyLimited(new Request("http://x/", { method: "POST", body: "{}" }), 10);
 * assert.deepEqual(r, { ok: true, text: "{}", bytes: 2 });
 * const eleven = new Request("http://x/", { method: "POST", body: "x".repeat(11) });
 * const big = await readBodyLimited(eleven, 10);
 * assert.equal(big.ok, false);
 * ```
 */
export async function readBodyLimited(request: Request, limit: number): Promise<BodyOutcome> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const size = Number(declared);
    if (!Number.isSafeInteger(size) || size < 0) {
      return { ok: false, tooLarge: false, error: "invalid Content-Length" };
    }
    if (size > limit) return { ok: false, tooLarge: true, bytes: size };
    if (size === 0) return { ok: true, text: "", bytes: 0 };
    // The HTTP server enforces the declared length; a Request built in-process
    // could lie, and a string longer than the limit is more bytes than it too.
    try {
      const text = await request.text();
      if (text.length > limit) return { ok: false, tooLarge: true };
      return { ok: true, text, bytes: size };
    } catch (e) {
      return { ok: false, tooLarge: false, error: e instanceof Error ? e.message : String(e) };
    }
  }
  const body = request.body;
  if (body === null) return { ok: true, text: "", bytes: 0 };
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readLimited(body, limit);
  } catch (e) {
    return { ok: false, tooLarge: false, error: e instanceof Error ? e.message : String(e) };
  }
  if (bytes === undefined) return { ok: false, tooLarge: true };
  return { ok: true, text: decoder.decode(bytes), bytes: bytes.byteLength };
}
