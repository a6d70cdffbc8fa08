import assert from "node:assert/strict";
import { serveNode } from "./_node_serve.ts";

Deno.test("serveNode() turns node:http requests into Requests and streams Responses back", async () => {
  const seen: { method: string; url: string; body: string; header: string | null }[] = [];
  const server = await serveNode(async (request) => {
    seen.push({
      method: request.method,
      url: request.url,
      body: await request.text(),
      header: request.headers.get("x-test"),
    });
    const headers = new Headers({ "content-type": "application/json" });
    headers.append("set-cookie", "a=1");
    headers.append("set-cookie", "b=2");
    return new Response(JSON.stringify({ ok: true }), { status: 201, headers });
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    assert.ok(server.port > 0);
    const res = await fetch(`http://127.0.0.1:${server.port}/mcp?x=1`, {
      method: "POST",
      headers: { "x-test": "yes", "content-type": "application/json" },
      body: '{"hello":"world"}',
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
    assert.deepEqual(await res.json(), { ok: true });
    assert.deepEqual(seen[0], {
      method: "POST",
      url: `http://127.0.0.1:${server.port}/mcp?x=1`,
      body: '{"hello":"world"}',
      header: "yes",
    });
  } finally {
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("serveNode() answers 500 when the handler throws and stops on abort", async () => {
  const stop = new AbortController();
  const server = await serveNode(() => {
    throw new Error("boom");
  }, { hostname: "127.0.0.1", port: 0, signal: stop.signal });
  const res = await fetch(`http://127.0.0.1:${server.port}/`);
  assert.equal(res.status, 500);
  await res.body?.cancel();
  stop.abort();
  await server.finished;
});
