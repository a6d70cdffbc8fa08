import assert from "node:assert/strict";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { createHttpEndpoint } from "./endpoint.ts";

const HEADERS = { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" };
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const post = (url: string, headers: Record<string, string> = {}, body = PING) =>
  new Request(url, { method: "POST", headers: { ...HEADERS, ...headers }, body });

Deno.test("createHttpEndpoint() answers only on MEMO_MCP_PATH when routed", async () => {
  const endpoint = createHttpEndpoint({ runtime: createFakeRuntime(0) }, {
    MEMO_MCP_PATH: "/api/mcp",
  }, { routed: true });
  assert.equal(endpoint.path, "/api/mcp");
  assert.equal((await endpoint.handle(post("http://127.0.0.1/api/mcp?x=1"))).status, 200);
  const off = await endpoint.handle(post("http://127.0.0.1/mcp"));
  assert.equal(off.status, 404);
  await off.body?.cancel();
  const unrouted = createHttpEndpoint({ runtime: createFakeRuntime(0) }, {});
  assert.equal(unrouted.path, undefined);
  assert.equal((await unrouted.handle(post("http://127.0.0.1/anything"))).status, 200);
});

Deno.test("createHttpEndpoint() lets options win over MEMO_* variables", async () => {
  const env = {
    MEMO_MCP_BEARER_TOKEN: "from-env",
    MEMO_MCP_ALLOWED_ORIGINS: "https://env.example",
    MEMO_MCP_READ_ONLY: "true",
  };
  const endpoint = createHttpEndpoint({
    runtime: createFakeRuntime(0),
    auth: { bearerToken: "from-options" },
    allowedOrigins: ["https://options.example"],
    readOnly: false,
  }, env);
  assert.equal(endpoint.authRequired, true);
  const byEnvToken = await endpoint.handle(
    post("http://x/mcp", { authorization: "Bearer from-env" }),
  );
  assert.equal(byEnvToken.status, 401);
  await byEnvToken.body?.cancel();
  const auth = { authorization: "Bearer from-options" };
  const envOrigin = await endpoint.handle(
    post("http://x/mcp", { ...auth, origin: "https://env.example" }),
  );
  assert.equal(envOrigin.status, 403);
  await envOrigin.body?.cancel();
  const write = await endpoint.handle(
    post(
      "http://x/mcp",
      { ...auth, origin: "https://options.example" },
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "remember", arguments: { text: "allowed: readOnly false wins" } },
      }),
    ),
  );
  const json = await write.json();
  assert.equal(json.result.isError, undefined, JSON.stringify(json));
});

Deno.test("createHttpEndpoint() reads the limits from MEMO_* variables", async () => {
  const endpoint = createHttpEndpoint({ runtime: createFakeRuntime(0) }, {
    MEMO_MCP_MAX_INPUT_BYTES: "50",
  });
  const res = await endpoint.handle(post("http://127.0.0.1/mcp", {}, PING.padEnd(51, " ")));
  assert.equal(res.status, 413);
  await res.body?.cancel();
});

Deno.test("createHttpEndpoint() fails requests while the runtime cannot be built, and tries again", async () => {
  let builds = 0;
  const endpoint = createHttpEndpoint({}, {}, {
    runtime: () => {
      builds++;
      if (builds <= 2) throw new Error("Cannot start the runtime: disk gone");
      return createFakeRuntime(0);
    },
  });
  for (let i = 0; i < 2; i++) {
    const res = await endpoint.handle(post("http://127.0.0.1/mcp"));
    assert.equal(res.status, 500);
    assert.match((await res.json()).error.message, /^Cannot start the runtime: disk gone/);
  }
  const res = await endpoint.handle(post("http://127.0.0.1/mcp"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(builds, 3);
  await endpoint.close();
});

Deno.test("createHttpEndpoint() needs a runtime", () => {
  assert.throws(() => createHttpEndpoint({}, {}), /Cannot configure the MCP endpoint: no runtime/);
});

Deno.test("createHttpEndpoint() closes only a runtime it built", async () => {
  const runtime = createFakeRuntime(0);
  let closed = 0;
  runtime.close = () => Promise.resolve(void closed++);
  const endpoint = createHttpEndpoint({ runtime }, {});
  await endpoint.server();
  await endpoint.close();
  assert.equal(closed, 0);
  const built = createFakeRuntime(0);
  built.close = () => Promise.resolve(void closed++);
  const owner = createHttpEndpoint({}, {}, { runtime: () => built });
  await owner.server();
  await owner.close();
  assert.equal(closed, 1);
});

Deno.test("createHttpEndpoint() ignores notifications/cancelled: ids name no request over stateless HTTP", async () => {
  const runtime = createFakeRuntime(2, { delayMs: 150 });
  const endpoint = createHttpEndpoint({ runtime }, {});
  const call = '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"memory_stats"}}';
  const pending = endpoint.handle(post("http://127.0.0.1/mcp", {}, call));
  await new Promise((r) => setTimeout(r, 20));
  const cancel = await endpoint.handle(
    post(
      "http://127.0.0.1/mcp",
      {},
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}',
    ),
  );
  assert.equal(cancel.status, 202);
  const res = await pending;
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.id, "c1");
  assert.equal(body.result.structuredContent.notes, 2, "the call was not cancelled");
  assert.equal(runtime.signals.at(-1)!.aborted, false);
  await endpoint.close();
});

Deno.test("createHttpEndpoint() aborts a slow tool call when the client goes away", async () => {
  const runtime = createFakeRuntime(1, { delayMs: 2_000 });
  const endpoint = createHttpEndpoint({ runtime }, {});
  const client = new AbortController();
  const started = performance.now();
  const pending = endpoint.handle(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: HEADERS,
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_stats"}}',
      signal: client.signal,
    }),
  );
  await new Promise((r) => setTimeout(r, 100));
  client.abort();
  const res = await pending;
  assert.ok(performance.now() - started < 1_500, "answered without waiting for the runtime");
  assert.ok(runtime.signals.at(-1)!.aborted, "the runtime's signal is aborted");
  await res.body?.cancel();
  await endpoint.close();
});
