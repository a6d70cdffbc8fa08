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

Deno.test("serveNode() streams a chunked body and an event stream, and writes a whole answer with its length", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = await serveNode(async (request) => {
    if (request.method === "GET") {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode("data: one\n\n"));
          await held; // the first event must reach the client before the stream ends
          controller.enqueue(encoder.encode("data: two\n\n"));
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    return new Response(`got ${await request.text()}`, {
      headers: { "content-type": "text/plain" },
    });
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("a"));
        controller.enqueue(new TextEncoder().encode("b"));
        controller.close();
      },
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { method: "POST", body: chunked });
    assert.equal(res.headers.get("content-length"), "6");
    assert.equal(await res.text(), "got ab");

    const events = await fetch(`http://127.0.0.1:${server.port}/`);
    assert.equal(events.headers.get("content-length"), null);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    assert.equal((await reader.read()).value, "data: one\n\n");
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
    assert.equal(rest, "data: two\n\n");
  } finally {
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("serveNode() aborts the request's signal when the client goes away", async () => {
  let started!: () => void;
  const inHandler = new Promise<void>((resolve) => (started = resolve));
  let aborted!: () => void;
  const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
  const server = await serveNode((request) => {
    const signal = request.signal;
    assert.equal(signal, request.signal); // one signal per request
    signal.addEventListener("abort", () => aborted(), { once: true });
    started();
    return new Promise<Response>((resolve) =>
      signal.addEventListener("abort", () => resolve(new Response(null)), { once: true })
    );
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    const client = new AbortController();
    const answer = fetch(`http://127.0.0.1:${server.port}/`, {
      method: "POST",
      body: "{}",
      signal: client.signal,
    }).catch((e) => e);
    await inHandler;
    client.abort();
    await sawAbort;
    assert.ok(await answer instanceof Error);
  } finally {
    await server.shutdown();
    await server.finished;
  }
});
