/**
 * MCP 2026-07-28 over raw JSON-RPC, one case at each rule's boundary and one
 * past it: the per-request `_meta`, unsupported versions, the removed methods,
 * the revision's error codes, a stateless request on a stdio connection that
 * opened with `initialize`, and the HTTP header rules (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name) with their statuses.
 */

import assert from "node:assert/strict";
import { createHttpEndpoint } from "../server/http/mod.ts";
import { call, type Json, server } from "./fixtures/mcp_protocol_calls.ts";

const STATELESS = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": STATELESS,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};
const stateless = (params: Record<string, unknown> = {}) => ({ ...params, _meta: META });

Deno.test("a stateless request is served statelessly, with resultType, cache hints and serverInfo", async () => {
  const { server: s } = server();
  const discover = await call(s, "server/discover", stateless());
  assert.equal(discover.result.resultType, "complete");
  assert.deepEqual(discover.result.supportedVersions, [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
  ]);
  assert.ok(discover.result.capabilities.tools);
  assert.equal(discover.result.cacheScope, "public");
  assert.deepEqual(discover.result._meta, {
    "io.modelcontextprotocol/serverInfo": { name: "memo", version: s.version },
  });
  const tools = await call(s, "tools/list", stateless());
  assert.equal(tools.result.resultType, "complete");
  assert.equal(tools.result.cacheScope, "public");
  assert.ok(tools.result.ttlMs > 0);
  assert.equal(tools.result.tools.length, 11);
  const read = await call(s, "resources/read", stateless({ uri: "memo://stats" }));
  assert.deepEqual([read.result.ttlMs, read.result.cacheScope], [0, "private"]);
  const list = await call(s, "resources/list", stateless());
  assert.deepEqual([list.result.ttlMs, list.result.cacheScope], [0, "private"]);
  const recall = await call(
    s,
    "tools/call",
    stateless({ name: "recall", arguments: { query: "x" } }),
  );
  assert.deepEqual([recall.result.ttlMs, recall.result.cacheScope], [0, "private"]);
  assert.ok(recall.result.structuredContent);
  // The same server still speaks the session era, without the stateless fields.
  const session = await call(s, "tools/list");
  assert.equal(session.result.resultType, undefined);
  assert.equal(session.result.tools.length, 11);
});

Deno.test("a stateless request without its required _meta fields is -32602", async (t) => {
  const { server: s } = server();
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "no clientCapabilities",
      { "io.modelcontextprotocol/protocolVersion": STATELESS },
      /clientCapabilities"\] must be an object/,
    ],
    [
      "clientCapabilities not an object",
      { ...META, "io.modelcontextprotocol/clientCapabilities": [] },
      /must be an object/,
    ],
    ["a bad log level", { ...META, "io.modelcontextprotocol/logLevel": "loud" }, /logLevel/],
  ];
  for (const [name, meta, message] of cases) {
    await t.step(name, async () => {
      const reply = await call(s, "tools/list", { _meta: meta });
      assert.equal(reply.error.code, -32602);
      assert.match(reply.error.message, message);
      assert.equal(reply.error.data.code, "MCP_VALIDATION_ERROR");
    });
  }
  await t.step("server/discover without _meta", async () => {
    const reply = await call(s, "server/discover", {});
    assert.equal(reply.error.code, -32602);
  });
});

Deno.test("a version memo does not speak is -32022 with the supported versions", async () => {
  const { server: s } = server();
  const reply = await call(s, "tools/list", {
    _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
  });
  assert.equal(reply.error.code, -32022);
  assert.equal(reply.error.data.requested, "2099-01-01");
  assert.deepEqual(reply.error.data.supported.slice(0, 2), ["2026-07-28", "2025-11-25"]);
  assert.equal(reply.error.data.code, "MCP_VALIDATION_ERROR");
});

Deno.test("a stdio connection that opened with initialize stays in the session era", async () => {
  const { server: s } = server();
  const init = await call(s, "initialize", {
    protocolVersion: STATELESS,
    capabilities: {},
    clientInfo: { name: "old", version: "1" },
  });
  assert.equal(init.result.protocolVersion, "2025-11-25", "initialize never negotiates 2026");
  const refused = await call(s, "tools/list", stateless());
  assert.equal(refused.error.code, -32022);
  assert.deepEqual(refused.error.data.supported, ["2025-11-25"]);
  const same = await call(s, "tools/list", {
    _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
  });
  assert.equal(same.result.tools.length, 11);
  assert.equal(same.result.resultType, undefined);
  assert.deepEqual((await call(s, "ping")).result, {});
  // No second handshake: the connection keeps the version it negotiated.
  const again = await call(s, "initialize", {
    protocolVersion: "2025-03-26",
    capabilities: {},
    clientInfo: { name: "old", version: "1" },
  });
  assert.equal(again.error.code, -32600);
  assert.match(again.error.message, /initialized already \(protocol version 2025-11-25\)/);
  const batch = JSON.parse(
    (await s.handle(JSON.stringify([{ jsonrpc: "2.0", id: "b", method: "ping" }])))!,
  );
  assert.equal(batch.error.code, -32600, "still 2025-11-25: no batches");
});

Deno.test("the methods 2026-07-28 removes are -32601 for a stateless request, and still served to session ones", async (t) => {
  const { server: s } = server();
  for (
    const [method, params] of [
      ["ping", {}],
      ["logging/setLevel", { level: "info" }],
      ["initialize", { protocolVersion: STATELESS, capabilities: {} }],
    ] as const
  ) {
    await t.step(method, async () => {
      const reply = await call(s, method, stateless(params));
      if (method === "initialize") {
        // initialize always selects the session era, whatever its _meta says.
        assert.equal(reply.result.protocolVersion, "2025-11-25");
        return;
      }
      assert.equal(reply.error.code, -32601);
      const { server: fresh } = server();
      assert.ok("result" in (await call(fresh, method, params)), `session ${method}`);
    });
  }
});

Deno.test("stateless errors use the revision's codes: -32602 for an unknown resource, memo's own outside the reserved range", async () => {
  const { server: s } = server({ readOnly: true });
  const missing = await call(s, "resources/read", stateless({ uri: "memo://notes/nope" }));
  assert.equal(missing.error.code, -32602);
  assert.equal(missing.error.data.code, "MCP_NOT_FOUND");
  assert.equal((await call(s, "resources/read", { uri: "memo://notes/nope" })).error.code, -32002);
  const write = await call(
    s,
    "tools/call",
    stateless({ name: "remember", arguments: { text: "x" } }),
  );
  assert.equal(write.error.code, -31403);
  assert.equal(write.error.data.code, "MCP_AUTHORIZATION_ERROR");
  const sessionWrite = await call(s, "tools/call", { name: "remember", arguments: { text: "x" } });
  assert.equal(sessionWrite.error.code, -32010);
});

Deno.test("a stateless request's logLevel turns on notifications/message for that request only", async () => {
  const { server: s } = server();
  const sent: Json[] = [];
  const context = {
    transport: "stdio" as const,
    notify: (m: string) => void sent.push(JSON.parse(m)),
  };
  await call(s, "tools/call", stateless({ name: "recall", arguments: { query: "x" } }), context);
  assert.equal(sent.length, 0);
  await call(
    s,
    "tools/call",
    {
      name: "recall",
      arguments: { query: "x" },
      _meta: { ...META, "io.modelcontextprotocol/logLevel": "info" },
    },
    context,
  );
  assert.equal(sent[0]?.method, "notifications/message");
  assert.equal(sent[0].params.level, "info");
});

// ---- HTTP ----

function endpoint() {
  const { runtime } = server();
  return createHttpEndpoint({ runtime }, {});
}

function post(
  body: unknown,
  headers: Record<string, string | undefined>,
): Request {
  const h = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) h.set(k, v);
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: h,
    body: JSON.stringify(body),
  });
}

const callRecall = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: stateless({ name: "recall", arguments: { query: "x" } }),
};
const GOOD = {
  "mcp-protocol-version": STATELESS,
  "mcp-method": "tools/call",
  "mcp-name": "recall",
};

Deno.test("HTTP: a stateless request whose headers agree with its body is answered 200", async () => {
  const e = endpoint();
  const res = await e.handle(post(callRecall, GOOD));
  assert.equal(res.status, 200);
  const json = await res.json();
  assert.equal(json.id, 7);
  assert.equal(json.result.resultType, "complete");
  const encoded = await e.handle(
    post(callRecall, { ...GOOD, "mcp-name": `=?base64?${btoa("recall")}?=` }),
  );
  assert.equal(encoded.status, 200, "a Base64-encoded Mcp-Name is decoded");
  await encoded.body?.cancel();
});

Deno.test("HTTP: a missing or disagreeing header is 400 -32020 (HeaderMismatch)", async (t) => {
  const e = endpoint();
  const cases: [string, unknown, Record<string, string | undefined>, RegExp][] = [
    [
      "no Mcp-Method",
      callRecall,
      { ...GOOD, "mcp-method": undefined },
      /Mcp-Method header is missing/,
    ],
    ["Mcp-Method differs", callRecall, { ...GOOD, "mcp-method": "tools/list" }, /Mcp-Method/],
    ["no Mcp-Name", callRecall, { ...GOOD, "mcp-name": undefined }, /Mcp-Name header is missing/],
    ["Mcp-Name differs", callRecall, { ...GOOD, "mcp-name": "forget" }, /'forget' does not match/],
    ["Mcp-Name badly encoded", callRecall, { ...GOOD, "mcp-name": "=?base64?@@?=" }, /base64/],
    [
      "no MCP-Protocol-Version, stateless body",
      callRecall,
      { ...GOOD, "mcp-protocol-version": undefined },
      /MCP-Protocol-Version header is missing/,
    ],
    [
      "session MCP-Protocol-Version, stateless body",
      callRecall,
      { ...GOOD, "mcp-protocol-version": "2025-11-25" },
      /does not match body value '2026-07-28'/,
    ],
    [
      "stateless header, body names another version",
      {
        ...callRecall,
        params: {
          ...callRecall.params,
          _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
        },
      },
      GOOD,
      /does not match body value '2025-11-25'/,
    ],
  ];
  for (const [name, body, headers, message] of cases) {
    await t.step(name, async () => {
      const res = await e.handle(post(body, headers));
      assert.equal(res.status, 400);
      const json = await res.json();
      assert.equal(json.error.code, -32020);
      assert.match(json.error.message, /^Header mismatch: /);
      assert.match(json.error.message, message);
    });
  }
  await t.step("prompts/get and resources/read need Mcp-Name too", async () => {
    for (
      const [method, params] of [
        ["prompts/get", { name: "capture_session" }],
        ["resources/read", { uri: "memo://stats" }],
      ] as const
    ) {
      const body = { jsonrpc: "2.0", id: 1, method, params: stateless(params) };
      const headers = { "mcp-protocol-version": STATELESS, "mcp-method": method };
      const refused = await e.handle(post(body, headers));
      assert.equal(refused.status, 400, method);
      await refused.body?.cancel();
      const name = "name" in params ? params.name : params.uri;
      const ok = await e.handle(post(body, { ...headers, "mcp-name": name }));
      assert.equal(ok.status, 200, method);
      await ok.body?.cancel();
    }
  });
});

Deno.test("HTTP: a body value that cannot be turned into text is a header mismatch, not a crash", async (t) => {
  const e = endpoint();
  // An object whose toString is not a function: String() of it throws.
  const evil = { toString: 1 };
  await t.step("the body's version, session header", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/list",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": evil } },
    };
    const res = await e.handle(post(body, { "mcp-protocol-version": "2025-11-25" }));
    assert.equal(res.status, 400);
    const json = await res.json();
    assert.equal(json.id, 3);
    assert.equal(json.error.code, -32020);
    assert.match(json.error.message, /does not match body value \(an object\)/);
  });
  await t.step("the tool's name, stateless", async () => {
    const body = { ...callRecall, params: stateless({ name: evil, arguments: {} }) };
    const res = await e.handle(post(body, GOOD));
    assert.equal(res.status, 400);
    const json = await res.json();
    assert.equal(json.error.code, -32020);
    assert.match(json.error.message, /'recall' does not match body value \(an object\)/);
  });
});

Deno.test("HTTP: a stateless notification is checked against Mcp-Method and the version too", async (t) => {
  const e = endpoint();
  const note = (meta: Record<string, unknown> | undefined) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, ...(meta ? { _meta: meta } : {}) },
  });
  const cases: [string, unknown, Record<string, string>, number, RegExp?][] = [
    ["headers that agree", note(META), {
      "mcp-protocol-version": STATELESS,
      "mcp-method": "notifications/cancelled",
    }, 202],
    ["no Mcp-Method (a notification needs none)", note(META), {
      "mcp-protocol-version": STATELESS,
    }, 202],
    ["no _meta", note(undefined), {
      "mcp-protocol-version": STATELESS,
      "mcp-method": "notifications/cancelled",
    }, 202],
    [
      "Mcp-Method names another method",
      note(META),
      {
        "mcp-protocol-version": STATELESS,
        "mcp-method": "tools/call",
      },
      400,
      /Mcp-Method header value 'tools\/call' does not match body value/,
    ],
    [
      "the body names another version",
      note({ ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" }),
      { "mcp-protocol-version": STATELESS, "mcp-method": "notifications/cancelled" },
      400,
      /does not match body value '2025-11-25'/,
    ],
    [
      "a session header, a stateless body",
      note(META),
      {
        "mcp-protocol-version": "2025-11-25",
        "mcp-method": "notifications/cancelled",
      },
      400,
      /does not match body value '2026-07-28'/,
    ],
  ];
  for (const [name, body, headers, status, message] of cases) {
    await t.step(name, async () => {
      const res = await e.handle(post(body, headers));
      assert.equal(res.status, status);
      if (status === 202) {
        assert.equal(res.body, null);
        return;
      }
      const json = await res.json();
      assert.equal(json.id, null);
      assert.equal(json.error.code, -32020);
      assert.match(json.error.message, message!);
    });
  }
});

Deno.test("HTTP: a stateless request without its _meta is 400 -32602", async () => {
  const e = endpoint();
  const body = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
  const res = await e.handle(
    post(body, { "mcp-protocol-version": STATELESS, "mcp-method": "tools/list" }),
  );
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.code, -32602);
});

Deno.test("HTTP: an unsupported MCP-Protocol-Version is 400 -32022 with the supported versions", async () => {
  const e = endpoint();
  const res = await e.handle(post(callRecall, { ...GOOD, "mcp-protocol-version": "1900-01-01" }));
  assert.equal(res.status, 400);
  const json = await res.json();
  assert.equal(json.id, 7, "the refusal echoes the request's id");
  assert.equal(json.error.code, -32022);
  assert.equal(json.error.data.requested, "1900-01-01");
  assert.ok(json.error.data.supported.includes("2026-07-28"));
});

Deno.test("HTTP: an unknown or removed method of a stateless request is 404 -32601", async () => {
  const e = endpoint();
  for (const method of ["nope/nothing", "ping"]) {
    const body = { jsonrpc: "2.0", id: "x", method, params: stateless() };
    const res = await e.handle(
      post(body, { "mcp-protocol-version": STATELESS, "mcp-method": method }),
    );
    assert.equal(res.status, 404, method);
    assert.equal((await res.json()).error.code, -32601);
  }
  // The session era keeps 200 for every JSON-RPC answer.
  const session = await e.handle(
    post({ jsonrpc: "2.0", id: 1, method: "nope/nothing" }, {
      "mcp-protocol-version": "2025-11-25",
    }),
  );
  assert.equal(session.status, 200);
  assert.equal((await session.json()).error.code, -32601);
});

Deno.test("HTTP: a stateless POST holds one message, not a batch", async () => {
  const e = endpoint();
  const res = await e.handle(post([callRecall], GOOD));
  assert.equal(res.status, 400);
  const json = await res.json();
  assert.equal(json.error.code, -32600);
  assert.match(json.error.message, /not a batch/);
  // A body that is no message at all is not called a batch: -32600 as in the session era.
  for (const scalar of [42, "x", null]) {
    const other = await e.handle(post(scalar, { "mcp-protocol-version": STATELESS }));
    assert.equal(other.status, 200, String(scalar));
    const answer = await other.json();
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, -32600);
    assert.doesNotMatch(answer.error.message, /batch/);
  }
});

Deno.test("HTTP: CORS lets a browser send and read the 2026-07-28 headers", async () => {
  const e = endpoint();
  const res = await e.handle(
    new Request("http://127.0.0.1/mcp", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "mcp-method, mcp-name, mcp-protocol-version",
      },
    }),
  );
  assert.equal(res.status, 204);
  const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(", ");
  for (const h of ["mcp-method", "mcp-name", "mcp-protocol-version"]) {
    assert.ok(allowed.includes(h), h);
  }
  const answer = await e.handle(post(callRecall, { ...GOOD, origin: "http://localhost:3000" }));
  const exposed = answer.headers.get("access-control-expose-headers")!.toLowerCase();
  assert.match(exposed, /mcp-method/);
  await answer.body?.cancel();
});

Deno.test("HTTP: a stateless request's logLevel brings its log records on its own SSE response", async () => {
  const e = endpoint();
  const withLevel = {
    ...callRecall,
    params: {
      ...callRecall.params,
      _meta: { ...META, "io.modelcontextprotocol/logLevel": "info" },
    },
  };
  const res = await e.handle(post(withLevel, GOOD));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const events = (await res.text()).split("\n\n").filter((x) => x.startsWith("event: message"))
    .map((x) => JSON.parse(x.slice(x.indexOf("data: ") + 6)));
  assert.equal(events[0].method, "notifications/message");
  assert.equal(events[0].params.level, "info");
  assert.equal(events.at(-1).id, 7, "the response comes last");
  // Without logLevel, or when the client takes only JSON, there are none.
  const plain = await e.handle(post(callRecall, GOOD));
  assert.equal(plain.headers.get("content-type"), "application/json");
  await plain.body?.cancel();
  const jsonOnly = await e.handle(post(withLevel, { ...GOOD, accept: "application/json" }));
  assert.equal(jsonOnly.headers.get("content-type"), "application/json");
  assert.equal((await jsonOnly.json()).id, 7);
  // An event stream refused with q=0 is refused (RFC 9110 §12.5.1).
  for (const accept of ["application/json, text/event-stream;q=0", "*/*, text/event-stream;q=0"]) {
    const refused = await e.handle(post(withLevel, { ...GOOD, accept }));
    assert.equal(refused.headers.get("content-type"), "application/json", accept);
    assert.equal((await refused.json()).id, 7);
  }
});
