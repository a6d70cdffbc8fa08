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

/** The reason a body that is not UTF-8 is refused (JSON-RPC messages MUST be UTF-8). */
export const NOT_UTF8 = "the body is not valid UTF-8";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** `bytes` as text, or the refusal of a body that is not UTF-8. */
function decoded(bytes: Uint8Array): BodyOutcome {
  try {
    return { ok: true, text: decoder.decode(bytes), bytes: bytes.byteLength };
  } catch {
    return { ok: false, tooLarge: false, error: NOT_UTF8 };
  }
}

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
      const bytes = new Uint8Array(await request.arrayBuffer());
      if (bytes.byteLength > limit) return { ok: false, tooLarge: true };
      return decoded(bytes);
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
  return decoded(bytes);
}
