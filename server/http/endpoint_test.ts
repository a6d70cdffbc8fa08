import assert from "node:assert/strict";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { until } from "../../testing/wait.ts";
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
  await until(() => runtime.signals.length > 0, "the call to reach the runtime");
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
  const runtime = createFakeRuntime(1, { delayMs: 30_000 });
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
  await until(() => runtime.signals.length > 0, "the call to reach the runtime");
  client.abort();
  const res = await pending;
  // Far below the runtime's 30 s: the bound leaves a loaded machine slack.
  assert.ok(performance.now() - started < 10_000, "answered without waiting for the runtime");
  assert.ok(runtime.signals.at(-1)!.aborted, "the runtime's signal is aborted");
  await res.body?.cancel();
  await endpoint.close();
});

Deno.test("createHttpEndpoint() serves the web page beside the MCP path when routed", async () => {
  const get = (endpoint: { handle: (r: Request) => Promise<Response> }, path: string) =>
    endpoint.handle(new Request(`http://127.0.0.1:8787${path}`));
  const html = async (response: Response) => {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    return await response.text();
  };
  const runtime = createFakeRuntime(0);

  const routed = createHttpEndpoint({ runtime, readOnly: true }, {
    MEMO_MCP_PATH: "/api/mcp",
  }, { routed: true });
  assert.equal(routed.uiPath, "/");
  const text = await html(await get(routed, "/"));
  assert.match(text, /&quot;mcpPath&quot;:&quot;\/api\/mcp&quot;/);
  assert.match(text, /&quot;readOnly&quot;:true/);
  assert.equal((await routed.handle(post("http://127.0.0.1/api/mcp"))).status, 200);
  const elsewhere = await get(routed, "/other");
  assert.equal(elsewhere.status, 404);
  await elsewhere.body?.cancel();

  const unrouted = createHttpEndpoint({ runtime }, {});
  assert.equal(unrouted.uiPath, undefined, "a handler mounted by its host serves no page");
  const notPage = await get(unrouted, "/");
  assert.equal(notPage.status, 405);
  await notPage.body?.cancel();

  const off = createHttpEndpoint({ runtime }, { MEMO_UI: "false" }, { routed: true });
  assert.equal(off.uiPath, undefined);
  const gone = await get(off, "/");
  assert.equal(gone.status, 404);
  await gone.body?.cancel();
  const onByFlag = createHttpEndpoint({ runtime }, { MEMO_UI: "false" }, {
    routed: true,
    ui: true,
  });
  await html(await get(onByFlag, "/"));

  const moved = createHttpEndpoint({ runtime }, { MEMO_UI_PATH: "/env-ui" }, {
    routed: true,
    uiPath: "/ui",
  });
  assert.equal(moved.uiPath, "/ui", "the option wins over MEMO_UI_PATH");
  await html(await get(moved, "/ui"));
  const root = await get(moved, "/");
  assert.equal(root.status, 404);
  await root.body?.cancel();

  const authed = createHttpEndpoint({ runtime }, { MEMO_MCP_BEARER_TOKEN: "s3cret" }, {
    routed: true,
  });
  const page = await html(await get(authed, "/"));
  assert.match(page, /&quot;authRequired&quot;:true/, "the page needs no token itself");
  assert.ok(!page.includes("s3cret"), "and never carries it");
});

Deno.test("createHttpEndpoint() refuses a web page path that cannot work", () => {
  const runtime = createFakeRuntime(0);
  const cases: [Record<string, string>, { uiPath?: string }, RegExp][] = [
    [{}, { uiPath: "/mcp" }, /Cannot configure the web page: the path \/mcp is the MCP/],
    [{ MEMO_MCP_PATH: "/" }, {}, /Cannot configure the web page: the path \/ is the MCP/],
    [{ MEMO_UI_PATH: "/_memo/ui" }, {}, /Cannot configure the web page: .* under \/_memo\//],
    [{}, { uiPath: "ui" }, /Cannot configure the web page: the path must start with \//],
  ];
  for (const [env, how, message] of cases) {
    assert.throws(() => createHttpEndpoint({ runtime }, env, { routed: true, ...how }), message);
  }
  // Off, the path is not checked; unrouted, there is no page.
  createHttpEndpoint({ runtime }, { MEMO_UI: "false" }, { routed: true, uiPath: "/mcp" });
  createHttpEndpoint({ runtime }, { MEMO_UI_PATH: "/mcp" });
});

Deno.test("createHttpEndpoint(): a batch's message naming a version in _meta is held to the header as one alone is", async () => {
  const endpoint = createHttpEndpoint({ runtime: createFakeRuntime(0) }, {});
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const msg = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta } };
  const headers = { "content-type": "application/json" }; // no MCP-Protocol-Version: 2025-03-26
  const post = (body: unknown) =>
    endpoint.handle(
      new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) }),
    );
  for (const body of [msg, [msg]]) {
    const answer = await post(body);
    assert.equal(answer.status, 400);
    assert.equal((await answer.json()).error.code, -32020, JSON.stringify(body));
  }
  // A session-era batch with no _meta version is served as before.
  const ping = await post([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
  assert.deepEqual(await ping.json(), [{ jsonrpc: "2.0", id: 2, result: {} }]);
});
