/**
 * gzip on the hosted endpoint, seen by real clients: `fetch`, a raw socket
 * (no `Accept-Encoding` at all, and the bytes on the wire) and the official
 * SDK client over HTTP, against `memo serve` and `deno serve http.ts` under
 * Deno (the Node side is in `tests/http_node_serve_test.ts`), and every
 * handler factory of `http.ts` in process. Answers over 1 KB are gzipped when
 * the client accepts gzip, smaller ones are plain, and a listen stream is
 * never compressed: its events arrive while it is open.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { openMemo } from "../memory/mod.ts";
import { createMemoMcpRuntimeFromConfig } from "../mod.ts";
import {
  createFrameworkMemoMcpHandler,
  createMemoMcpFetchHandler,
  handleMemoMcpRequest,
} from "../http.ts";
import {
  checkGzipAnswers,
  checkListenLive,
  fetchAnswer,
  gunzip,
  rawPost,
} from "./_http_encoding.ts";
import { startDenoServe, startMemoServe } from "./_serve_process.ts";

const LIST_50 = { name: "list_notes", arguments: { limit: 50 } };
const JSON_POST = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function projectWithNotes(count: number): Promise<string> {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-gzip-" });
  const memo = await openMemo({ rootDir });
  await memo.rememberMany(
    Array.from({ length: count }, (_, i) => ({
      title: `Deploy note ${i}`,
      text: `The staging deploy ${i} runs make deploy after the migration check; ` +
        `rollback with make rollback and tell the on-call channel. Ticket OPS-${1000 + i}.`,
      labels: ["ops", `week-${i % 4}`],
    })),
  );
  await memo.close();
  return rootDir;
}

Deno.test("memo serve on Deno: gzip over 1 KB to fetch, a raw socket and the SDK client; listen live and plain", async (t) => {
  const rootDir = await projectWithNotes(50);
  const server = await startMemoServe(["--dir", rootDir], {});
  const url = `${server.origin}/mcp`;
  try {
    await t.step(
      "fetch: tools/list and ping, gzip, identity and gzip;q=0",
      () => checkGzipAnswers(url),
    );

    await t.step("fetch: a 50-note list_notes comes gzipped and whole", async () => {
      const zipped = await fetchAnswer(url, "tools/call", LIST_50, "gzip");
      assert.equal(zipped.encoding, "gzip");
      const notes = (zipped.json.result as { structuredContent: { notes: unknown[] } })
        .structuredContent.notes;
      assert.equal(notes.length, 50);
    });

    await t.step(
      "raw socket: Content-Length is the compressed size; no Accept-Encoding is plain",
      async () => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: LIST_50,
        });
        const zipped = await rawPost(server.port, "/mcp", body, {
          ...JSON_POST,
          "accept-encoding": "gzip",
        });
        assert.equal(zipped.status, 200);
        assert.equal(zipped.headers.get("content-encoding"), "gzip");
        assert.equal(zipped.headers.get("content-length"), String(zipped.body.length));
        assert.equal(zipped.headers.get("etag"), null);
        const text = await gunzip(zipped.body);

        const plain = await rawPost(server.port, "/mcp", body, JSON_POST);
        assert.equal(plain.status, 200);
        assert.equal(plain.headers.get("content-encoding"), null);
        assert.equal(plain.headers.get("vary"), "Origin, Accept-Encoding");
        assert.equal(plain.headers.get("content-length"), String(plain.body.length));
        assert.equal(new TextDecoder().decode(plain.body), text);
        assert.ok(zipped.body.length * 3 < plain.body.length, "gzip makes the answer smaller");

        const ping = await rawPost(
          server.port,
          "/mcp",
          '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          { ...JSON_POST, "accept-encoding": "gzip" },
        );
        assert.equal(ping.headers.get("content-encoding"), null);
        assert.equal(ping.headers.get("vary"), "Origin");
        assert.equal(new TextDecoder().decode(ping.body), '{"jsonrpc":"2.0","id":1,"result":{}}');
      },
    );

    await t.step("the SDK client asks for gzip and gets it above 1 KB only", async () => {
      const encodings = new Map<string, string | null>();
      const recording = async (input: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(input, init);
        const method = typeof init?.body === "string" ? JSON.parse(init.body).method : undefined;
        if (method !== undefined) encodings.set(method, res.headers.get("content-encoding"));
        return res;
      };
      const client = new Client({ name: "memo-gzip-test", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording });
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        assert.ok(tools.some((tool: { name: string }) => tool.name === "recall"));
        const listed = await client.callTool(LIST_50);
        const notes = (listed.structuredContent as { notes: unknown[] }).notes;
        assert.equal(notes.length, 50);
        assert.deepEqual(await client.ping(), {});
      } finally {
        await client.close();
      }
      assert.equal(encodings.get("tools/list"), "gzip");
      assert.equal(encodings.get("tools/call"), "gzip");
      assert.equal(encodings.get("ping"), null);
      assert.equal(encodings.get("initialize"), null, "the initialize answer is under 1 KB");
    });

    await t.step(
      "a listen stream is plain and its events arrive while it is open",
      () => checkListenLive(url),
    );
  } finally {
    assert.equal(await server.stop(), 0, server.stderr());
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("deno serve http.ts (the default export): gzip over 1 KB, listen live and plain", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-gzip-serve-" });
  const server = await startDenoServe({ MEMO_ROOT_DIR: rootDir });
  try {
    await checkGzipAnswers(`${server.origin}/mcp`);
    await checkListenLive(`${server.origin}/mcp`);
  } finally {
    await server.stop();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("every handler factory of http.ts gzips an answer over 1 KB", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-gzip-factories-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  const request = (acceptEncoding: string) =>
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "accept-encoding": acceptEncoding,
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
  const fetchHandler = createMemoMcpFetchHandler({ runtime });
  const framework = createFrameworkMemoMcpHandler({ runtime });
  const options = { runtime };
  const factories: [string, (r: Request) => Promise<Response>][] = [
    ["handleMemoMcpRequest", (r) => handleMemoMcpRequest(r, options)],
    ["createMemoMcpFetchHandler", (r) => fetchHandler(r)],
    ["createFrameworkMemoMcpHandler", framework],
    ["createFrameworkMemoMcpHandler().POST", framework.POST],
  ];
  try {
    for (const [name, handle] of factories) {
      await t.step(name, async () => {
        const zipped = await handle(request("gzip"));
        assert.equal(zipped.status, 200);
        assert.equal(zipped.headers.get("content-encoding"), "gzip");
        const bytes = new Uint8Array(await zipped.arrayBuffer());
        assert.equal(zipped.headers.get("content-length"), String(bytes.length));
        const plain = await handle(request("identity"));
        assert.equal(plain.headers.get("content-encoding"), null);
        assert.equal(await gunzip(bytes), await plain.text());
      });
    }
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
