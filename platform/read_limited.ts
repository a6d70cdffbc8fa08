/**
 * Internal: reads a byte stream whole, up to a limit, for the two HTTP
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
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
