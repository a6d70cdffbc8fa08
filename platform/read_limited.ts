/**
 * Internal: reads a byte stream whole, up to a limit (and joins byte arrays), for the two HTTP
 * handlers that cap request bodies (the MCP endpoint in `server/http/` and the
 * Cloud API in `cloud/`).
 *
 * @module
 */

/**
 * Reads `stream` to its end and returns its bytes, or `undefined` as soon as
 * more than `limit` bytes have arrived (the stream is then cancelled, unread
 * further). Errors of the stream propagate.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readLimited } from "./read_limited.ts";
 *
 * const body = () => new Request("http://x/", { method: "POST", body: "hello" }).body!;
 * assert.equal(new TextDecoder().decode(await readLimited(body(), 5)), "hello");
 * assert.equal(await readLimited(body(), 4), undefined); // one byte past the limit
 * ```
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return concatBytes(chunks, size);
}

/**
 * The `parts` (of `total` bytes in all) as one array: the part itself when there is one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "./read_limited.ts";
 * assert.deepEqual(concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])], 3), new Uint8Array([1, 2, 3]));
 * ```
 */
export function concatBytes(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
