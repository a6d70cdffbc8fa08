/**
 * Test and benchmark helper: one HTTP/1.1 POST over a raw socket, so that a
 * caller sees the answer's bytes as they went over the wire (a `fetch` would
 * decode gzip, and always ask for it), and gunzip for those bytes. Not
 * published (`testing/` is excluded from the packages).
 *
 * @module
 */

/** What came back: the status, the headers and the body's bytes as sent. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * POSTs `body` to `http://127.0.0.1:<port><path>` with `headers` (and
 * `host`, `content-length`, `connection: close`), and reads the answer to
 * the end. A chunked answer is refused: every answer here states its length.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rawPost } from "./raw_http.ts";
 *
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (r) =>
 *   new Response(await r.text(), { headers: { "x-seen": r.headers.get("accept-encoding") ?? "none" } }));
 * const answer = await rawPost(server.addr.port, "/mcp", "hello", {});
 * assert.equal(answer.status, 200);
 * assert.equal(answer.headers.get("x-seen"), "none"); // no Accept-Encoding unless given
 * assert.equal(answer.headers.get("content-length"), "5");
 * assert.equal(new TextDecoder().decode(answer.body), "hello");
 * await server.shutdown();
 * ```
 */
export async function rawPost(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<RawAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    "connection: close",
    `content-length: ${new TextEncoder().encode(body).length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  await conn.write(new TextEncoder().encode(`${head.join("\r\n")}\r\n\r\n${body}`));
  const bytes = new Uint8Array(await new Response(conn.readable).arrayBuffer());
  let end = 0;
  while (
    !(bytes[end] === 13 && bytes[end + 1] === 10 && bytes[end + 2] === 13 && bytes[end + 3] === 10)
  ) {
    if (++end >= bytes.length) throw new Error("Cannot read the answer: no end of headers");
  }
  const [statusLine, ...fields] = new TextDecoder().decode(bytes.subarray(0, end)).split("\r\n");
  const parsed = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    parsed.append(field.slice(0, colon), field.slice(colon + 1).trim());
  }
  if (parsed.get("transfer-encoding") === "chunked") {
    throw new Error("Cannot read the answer: it is chunked");
  }
  return { status: Number(statusLine.split(" ")[1]), headers: parsed, body: bytes.slice(end + 4) };
}

/**
 * `bytes` gunzipped, as text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gunzip } from "./raw_http.ts";
 *
 * const zipped = await new Response(
 *   new Blob(["memo"]).stream().pipeThrough(new CompressionStream("gzip")),
 * ).bytes();
 * assert.equal(await gunzip(zipped), "memo");
 * ```
 */
export async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}
