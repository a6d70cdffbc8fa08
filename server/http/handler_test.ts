import assert from "node:assert/strict";
import { createHttpHandler, type HttpHandlerConfig, pathOf } from "./handler.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "../types.ts";

const TOKEN = "tok-3b1f9c0e-very-secret";

/** A fake protocol server: answers requests with their id, notifications with nothing. */
function fakeServer(seen: MemoMcpRequestContext[] = []): MemoMcpProtocolServer {
  return {
    name: "fake",
    version: "0",
    handle: () => Promise.resolve(undefined),
    handleParsed(message: unknown, ctx?: MemoMcpRequestContext) {
      if (ctx) seen.push(ctx);
      const msgs = Array.isArray(message) ? message : [message];
      const answers = msgs.filter((m) => m && typeof m === "object" && "id" in m && "method" in m)
        .map((m) => ({ jsonrpc: "2.0", id: (m as { id: unknown }).id, result: { ok: true } }));
      if (!answers.length) return Promise.resolve(undefined);
      return Promise.resolve(JSON.stringify(Array.isArray(message) ? answers : answers[0]));
    },
  };
}

function handler(config: Partial<HttpHandlerConfig> = {}, seen?: MemoMcpRequestContext[]) {
  return createHttpHandler(
    { allowedOrigins: ["http://localhost:*"], auth: {}, maxInputBytes: 100, ...config },
    () => fakeServer(seen),
  );
}

function post(
  body: BodyInit | null,
  headers: Record<string, string> = {},
  url = "http://127.0.0.1:8787/mcp",
) {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

/** A ping request padded to exactly `bytes` bytes. */
function pingOfSize(bytes: number): string {
  const base = '{"jsonrpc":"2.0","id":1,"method":"ping","x":""}';
  return base.replace('"x":""', `"x":"${"a".repeat(bytes - base.length)}"`);
}

Deno.test("createHttpHandler() answers a JSON-RPC request with 200 JSON", async () => {
  const seen: MemoMcpRequestContext[] = [];
  const res = await handler({}, seen)(
    post(PING, { accept: "application/json, text/event-stream" }),
  );
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("vary"), "Origin");
  assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: 1, result: { ok: true } });
  assert.equal(seen[0].transport, "http");
  assert.equal(seen[0].protocolVersion, "2025-03-26");
  assert.equal(seen[0].inputBytes, new TextEncoder().encode(PING).length);
  assert.ok(seen[0].request instanceof Request);
});

Deno.test("createHttpHandler() answers SSE when Accept lists only text/event-stream", async () => {
  const res = await handler()(post(PING, { accept: "text/event-stream" }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(
    await res.text(),
    'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n',
  );
});

Deno.test("createHttpHandler() passes a supported MCP-Protocol-Version through", async () => {
  const seen: MemoMcpRequestContext[] = [];
  const res = await handler({}, seen)(post(PING, { "mcp-protocol-version": "2025-11-25" }));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(seen[0].protocolVersion, "2025-11-25");
});

Deno.test("createHttpHandler() gives each transport status code", async (t) => {
  const cases: [string, Request, number, Partial<HttpHandlerConfig>?][] = [
    [
      "202 for only notifications",
      post('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
      202,
    ],
    ["202 for only responses", post('{"jsonrpc":"2.0","id":5,"result":{}}'), 202],
    ["400 for bad JSON", post("{nope"), 400],
    ["400 for an empty body", post(""), 400],
    ["400 for an unsupported version", post(PING, { "mcp-protocol-version": "1999-01-01" }), 400],
    ["403 for a disallowed origin", post(PING, { origin: "https://evil.example" }), 403],
    [
      "403 for a non-loopback host without auth",
      post(PING, {}, "http://evil.example.com/mcp"),
      403,
    ],
    ["404 off the path", post(PING, {}, "http://127.0.0.1/other"), 404, { path: "/mcp" }],
    ["405 for GET", new Request("http://127.0.0.1/mcp"), 405],
    ["405 for DELETE", new Request("http://127.0.0.1/mcp", { method: "DELETE" }), 405],
    ["406 for Accept: text/html", post(PING, { accept: "text/html" }), 406],
    ["415 for text/plain", post(PING, { "content-type": "text/plain" }), 415],
    ["401 without a token", post(PING), 401, { auth: { bearerToken: TOKEN } }],
    ["413 one byte past the limit", post("x".repeat(101)), 413],
    ["200 at the limit", post(pingOfSize(100)), 200],
    ["413 one byte past the limit, valid JSON", post(pingOfSize(101)), 413],
    [
      "200 at the limit with Content-Length",
      post(pingOfSize(100), { "content-length": "100" }),
      200,
    ],
  ];
  for (const [name, request, status, config] of cases) {
    await t.step(name, async () => {
      const res = await handler(config)(request);
      const text = await res.text();
      assert.equal(res.status, status, text);
      if (status === 202) assert.equal(text, "");
      if (status >= 400) assert.equal(JSON.parse(text).jsonrpc, "2.0");
      if (status === 405) assert.equal(res.headers.get("allow"), "POST, OPTIONS");
      if (status === 400 && name.includes("JSON")) {
        assert.equal(JSON.parse(text).error.code, -32700);
      }
      if (status === 401) assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="memo"');
    });
  }
});

Deno.test("createHttpHandler() refuses a chunked body past the limit while reading it", async () => {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      if (pulled > 1000) controller.close();
      else controller.enqueue(new Uint8Array(60).fill(32));
    },
  });
  const res = await handler()(post(body));
  assert.equal(res.status, 413);
  const json = await res.json();
  assert.equal(json.error.data.code, "MCP_VALIDATION_ERROR");
  assert.deepEqual(json.error.data.details, { limit: 100 });
  assert.ok(pulled < 5, `read ${pulled} chunks`);
});

Deno.test("createHttpHandler() refuses a declared Content-Length over the limit without reading", async () => {
  const res = await handler()(post("{}", { "content-length": "101" }));
  assert.equal(res.status, 413);
  assert.deepEqual((await res.json()).error.data.details, { limit: 100, size: 101 });
});

Deno.test("createHttpHandler() checks bearer tokens and never echoes them", async (t) => {
  const h = handler({ auth: { bearerToken: TOKEN } });
  const seen: string[] = [];
  const collect = async (res: Response) => {
    seen.push(await res.text());
    for (const [k, v] of res.headers) seen.push(`${k}: ${v}`);
    return res;
  };
  await t.step("missing", async () => {
    const res = await collect(await h(post(PING)));
    assert.equal(res.status, 401);
  });
  await t.step("wrong", async () => {
    const res = await collect(await h(post(PING, { authorization: `Bearer ${TOKEN}x` })));
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate")!, /^Bearer /);
    assert.match(res.headers.get("www-authenticate")!, /invalid_token/);
  });
  await t.step("not bearer", async () => {
    const res = await collect(await h(post(PING, { authorization: `Basic ${TOKEN}` })));
    assert.equal(res.status, 401);
  });
  await t.step("right", async () => {
    const res = await collect(await h(post(PING, { authorization: `Bearer ${TOKEN}` })));
    assert.equal(res.status, 200);
  });
  await t.step("right, on a non-loopback host (auth replaces the host check)", async () => {
    const res = await collect(
      await h(post(PING, { authorization: `bearer ${TOKEN}` }, "https://memo.example.com/mcp")),
    );
    assert.equal(res.status, 200);
  });
  for (const s of seen) assert.ok(!s.includes(TOKEN), `token leaked in ${s}`);
});

Deno.test("createHttpHandler() uses a custom authenticate() and passes authInfo on", async () => {
  const seen: MemoMcpRequestContext[] = [];
  const h = handler({ auth: { authenticate: (r) => r.headers.get("x-key") === "k" } }, seen);
  assert.equal((await h(post(PING))).status, 401);
  const res = await h(post(PING, { "x-key": "k" }));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.deepEqual(seen[0].authInfo, { scheme: "custom" });
});

Deno.test("createHttpHandler() answers 503 when authenticate() throws, and never shows its error", async (t) => {
  const secret = "postgres://memo:hunter2@db/users";
  for (
    const [name, authenticate] of [
      ["throws", () => {
        throw new Error(`db down: ${secret}`);
      }],
      ["rejects", () => Promise.reject(new Error(`db down: ${secret}`))],
    ] as const
  ) {
    await t.step(name, async () => {
      const seen: MemoMcpRequestContext[] = [];
      const res = await handler({ auth: { authenticate } }, seen)(
        post(PING, { origin: "http://localhost:5173" }),
      );
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
      const text = await res.text();
      assert.ok(!text.includes("hunter2"), text);
      const json = JSON.parse(text);
      assert.equal(json.error.code, -32603);
      assert.equal(
        json.error.message,
        "Cannot check the request's credentials: auth.authenticate failed",
      );
      assert.equal(seen.length, 0, "the request went no further");
    });
  }
  await t.step("a valid bearer token still passes without calling it", async () => {
    let calls = 0;
    const res = await handler({
      auth: {
        bearerToken: TOKEN,
        authenticate: () => {
          calls++;
          throw new Error("down");
        },
      },
    })(post(PING, { authorization: `Bearer ${TOKEN}` }));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(calls, 0);
  });
});

Deno.test("createHttpHandler() refuses requireAuth without a token or authenticate()", () => {
  assert.throws(() => handler({ auth: { requireAuth: true } }), /Cannot configure authentication/);
});

Deno.test("createHttpHandler() answers CORS preflights and actual requests", async (t) => {
  const h = handler({ auth: { bearerToken: TOKEN } });
  await t.step("preflight from an allowed origin", async () => {
    const res = await h(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "OPTIONS",
        headers: {
          origin: "http://localhost:5173",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
        },
      }),
    );
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.match(res.headers.get("access-control-allow-headers")!, /Authorization/);
    assert.match(res.headers.get("access-control-allow-headers")!, /MCP-Protocol-Version/);
    assert.match(res.headers.get("access-control-allow-headers")!, /Last-Event-ID/);
    assert.equal(res.headers.get("access-control-allow-methods"), "POST, OPTIONS");
    assert.equal(res.headers.get("vary"), "Origin");
  });
  await t.step("preflight from a disallowed origin", async () => {
    const res = await h(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "OPTIONS",
        headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
      }),
    );
    assert.equal(res.status, 403);
    assert.equal(res.headers.get("access-control-allow-origin"), null);
    await res.body?.cancel();
  });
  await t.step("actual request from an allowed origin", async () => {
    const res = await h(
      post(PING, { origin: "http://localhost:5173", authorization: `Bearer ${TOKEN}` }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.equal(res.headers.get("vary"), "Origin");
    await res.body?.cancel();
  });
  await t.step("401 is readable by an allowed origin", async () => {
    const res = await h(post(PING, { origin: "http://localhost:5173" }));
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
    await res.body?.cancel();
  });
});

Deno.test("createHttpHandler() lets a request from its own origin through when auth is required", async (t) => {
  // A page served from `memo serve --host 0.0.0.0` at http://memo.lan:8787 calls its own endpoint.
  const url = "http://0.0.0.0:8787/mcp";
  const own = { origin: "http://memo.lan:8787", host: "memo.lan:8787" };
  const authed = handler({ auth: { bearerToken: TOKEN } });
  const open = handler();
  const cases: [string, Request, number, typeof authed?][] = [
    ["200 with the token", post(PING, { ...own, authorization: `Bearer ${TOKEN}` }, url), 200],
    ["401 without a token", post(PING, own, url), 401],
    ["401 with a wrong token", post(PING, { ...own, authorization: "Bearer nope" }, url), 401],
    [
      "403 from another origin",
      post(PING, {
        origin: "http://evil.example",
        host: own.host,
        authorization: `Bearer ${TOKEN}`,
      }, url),
      403,
    ],
    [
      "403 from another port of the same host",
      post(PING, {
        origin: "http://memo.lan:9999",
        host: own.host,
        authorization: `Bearer ${TOKEN}`,
      }, url),
      403,
    ],
    [
      "403 from https to an http request",
      post(PING, {
        origin: "https://memo.lan:8787",
        host: own.host,
        authorization: `Bearer ${TOKEN}`,
      }, url),
      403,
    ],
    [
      "200 with case and a default port ignored",
      post(PING, {
        origin: "http://memo.lan",
        host: "MEMO.LAN:80",
        authorization: `Bearer ${TOKEN}`,
      }, url),
      200,
    ],
    [
      "403 for Origin: null",
      post(PING, { origin: "null", host: own.host, authorization: `Bearer ${TOKEN}` }, url),
      403,
    ],
    ["403 without auth, on a non-loopback Host", post(PING, own, url), 403, open],
    [
      "403 without auth, even from its own loopback origin when not allowed",
      post(PING, { origin: "http://127.0.0.1:8787" }),
      403,
      handler({ allowedOrigins: [] }),
    ],
    [
      "204 for a preflight with auth",
      new Request(url, {
        method: "OPTIONS",
        headers: { ...own, "access-control-request-method": "POST" },
      }),
      204,
    ],
    [
      "403 for a preflight without auth",
      new Request(url, {
        method: "OPTIONS",
        headers: { ...own, "access-control-request-method": "POST" },
      }),
      403,
      open,
    ],
  ];
  for (const [name, request, status, h = authed] of cases) {
    await t.step(name, async () => {
      const res = await h(request);
      assert.equal(res.status, status);
      if (status === 403) {
        assert.match((await res.json()).error.message, /origin not allowed|Host is not loopback/);
      } else await res.body?.cancel();
    });
  }
});

Deno.test("createHttpHandler() gives 500 with a JSON-RPC error when the server cannot start", async () => {
  const h = createHttpHandler(
    { allowedOrigins: [], auth: {}, maxInputBytes: 1000 },
    () => Promise.reject(new Error("Cannot start the cloud runtime: not built yet")),
  );
  const res = await h(post(PING));
  assert.equal(res.status, 500);
  const json = await res.json();
  assert.equal(json.error.code, -32603);
  assert.equal(json.error.message, "Cannot start the cloud runtime: not built yet");
});

Deno.test("pathOf() strips scheme, host, query and fragment", () => {
  assert.equal(pathOf("http://h:1/mcp?x=1#y"), "/mcp");
  assert.equal(pathOf("http://h:1"), "/");
  assert.equal(pathOf("http://[::1]:80/a/b"), "/a/b");
});

Deno.test("createHttpHandler() streams a request's progress as it is sent, then the answer", async () => {
  let step!: (by: string) => void;
  const stepped = new Promise<string>((resolve) => (step = resolve));
  // Without streaming the answer would wait for ever: give up after 30 s (a stuck test).
  const fallback = setTimeout(() => step("timeout"), 30_000);
  const server: MemoMcpProtocolServer = {
    name: "fake",
    version: "0",
    handle: () => Promise.resolve(undefined),
    async handleParsed(_message: unknown, ctx?: MemoMcpRequestContext) {
      const progress = (n: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "p", progress: n },
        });
      ctx?.notify?.(progress(1));
      const by = await stepped; // the answer waits until the client has read the first step
      ctx?.notify?.(progress(2));
      return JSON.stringify({ jsonrpc: "2.0", id: 1, result: { done: by } });
    },
  };
  const handle = createHttpHandler(
    { allowedOrigins: [], auth: {}, maxInputBytes: 1000 },
    () => server,
  );
  const res = await handle(post(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { _meta: { progressToken: "p" } },
    }),
    { accept: "application/json, text/event-stream" },
  ));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const first = await reader.read();
  assert.match(first.value!, /"progress":1/);
  assert.doesNotMatch(first.value!, /"done"/, "the first step arrives before the answer exists");
  step("client");
  clearTimeout(fallback);
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value;
  assert.match(rest, /"progress":2[\s\S]*"done":"client"/);
});

Deno.test("createHttpHandler(): a body that is not UTF-8 is 400 -32700, with or without Content-Length", async () => {
  const h = handler();
  const bad = new Uint8Array([
    ...new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"x":"'),
    0xff,
    0x22,
    0x7d,
  ]);
  const lengths: Record<string, string>[] = [{}, { "content-length": String(bad.byteLength) }];
  for (const headers of lengths) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bad);
        c.close();
      },
    });
    const res = await h(post("content-length" in headers ? bad : stream, headers));
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error.code, -32700);
    assert.equal(body.error.message, "Parse error: the body is not valid UTF-8");
  }
});
