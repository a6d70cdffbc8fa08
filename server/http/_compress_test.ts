import assert from "node:assert/strict";
import { acceptsGzip, GZIP_MIN_BYTES } from "./_compress.ts";
import { createHttpHandler } from "./handler.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "../types.ts";
import { settled } from "../../testing/wait.ts";

/** A JSON-RPC answer of exactly `bytes` bytes in UTF-8, its padding made of `pad`. */
function answerOfSize(bytes: number, pad = "a"): string {
  const base = '{"jsonrpc":"2.0","id":1,"result":{"x":""}}';
  const padBytes = new TextEncoder().encode(pad).length;
  const room = bytes - base.length;
  const text = pad.repeat(Math.floor(room / padBytes)) + "a".repeat(room % padBytes);
  const answer = base.replace('"x":""', `"x":"${text}"`);
  assert.equal(new TextEncoder().encode(answer).length, bytes);
  return answer;
}

/** A handler whose protocol server answers `answer` (and reports `errorCode`, if any). */
function handlerAnswering(answer: string, errorCode?: number) {
  const server: MemoMcpProtocolServer = {
    name: "fake",
    version: "0",
    handle: () => Promise.resolve(undefined),
    handleParsed(_message: unknown, ctx?: MemoMcpRequestContext) {
      if (errorCode !== undefined) ctx?.onError?.(errorCode);
      return Promise.resolve(answer);
    },
  };
  return createHttpHandler(
    { allowedOrigins: ["http://localhost:*"], auth: {}, maxInputBytes: 1000 },
    () => server,
  );
}

function post(headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1:8787/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });
}

async function gunzip(response: Response): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.equal(response.headers.get("content-length"), String(bytes.length));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

Deno.test("acceptsGzip() honours q-values, x-gzip and *", () => {
  for (const yes of ["gzip", "gzip, deflate, br, zstd", "br;q=1, gzip;q=0.5", "x-gzip", "*"]) {
    assert.equal(acceptsGzip(yes), true, yes);
  }
  for (const yes of ["identity, *;q=0.1", "GZIP ; Q=0.001", "deflate, gzip ;q=1.0"]) {
    assert.equal(acceptsGzip(yes), true, yes);
  }
  for (const no of [null, "", "identity", "br", "gzip;q=0", "gzip; q=0.000", "*;q=0"]) {
    assert.equal(acceptsGzip(no), false, String(no));
  }
  for (const no of ["gzip;q=0, *", "*, gzip;q=0", "gzip;q=abc"]) {
    assert.equal(acceptsGzip(no), false, no);
  }
});

Deno.test("the endpoint gzips an answer one byte past 1 KB and keeps 1 KB exactly plain", async (t) => {
  const gzipOk = { "accept-encoding": "gzip, deflate" };
  for (const pad of ["a", "é", "€", "😀"]) {
    await t.step(`padding ${pad}`, async () => {
      const limit = answerOfSize(GZIP_MIN_BYTES, pad);
      const plain = await handlerAnswering(limit)(post(gzipOk));
      assert.equal(plain.status, 200);
      assert.equal(plain.headers.get("content-encoding"), null);
      assert.equal(plain.headers.get("vary"), "Origin", "an answer this small does not vary");
      assert.equal(await plain.text(), limit);

      const past = answerOfSize(GZIP_MIN_BYTES + 1, pad);
      const zipped = await handlerAnswering(past)(post(gzipOk));
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers.get("content-type"), "application/json");
      assert.equal(zipped.headers.get("content-encoding"), "gzip");
      assert.equal(zipped.headers.get("vary"), "Origin, Accept-Encoding");
      assert.equal(zipped.headers.get("etag"), null);
      assert.equal(await gunzip(zipped), past);
    });
  }
});

Deno.test("the endpoint counts a character across the 1 KB line whole", async () => {
  const gzipOk = post({ "accept-encoding": "gzip" });
  /** An answer whose 4-byte character starts at byte `at`, padded with 2-byte ones before it. */
  const withEmojiAt = (at: number) => {
    const head = '{"jsonrpc":"2.0","id":1,"result":{"x":"';
    const room = at - head.length;
    return `${head}${"é".repeat(Math.floor(room / 2))}${"a".repeat(room % 2)}😀"}}`;
  };
  // The character at bytes 1,022 to 1,025: 1,029 bytes in all, in far fewer UTF-16 units.
  const across = withEmojiAt(GZIP_MIN_BYTES - 2);
  assert.equal(new TextEncoder().encode(across).length, GZIP_MIN_BYTES + 5);
  assert.ok(across.length < GZIP_MIN_BYTES);
  const zipped = await handlerAnswering(across)(gzipOk.clone());
  assert.equal(zipped.headers.get("content-encoding"), "gzip");
  assert.equal(await gunzip(zipped), across);
  // The character ending the 1,024th byte's line: exactly 1,024 bytes.
  const exact = withEmojiAt(GZIP_MIN_BYTES - 7);
  assert.equal(new TextEncoder().encode(exact).length, GZIP_MIN_BYTES);
  const plain = await handlerAnswering(exact)(gzipOk.clone());
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(await plain.text(), exact);
});

Deno.test("the endpoint answers plain without gzip in Accept-Encoding, and says it varies", async () => {
  const big = answerOfSize(20_000);
  for (const accept of [undefined, "identity", "gzip;q=0", "br", "gzip;q=0, *"]) {
    const headers: Record<string, string> = accept === undefined
      ? {}
      : { "accept-encoding": accept };
    const res = await handlerAnswering(big)(post(headers));
    assert.equal(res.headers.get("content-encoding"), null, String(accept));
    assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding", String(accept));
    assert.equal(await res.text(), big);
  }
});

Deno.test("the endpoint keeps errors plain, however large", async () => {
  const error = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    error: { code: -32602, message: "Cannot list: " + "x".repeat(5000) },
  });
  const res = await handlerAnswering(error, -32602)(post({ "accept-encoding": "gzip" }));
  assert.equal(res.headers.get("content-encoding"), null);
  assert.equal(res.headers.get("vary"), "Origin");
  assert.equal(await res.text(), error);
});

Deno.test("the endpoint gzips an SSE answer known whole, with its CORS headers", async () => {
  const big = answerOfSize(5000);
  const res = await handlerAnswering(big)(post({
    accept: "text/event-stream",
    "accept-encoding": "gzip",
    origin: "http://localhost:5173",
  }));
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
  assert.equal(res.headers.get("cache-control"), "no-cache");
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(await gunzip(res), `event: message\ndata: ${big}\n\n`);
});

Deno.test("the endpoint never compresses a live stream of progress", async () => {
  let step!: () => void;
  const stepped = new Promise<void>((resolve) => (step = resolve));
  const big = answerOfSize(5000);
  const server: MemoMcpProtocolServer = {
    name: "fake",
    version: "0",
    handle: () => Promise.resolve(undefined),
    async handleParsed(_message: unknown, ctx?: MemoMcpRequestContext) {
      ctx?.notify?.(JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p", progress: 1, message: "y".repeat(3000) },
      }));
      await stepped; // the answer waits until the client has read the first step
      return big;
    },
  };
  const handle = createHttpHandler(
    { allowedOrigins: [], auth: {}, maxInputBytes: 1000 },
    () => server,
  );
  const res = await handle(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "accept-encoding": "gzip",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: { progressToken: "p" } },
      }),
    }),
  );
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("content-encoding"), null);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n\n")) {
    // (a stream held back would leave this read pending for ever: the answer waits for it)
    const r = await settled(reader.read(), "the first progress event");
    if (r.done) assert.fail(`the stream ended before its first event: ${first}`);
    first += r.value;
  }
  assert.match(first, /"progress":1/);
  step();
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
  assert.ok(rest.endsWith(`data: ${big}\n\n`));
});
