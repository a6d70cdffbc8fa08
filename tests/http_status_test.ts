/**
 * Every status code of the hosted endpoint over the wire, against
 * `deno serve http.ts` subprocesses configured from the environment: 202,
 * 400 (bad JSON, bad version header), 401, 403 (origin and host), 404, 405,
 * 406, 413 (declared and chunked; at the limit is fine), 415. And a bearer
 * token never appears in anything the server sends back.
 */

import assert from "node:assert/strict";
import { startDenoServe } from "./_serve_process.ts";

const LIMIT = 1000;
const TOKEN = "status-test-token-0c9e5d1b";
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

function pingOfSize(bytes: number): string {
  const base = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":""}}}';
  return base.replace('"x":""', `"x":"${"a".repeat(bytes - base.length)}"`);
}

/** One raw HTTP/1.1 request, for headers fetch will not send (Host). */
async function rawRequest(
  port: number,
  head: string,
  body = "",
): Promise<{ status: number; text: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = new TextEncoder().encode(body);
  await conn.write(
    new TextEncoder().encode(
      `${head}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`,
    ),
  );
  await conn.write(bytes);
  const text = await new Response(conn.readable).text();
  return { status: Number(text.split(" ")[1]), text };
}

Deno.test("deno serve http.ts gives each transport status code over the wire", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-status-" });
  const server = await startDenoServe({
    MEMO_ROOT_DIR: rootDir,
    MEMO_MCP_MAX_INPUT_BYTES: String(LIMIT),
  });
  const url = `${server.origin}/mcp`;
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { ...HEADERS, ...headers }, body });
  const expect = async (res: Response, status: number, check?: (body: string) => void) => {
    const body = await res.text();
    assert.equal(res.status, status, body);
    check?.(body);
    return body;
  };
  try {
    await t.step("200 for a request", async () => {
      await expect(await post(PING), 200, (b) => assert.deepEqual(JSON.parse(b).result, {}));
    });
    await t.step("200 as SSE when Accept is only text/event-stream", async () => {
      const res = await post(PING, { accept: "text/event-stream" });
      assert.equal(res.headers.get("content-type"), "text/event-stream");
      await expect(res, 200, (b) => assert.match(b, /^event: message\ndata: \{/));
    });
    await t.step("200 with no Accept header (curl)", async () => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: PING,
      });
      await expect(res, 200);
    });
    await t.step("200 for a JSON-RPC error (unknown method)", async () => {
      await expect(
        await post('{"jsonrpc":"2.0","id":2,"method":"nope"}'),
        200,
        (b) => assert.equal(JSON.parse(b).error.code, -32601),
      );
    });
    await t.step("202 for only a notification", async () => {
      await expect(
        await post('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
        202,
        (b) => assert.equal(b, ""),
      );
    });
    await t.step("400 for a body that is not JSON", async () => {
      await expect(
        await post("{not json"),
        400,
        (b) => assert.equal(JSON.parse(b).error.code, -32700),
      );
    });
    await t.step("400 for an unsupported MCP-Protocol-Version", async () => {
      await expect(await post(PING, { "mcp-protocol-version": "2099-01-01" }), 400);
    });
    await t.step("403 for a disallowed Origin", async () => {
      const res = await post(PING, { origin: "https://evil.example" });
      assert.equal(res.headers.get("access-control-allow-origin"), null);
      await expect(res, 403);
    });
    await t.step("403 for a non-loopback Host (DNS rebinding)", async () => {
      const r = await rawRequest(
        server.port,
        `POST /mcp HTTP/1.1\r\nHost: evil.example.com:${server.port}\r\nContent-Type: application/json`,
        PING,
      );
      assert.equal(r.status, 403, r.text);
      const ok = await rawRequest(
        server.port,
        `POST /mcp HTTP/1.1\r\nHost: localhost:${server.port}\r\nContent-Type: application/json`,
        PING,
      );
      assert.equal(ok.status, 200, ok.text);
    });
    await t.step("404 off MEMO_MCP_PATH", async () => {
      await expect(
        await fetch(`${server.origin}/other`, { method: "POST", headers: HEADERS, body: PING }),
        404,
      );
    });
    await t.step("405 for GET and DELETE", async () => {
      for (const method of ["GET", "DELETE"]) {
        const res = await fetch(url, { method });
        assert.equal(res.headers.get("allow"), "POST, OPTIONS");
        await expect(res, 405);
      }
    });
    await t.step("406 for an Accept that allows neither JSON nor SSE", async () => {
      await expect(await post(PING, { accept: "text/html" }), 406);
    });
    await t.step("413 one byte past maxInputBytes, 200 at it", async () => {
      await expect(await post(pingOfSize(LIMIT)), 200);
      await expect(
        await post(pingOfSize(LIMIT + 1)),
        413,
        (b) => assert.equal(JSON.parse(b).error.data.code, "MCP_VALIDATION_ERROR"),
      );
    });
    await t.step("413 for a chunked body past the limit, without reading it all", async () => {
      const total = 256 * 1024 * 1024;
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= total) return c.close();
          sent += 64 * 1024;
          c.enqueue(new Uint8Array(64 * 1024).fill(32));
        },
      });
      const res = await post(body);
      const sentAtAnswer = sent;
      await expect(res, 413);
      assert.ok(sentAtAnswer < total / 4, `the server read ${sentAtAnswer} bytes before answering`);
    });
    await t.step("415 for a Content-Type other than JSON", async () => {
      await expect(await post(PING, { "content-type": "text/plain" }), 415);
    });
  } finally {
    await server.stop();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("deno serve http.ts checks MEMO_MCP_BEARER_TOKEN and never echoes it", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-auth-" });
  const server = await startDenoServe({ MEMO_ROOT_DIR: rootDir, MEMO_MCP_BEARER_TOKEN: TOKEN });
  const url = `${server.origin}/mcp`;
  const received: string[] = [];
  const send = async (headers: Record<string, string>, body = PING) => {
    const res = await fetch(url, { method: "POST", headers: { ...HEADERS, ...headers }, body });
    const text = await res.text();
    received.push(`${res.status} ${text}`);
    for (const [k, v] of res.headers) received.push(`${k}: ${v}`);
    return { res, text };
  };
  try {
    await t.step("401 without a token", async () => {
      const { res } = await send({});
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate")!, /^Bearer/);
    });
    await t.step("401 with a wrong token", async () => {
      const { res } = await send({ authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
      assert.equal(res.status, 401);
      assert.match(res.headers.get("www-authenticate")!, /^Bearer/);
    });
    await t.step("401 with the token in another scheme", async () => {
      const { res } = await send({ authorization: `Basic ${TOKEN}` });
      assert.equal(res.status, 401);
    });
    await t.step("200 with the right token", async () => {
      const { res } = await send({ authorization: `Bearer ${TOKEN}` });
      assert.equal(res.status, 200);
      const tool = await send(
        { authorization: `Bearer ${TOKEN}` },
        JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "get_note", arguments: { id: "missing-note" } },
        }),
      );
      assert.equal(tool.res.status, 200);
    });
    await t.step("403 for a disallowed origin even with the token", async () => {
      const { res } = await send({
        authorization: `Bearer ${TOKEN}`,
        origin: "https://evil.example",
      });
      assert.equal(res.status, 403);
    });
    await t.step("the token appears in nothing received", () => {
      for (const r of received) assert.ok(!r.includes(TOKEN), `token leaked: ${r}`);
    });
  } finally {
    await server.stop();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
  }
  assert.ok(!server.stderr().includes(TOKEN), "token in the server's stderr");
});
