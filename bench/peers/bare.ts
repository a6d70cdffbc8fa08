/**
 * Benchmark peer (b), the ceiling: a bare `Deno.serve` that parses the JSON
 * body and answers a constant JSON-RPC result with the request's id.
 *
 * With a second argument, the constant is that file's JSON-RPC response (as
 * `bench/http_stateless.ts` captures memo's stateless `tools/list` answer): its
 * bytes are sent as they are, with the request's id put in place of the
 * captured one, and with the headers memo sent (`content-type`, `vary`), so
 * that the only work left is HTTP, reading and parsing the body, and writing
 * the same bytes memo writes. Like memo, it gzips an answer over 1 KB when
 * the request's `Accept-Encoding` names gzip (`CompressionStream`, once per
 * request, as memo does; `bench/http_gzip.ts` sends such requests), so that
 * the ceiling stays memo's bytes with and without gzip.
 *
 * Run: `deno run -A bench/peers/bare.ts <port> [answer.json]`
 *
 * @module
 */

if (import.meta.main) await main();

async function main() {
  const port = Number(Deno.args[0] ?? 8789);
  const answerFile = Deno.args[1];

  /** The answer's bytes around its id: `{"jsonrpc":"2.0","id":` … `,"result":…}`. */
  let tail = ',"result":{}}';
  let headers: Record<string, string> = { "content-type": "application/json" };
  if (answerFile !== undefined) {
    const answer = await Deno.readTextFile(answerFile);
    const id = JSON.stringify(JSON.parse(answer).id);
    const head = `{"jsonrpc":"2.0","id":${id}`;
    if (!answer.startsWith(head)) throw new Error(`${answerFile}: not a compact JSON-RPC answer`);
    tail = answer.slice(head.length);
    headers = { "content-type": "application/json", vary: "Origin" };
  }

  const gzipHeaders = { ...headers, vary: "Origin, Accept-Encoding", "content-encoding": "gzip" };
  const encoder = new TextEncoder();
  Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: () => console.error(`bare peer: listening on http://127.0.0.1:${port}/mcp`),
  }, async (request) => {
    const message = JSON.parse(await request.text());
    const answer = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)}${tail}`;
    if (answer.length <= 1024 || !request.headers.get("accept-encoding")?.includes("gzip")) {
      return new Response(answer, { headers });
    }
    const bytes = await gzip(encoder.encode(answer));
    return new Response(bytes, {
      headers: { ...gzipHeaders, "content-length": String(bytes.length) },
    });
  });
}

/** `bytes` gzipped with `CompressionStream`, whole. */
async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new CompressionStream("gzip");
  const writer = stream.writable.getWriter();
  writer.write(bytes).catch(() => {});
  writer.close().catch(() => {});
  return new Uint8Array(await new Response(stream.readable).arrayBuffer());
}
