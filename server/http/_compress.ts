/**
 * gzip for the hosted endpoint's answers: a JSON-RPC answer over {@linkcode GZIP_MIN_BYTES} goes
 * out gzipped when `Accept-Encoding` allows it (`gzip;q=0` refuses), with `Vary: Accept-Encoding`.
 * Smaller answers, errors and every streamed answer stay plain: `CompressionStream` (web standard,
 * so it runs on Deno, Node and edge workers) has no flush, and under Node it would hold small
 * events until the stream closes.
 *
 * @module
 */

import { textResponse } from "../../platform/mod.ts";
import type { HeaderList } from "./cors.ts";

/**
 * Answers up to this many bytes stay plain; one byte more is gzipped (when the client accepts it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GZIP_MIN_BYTES } from "./_compress.ts";
 *
 * assert.equal(GZIP_MIN_BYTES, 1024);
 * ```
 */
export const GZIP_MIN_BYTES = 1024;

/** A UTF-16 string this long or shorter is at most GZIP_MIN_BYTES in UTF-8. */
const SURELY_SMALL = Math.floor(GZIP_MIN_BYTES / 3);
const VARY_ENCODING = ["vary", "Accept-Encoding"] as const;
const GZIP = ["content-encoding", "gzip"] as const;
const encoder = new TextEncoder();

/**
 * Whether an `Accept-Encoding` value allows gzip: `gzip` (or `x-gzip`) with a q-value other than 0,
 * else `*` with a q-value other than 0. `identity`, a missing header and `gzip;q=0` do not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptsGzip } from "./_compress.ts";
 *
 * assert.equal(acceptsGzip("gzip, deflate, br"), true);
 * assert.equal(acceptsGzip("br;q=1, gzip;q=0.5"), true);
 * assert.equal(acceptsGzip("identity, *;q=0.1"), true);
 * assert.equal(acceptsGzip("gzip;q=0, *"), false);
 * assert.equal(acceptsGzip("identity"), false);
 * assert.equal(acceptsGzip(null), false);
 * ```
 */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  let star: boolean | undefined;
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";");
    const coding = name.trim().toLowerCase();
    if (coding !== "gzip" && coding !== "x-gzip" && coding !== "*") continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=");
      if (key.trim().toLowerCase() === "q") q = Number(value?.trim());
    }
    const ok = Number.isFinite(q) && q > 0;
    if (coding === "*") star = ok;
    else return ok;
  }
  return star ?? false;
}

/** The frozen header lists (the answers' own, without CORS) with `Vary: Accept-Encoding` added. */
const VARIED = new WeakMap<HeaderList, HeaderList>();

/** `headers` and `Vary: Accept-Encoding`: built once for a frozen list, else per answer. */
function varied(headers: HeaderList): HeaderList {
  const known = VARIED.get(headers);
  if (known !== undefined) return known;
  const list: HeaderList = [...headers, VARY_ENCODING];
  if (Object.isFrozen(headers)) VARIED.set(headers, Object.freeze(list));
  return list;
}

/** Room for one byte past the limit: where `isLarge` encodes a body of uncertain size. */
const scratch = new Uint8Array(GZIP_MIN_BYTES + 1);

/**
 * Whether `text` is over `GZIP_MIN_BYTES` in UTF-8. Only a text between a third of the limit and
 * the limit, in UTF-16 units, is encoded to know, and only as far as one byte past the limit:
 * `encodeInto` stops at a character that does not fit, so a text it does not read to the end is
 * larger.
 */
function isLarge(text: string): boolean {
  if (text.length > GZIP_MIN_BYTES) return true;
  if (text.length <= SURELY_SMALL) return false;
  const { read, written } = encoder.encodeInto(text, scratch);
  return read < text.length || written > GZIP_MIN_BYTES;
}

/**
 * The answer carrying `body` (a complete body, never a stream): gzipped when `requestHeaders`
 * accept gzip and the body is over {@linkcode GZIP_MIN_BYTES}, else plain. Pass `null` for
 * `requestHeaders` to answer plain whatever the client accepts (an error). An answer over the limit
 * says `Vary: Accept-Encoding` in both encodings; a smaller one does not vary.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodedResponse } from "./_compress.ts";
 *
 * const big = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "memo ".repeat(400) } });
 * const headers = new Headers({ "accept-encoding": "gzip, deflate" });
 * const type: [string, string][] = [["content-type", "application/json"]];
 * const zipped = await encodedResponse(big, 200, type, headers);
 * assert.equal(zipped.headers.get("content-encoding"), "gzip");
 * assert.equal(zipped.headers.get("vary"), "Accept-Encoding");
 * const bytes = new Uint8Array(await zipped.arrayBuffer());
 * assert.equal(zipped.headers.get("content-length"), String(bytes.length));
 * const plain = await new Response(
 *   new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")),
 * ).text();
 * assert.equal(plain, big);
 *
 * const small = await encodedResponse('{"jsonrpc":"2.0","id":1,"result":{}}', 200, type, headers);
 * assert.equal(small.headers.get("content-encoding"), null);
 * assert.equal(small.headers.get("vary"), null);
 * const error = await encodedResponse(big, 200, type, null);
 * assert.equal(error.headers.get("content-encoding"), null);
 * ```
 */
export function encodedResponse(
  body: string,
  status: number,
  headers: HeaderList,
  requestHeaders: Headers | null,
): Response | Promise<Response> {
  if (requestHeaders === null || !isLarge(body)) return textResponse(body, status, headers);
  if (!acceptsGzip(requestHeaders.get("accept-encoding"))) {
    return textResponse(body, status, varied(headers));
  }
  return gzip(encoder.encode(body)).then((bytes) =>
    new Response(bytes, {
      status,
      headers: [
        ...headers,
        VARY_ENCODING,
        GZIP,
        ["content-length", String(bytes.length)],
      ] as [string, string][],
      ...PRECOMPRESSED,
    })
  );
}

/**
 * What a `Response` of bytes already gzipped adds to its init. Cloudflare Workers (workerd)
 * otherwise read `Content-Encoding: gzip` as an order to compress the body, and send it gzipped
 * twice; Deno and Node ignore the member.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRECOMPRESSED } from "./_compress.ts";
 *
 * assert.deepEqual(PRECOMPRESSED, { encodeBody: "manual" });
 * const res = new Response("x", { status: 200, ...PRECOMPRESSED });
 * assert.equal(res.status, 200);
 * ```
 */
export const PRECOMPRESSED: ResponseInit = Object.freeze({ encodeBody: "manual" }) as ResponseInit;

/**
 * `bytes` gzip-compressed with the web-standard `CompressionStream`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gzip } from "./_compress.ts";
 *
 * const zipped = await gzip(new TextEncoder().encode("memo ".repeat(100)));
 * assert.deepEqual([zipped[0], zipped[1]], [0x1f, 0x8b]); // the gzip magic
 * assert.ok(zipped.length < 100);
 * ```
 */
export async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new CompressionStream("gzip");
  const writer = stream.writable.getWriter();
  // A failure surfaces on the read below; these promises must not reject unhandled.
  writer.write(bytes).catch(() => {});
  writer.close().catch(() => {});
  return new Uint8Array(await new Response(stream.readable).arrayBuffer());
}
