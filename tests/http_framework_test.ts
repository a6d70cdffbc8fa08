/**
 * The framework handler mounted in a real Hono app served with Deno.serve and
 * called over HTTP; its Next.js-style method exports; and the edge fetch
 * handler called with an `env` object.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Hono } from "npm:hono@4.13.19";
import { createFrameworkMemoMcpHandler, createMemoMcpFetchHandler } from "../http.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { createFakeRuntime } from "./fixtures/mcp_fake_runtime.ts";

const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function rpc(id: number, method: string, params?: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
}

Deno.test("createFrameworkMemoMcpHandler() serves MCP from inside a Hono app", async () => {
  const handler = createFrameworkMemoMcpHandler({
    runtime: createFakeRuntime(2),
    env: {},
    auth: { bearerToken: "hono-token" },
  });
  const app = new Hono();
  app.get("/", (c) => c.text("home"));
  app.all("/mcp", (c) => handler(c.req.raw));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  const auth = { authorization: "Bearer hono-token" };
  try {
    const home = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(await home.text(), "home");

    const init = await fetch(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth },
      body: rpc(1, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "hono-test", version: "1" },
      }),
    });
    assert.equal(init.status, 200);
    assert.equal((await init.json()).result.serverInfo.name, "memo");

    const list = await fetch(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth },
      body: rpc(2, "tools/list"),
    });
    assert.equal((await list.json()).result.tools.length, 11);

    const call = await fetch(url, {
      method: "POST",
      headers: { ...JSON_HEADERS, ...auth },
      body: rpc(3, "tools/call", { name: "remember", arguments: { text: "Hono mounts memo" } }),
    });
    const called = await call.json();
    assert.equal(called.result.structuredContent.status, "written");

    const noAuth = await fetch(url, {
      method: "POST",
      headers: JSON_HEADERS,
      body: rpc(4, "ping"),
    });
    assert.equal(noAuth.status, 401);
    await noAuth.body?.cancel();

    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:3000");
    await preflight.body?.cancel();

    const get = await fetch(url, { headers: auth });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, OPTIONS");
    await get.body?.cancel();
  } finally {
    await server.shutdown();
  }
});

Deno.test("createFrameworkMemoMcpHandler() carries GET, POST, OPTIONS and DELETE for Next.js", async () => {
  const handler = createFrameworkMemoMcpHandler({ runtime: createFakeRuntime(0), env: {} });
  const { GET, POST, OPTIONS, DELETE } = handler;
  const post = await POST(
    new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: JSON_HEADERS,
      body: rpc(1, "ping"),
    }),
  );
  assert.deepEqual(await post.json(), { jsonrpc: "2.0", id: 1, result: {} });
  const get = await GET(new Request("http://localhost:3000/api/mcp"));
  assert.equal(get.status, 405);
  await get.body?.cancel();
  const del = await DELETE(new Request("http://localhost:3000/api/mcp", { method: "DELETE" }));
  assert.equal(del.status, 405);
  await del.body?.cancel();
  const options = await OPTIONS(
    new Request("http://localhost:3000/api/mcp", { method: "OPTIONS" }),
  );
  assert.equal(options.status, 204);
});

Deno.test("createFrameworkMemoMcpHandler() throws at once for a configuration that cannot work", () => {
  assert.throws(
    () => createFrameworkMemoMcpHandler({ env: { MEMO_MCP_READ_ONLY: "perhaps" } }),
    /Cannot read MEMO_MCP_READ_ONLY/,
  );
  assert.throws(
    () => createFrameworkMemoMcpHandler({ env: {}, auth: { requireAuth: true } }),
    /Cannot configure authentication/,
  );
});

Deno.test("createMemoMcpFetchHandler() reads its configuration from the edge env argument", async () => {
  const handler = createMemoMcpFetchHandler({ runtime: createFakeRuntime(1), env: {} });
  const env = {
    MEMO_MCP_BEARER_TOKEN: "edge-token",
    MEMO_MCP_READ_ONLY: "true",
    KV: { binding: true },
  };
  const ctx = { waitUntil() {}, passThroughOnException() {} };
  const url = "https://memo.example.workers.dev/mcp";
  const denied = await handler(
    new Request(url, { method: "POST", headers: JSON_HEADERS, body: rpc(1, "ping") }),
    env,
    ctx,
  );
  assert.equal(denied.status, 401);
  assert.match(denied.headers.get("www-authenticate")!, /^Bearer/);
  await denied.body?.cancel();

  const headers = { ...JSON_HEADERS, authorization: "Bearer edge-token" };
  const ok = await handler(
    new Request(url, { method: "POST", headers, body: rpc(2, "ping") }),
    env,
    ctx,
  );
  assert.deepEqual(await ok.json(), { jsonrpc: "2.0", id: 2, result: {} });

  const write = await handler(
    new Request(url, {
      method: "POST",
      headers,
      body: rpc(3, "tools/call", { name: "remember", arguments: { text: "not allowed" } }),
    }),
    env,
    ctx,
  );
  const written = await write.json();
  assert.equal(write.status, 200);
  assert.match(JSON.stringify(written), /MCP_AUTHORIZATION_ERROR/);

  // Another env object with the same values reuses the endpoint; a different one gets its own.
  const open = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: JSON_HEADERS,
      body: rpc(4, "ping"),
    }),
    {},
    ctx,
  );
  assert.equal(open.status, 200);
  await open.body?.cancel();
});

Deno.test("createMemoMcpFetchHandler() starts the local runtime on MEMO_ROOT_DIR from env", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-edge-" });
  const seeded = createMemoMcpRuntimeFromConfig({ rootDir });
  await seeded.remember({ text: "Edge workers read MEMO_ROOT_DIR", title: "edge" });
  await seeded.close();
  const handler = createMemoMcpFetchHandler();
  const res = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: JSON_HEADERS,
      body: rpc(1, "tools/call", { name: "recall", arguments: { query: "edge workers" } }),
    }),
    { MEMO_ROOT_DIR: rootDir, MEMO_RUNTIME: "local" },
  );
  const json = await res.json();
  assert.equal(json.result.structuredContent.hits[0].note.title, "edge");
  await Deno.remove(rootDir, { recursive: true }).catch(() => {});
});

Deno.test("createMemoMcpFetchHandler() answers 500 with a Cannot message for the cloud runtime", async () => {
  const handler = createMemoMcpFetchHandler();
  const res = await handler(
    new Request("http://127.0.0.1:8787/mcp", {
      method: "POST",
      headers: JSON_HEADERS,
      body: rpc(1, "ping"),
    }),
    { MEMO_RUNTIME: "cloud" },
  );
  assert.equal(res.status, 500);
  const json = await res.json();
  assert.equal(json.error.code, -32603);
  assert.match(json.error.message, /^Cannot start the cloud runtime: /);
});
