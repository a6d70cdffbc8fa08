import assert from "node:assert/strict";
import { serveNode } from "./_node_serve.ts";
import { textResponse } from "./text_response.ts";

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

Deno.test("serveNode() writes light answers byte for byte as the Responses they stand for, and its light requests read as Requests", async () => {
  type Case = [body: string | null, status: number, headers: [string, string][]];
  const cases: Record<string, Case> = {
    json: ['{"ok":true}', 200, [["content-type", "application/json"], ["Vary", "Origin"]]],
    untyped: ["héllo", 201, [["X-B", "2"], ["x-a", "1"], ["x-b", "3"]]],
    cookies: ["c", 200, [["set-cookie", "a=1"], ["content-type", "text/plain"], [
      "Set-Cookie",
      "b=2",
    ]]],
    empty: [null, 202, [["vary", "Origin"]]],
    events: ["event: message\ndata: {}\n\n", 200, [["content-type", "text/event-stream"]]],
    changed: ["{}", 503, [["content-type", "application/json"]]],
  };
  const seen: Record<string, unknown> = {};
  const server = await serveNode(async (request) => {
    const url = new URL(request.url);
    const [body, status, headers] = cases[url.pathname.slice(1)];
    if (url.searchParams.has("look")) {
      assert.ok(request instanceof Request);
      seen.header = request.headers.get("X-Twice");
      seen.has = request.headers.has("x-twice");
      seen.entries = [...request.headers].filter(([name]) => name.startsWith("x-"));
      seen.url = request.url;
      seen.text = await request.text();
      seen.again = await request.text().then(() => "read", (e) => e.name);
      seen.used = request.bodyUsed;
    }
    const res = url.searchParams.has("real")
      ? new Response(body, { status, headers })
      : textResponse(body, status, headers);
    if (url.pathname === "/changed") res.headers.set("retry-after", "5");
    return res;
  }, { hostname: "127.0.0.1", port: 0 });
  const raw = async (head: string, body = "") => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    const text = `${head} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Twice: 1\r\nx-twice: 2\r\n` +
      `Content-Length: ${
        new TextEncoder().encode(body).length
      }\r\nConnection: close\r\n\r\n${body}`;
    await conn.write(new TextEncoder().encode(text));
    return (await new Response(conn.readable).text()).replace(/\r\ndate: [^\r]*/i, "");
  };
  try {
    for (const name of Object.keys(cases)) {
      for (const method of ["POST", "HEAD"]) {
        const light = await raw(`${method} /${name}`);
        assert.equal(light, await raw(`${method} /${name}?real`), `${method} ${name}`);
        if (name === "changed") assert.match(light, /retry-after: 5/);
      }
    }
    assert.match(await raw("POST /json"), /content-length: 11\r\n[^]*\r\n\r\n\{"ok":true\}$/);
    await raw("POST /a/../json?look&x=%7e", "{}");
    assert.deepEqual(seen, {
      header: "1, 2",
      has: true,
      entries: [["x-twice", "1, 2"]],
      url: "http://127.0.0.1/json?look&x=%7e",
      text: "{}",
      again: "TypeError",
      used: true,
    });
  } finally {
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("serveNode() answers Connection: close once stopping, light answers as the others", async () => {
  for (const light of [true, false]) {
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await serveNode(async () => {
      arrived();
      await held;
      const headers: [string, string][] = [["content-type", "application/json"]];
      return light ? textResponse("{}", 200, headers) : new Response("{}", { headers });
    }, { hostname: "127.0.0.1", port: 0 });
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    // A keep-alive request: the connection would stay open but for the shutdown.
    await conn.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    await inHandler;
    const stopped = server.shutdown();
    release();
    const answer = await new Response(conn.readable).text(); // ends: the server closed it
    assert.match(answer, /\r\nconnection: close\r\n/i, light ? "light" : "Response");
    assert.ok(answer.endsWith("\r\n\r\n{}"));
    await stopped;
    await server.finished;
  }
});

/** Sends `head` (and `body`) on a raw socket, then half-closes it; resolves with what came back. */
async function raw(port: number, text: string): Promise<string> {
  const { connect } = await import("node:net");
  return await new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(text));
    let got = "";
    socket.on("data", (d) => got += d.toString());
    socket.on("end", () => resolve(got));
    socket.on("error", reject);
  });
}

/**
 * An event stream that opens and then keeps alive every 5 ms until it is cancelled (as a listen
 * does); `cancelled` settles when it is, `stop` clears its timer either way.
 */
function keepAliveStream() {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let sawCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (sawCancel = resolve));
  const response = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(": open\n\n"));
          timer = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), 5);
        },
        cancel() {
          clearInterval(timer);
          sawCancel();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  /** Waits for the cancel; only a stream that is never cancelled waits 30 s, then fails. */
  const untilCancelled = async () => {
    let stuck: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        cancelled,
        new Promise<never>((_, reject) => {
          stuck = setTimeout(() => reject(new Error("the stream was never cancelled")), 30_000);
        }),
      ]);
    } finally {
      clearTimeout(stuck);
    }
  };
  return { response, untilCancelled, stop: () => clearInterval(timer) };
}

Deno.test("serveNode() cancels an event stream whose client went away", async () => {
  const stream = keepAliveStream();
  const server = await serveNode(stream.response, { hostname: "127.0.0.1", port: 0 });
  try {
    const { connect } = await import("node:net");
    await new Promise<void>((resolve, reject) => {
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}");
      });
      socket.on("data", (d) => {
        if (d.toString().includes(": open")) {
          socket.destroy();
          resolve();
        }
      });
      socket.on("error", reject);
    });
    await stream.untilCancelled();
  } finally {
    stream.stop();
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("serveNode(): a body cut short fails its read; TRACE, an absolute-form target and a Host that is no host reach the handler", async () => {
  const seen: { method: string; url: string; body: string }[] = [];
  const server = await serveNode(async (request) => {
    let body: string;
    try {
      body = await request.text();
    } catch (e) {
      body = `failed: ${(e as Error).message}`;
    }
    seen.push({ method: request.method, url: request.url, body });
    return new Response(null, { status: request.method === "TRACE" ? 405 : 200 });
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    const port = server.port;
    // Declares 40 bytes, sends 22, then closes its side.
    await raw(
      port,
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 40\r\n\r\n{"jsonrpc":"2.0","id":1`,
    );
    assert.match(seen.at(-1)!.body, /^failed: the connection closed before the whole body came/);
    assert.match(
      await raw(port, `TRACE /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`),
      /^HTTP\/1\.1 405 /,
    );
    assert.equal(seen.at(-1)!.method, "TRACE");
    const absolute = await raw(
      port,
      `GET http://127.0.0.1:${port}/healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    );
    assert.match(absolute, /^HTTP\/1\.1 200 /);
    assert.equal(seen.at(-1)!.url, `http://127.0.0.1:${port}/healthz`);
    assert.match(await raw(port, `GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n`), /^HTTP\/1\.1 200 /);
    assert.equal(seen.at(-1)!.url, "http://localhost/healthz");
    // A path that starts with two slashes stays a path on the Host.
    await raw(port, `GET //other.example/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    assert.equal(seen.at(-1)!.url, `http://127.0.0.1:${port}//other.example/mcp`);
    // An empty Host keeps the path too (`http:///mcp` would read `mcp` as the host).
    await raw(port, "GET /mcp HTTP/1.1\r\nHost: \r\n\r\n");
    assert.equal(seen.at(-1)!.url, "http://localhost/mcp");
    await raw(port, "GET //other.example/mcp HTTP/1.1\r\nHost: \r\n\r\n");
    assert.equal(seen.at(-1)!.url, "http://localhost//other.example/mcp");
  } finally {
    await server.shutdown();
    await server.finished;
  }
});

Deno.test("serveNode() cancels an event stream whose client left before the answer's head", async () => {
  let started!: () => void;
  const handling = new Promise<void>((resolve) => (started = resolve));
  const stream = keepAliveStream();
  const server = await serveNode(async (request) => {
    // A slow step before the stream (a key fetch, a lazy load): the client leaves meanwhile.
    const gone = new Promise<void>((resolve) =>
      request.signal.addEventListener("abort", () => resolve())
    );
    started();
    await gone;
    return stream.response();
  }, { hostname: "127.0.0.1", port: 0 });
  try {
    const { connect } = await import("node:net");
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}");
    });
    socket.on("error", () => {});
    await handling;
    socket.destroy();
    await stream.untilCancelled();
  } finally {
    stream.stop();
    await server.shutdown();
    await server.finished;
  }
});
