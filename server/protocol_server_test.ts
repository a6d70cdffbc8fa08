import assert from "node:assert/strict";
import { createMemoMcpProtocolServer } from "./protocol_server.ts";
import { createFakeRuntime } from "../tests/fixtures/mcp_fake_runtime.ts";
import { until } from "../testing/wait.ts";
import { VERSION } from "../version.ts";
import { call, server } from "../tests/fixtures/mcp_protocol_calls.ts";

const init = (version: string) => ({
  protocolVersion: version,
  capabilities: {},
  clientInfo: { name: "t", version: "1" },
});

Deno.test("createMemoMcpProtocolServer() negotiates the protocol version", async (t) => {
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    await t.step(`answers ${version} with ${version}`, async () => {
      const r = await call(server().server, "initialize", init(version));
      assert.equal(r.result.protocolVersion, version);
      assert.deepEqual(r.result.serverInfo, { name: "memo", version: VERSION });
      assert.ok(r.result.capabilities.tools && r.result.capabilities.completions);
    });
  }
  await t.step("answers an unknown version with the latest", async () => {
    const r = await call(server().server, "initialize", init("1999-01-01"));
    assert.equal(r.result.protocolVersion, "2025-11-25");
  });
  await t.step("refuses initialize without a version with -32602", async () => {
    const r = await call(server().server, "initialize", {});
    assert.equal(r.error.code, -32602);
  });
  await t.step("reports name, version and instructions from options", async () => {
    const r = await call(
      server({ name: "mine", version: "9.9.9", instructions: "Be brief." }).server,
      "initialize",
      init("2025-06-18"),
    );
    assert.deepEqual(r.result.serverInfo, { name: "mine", version: "9.9.9" });
    assert.equal(r.result.instructions, "Be brief.");
  });
});

Deno.test("createMemoMcpProtocolServer() allows batches only under 2025-03-26 and earlier", async (t) => {
  const batch = JSON.stringify([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "nope" },
  ]);
  for (
    const [version, allowed] of [
      ["2025-11-25", false],
      ["2025-06-18", false],
      ["2025-03-26", true],
      ["2024-11-05", true],
    ] as const
  ) {
    await t.step(
      `${version}: ${allowed ? "answers each request" : "refuses with one -32600"}`,
      async () => {
        const { server: s } = server();
        await call(s, "initialize", init(version));
        const reply = JSON.parse((await s.handle(batch))!);
        if (allowed) {
          assert.equal(reply.length, 2);
          assert.deepEqual(reply[0], { jsonrpc: "2.0", id: 1, result: {} });
          assert.equal(reply[1].error.code, -32601);
        } else {
          assert.deepEqual(reply.id, null);
          assert.equal(reply.error.code, -32600);
        }
      },
    );
  }
  await t.step("over HTTP the version comes from the context", async () => {
    const { server: s } = server();
    const reply = JSON.parse(
      (await s.handle(batch, { transport: "http", protocolVersion: "2025-03-26" }))!,
    );
    assert.equal(reply.length, 2);
  });
  await t.step("an empty batch is -32600; a batch of notifications gets nothing", async () => {
    const { server: s } = server();
    const ctx = { transport: "http" as const, protocolVersion: "2024-11-05" };
    assert.equal(JSON.parse((await s.handle("[]", ctx))!).error.code, -32600);
    assert.equal(
      await s.handle('[{"jsonrpc":"2.0","method":"notifications/initialized"}]', ctx),
      undefined,
    );
  });
  await t.step("initialize inside a batch is -32600", async () => {
    const { server: s } = server();
    const ctx = { transport: "http" as const, protocolVersion: "2024-11-05" };
    const reply = JSON.parse(
      (await s.handle(
        JSON.stringify([{
          jsonrpc: "2.0",
          id: 5,
          method: "initialize",
          params: init("2024-11-05"),
        }]),
        ctx,
      ))!,
    );
    assert.equal(reply[0].error.code, -32600);
  });
});

Deno.test("createMemoMcpProtocolServer() answers malformed messages per JSON-RPC", async (t) => {
  const { server: s } = server();
  const cases: [string, string, number | undefined, unknown][] = [
    ["invalid JSON", "{nope", -32700, null],
    ["a number", "42", -32600, null],
    ["null", "null", -32600, null],
    ["an id without method", '{"jsonrpc":"2.0","id":7}', -32600, 7],
    ["a null id", '{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, null],
    ["a fractional id", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, null],
    ["an object id", '{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600, null],
    ["a wrong jsonrpc", '{"jsonrpc":"1.0","id":3,"method":"ping"}', -32600, 3],
    ["a numeric method", '{"jsonrpc":"2.0","id":3,"method":5}', -32600, 3],
    ["array params", '{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}', -32602, 3],
    ["an unknown method", '{"jsonrpc":"2.0","id":"a","method":"x/y"}', -32601, "a"],
    [
      "a notification",
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      undefined,
      undefined,
    ],
    ["an unknown notification", '{"jsonrpc":"2.0","method":"x/y"}', undefined, undefined],
    ["a response", '{"jsonrpc":"2.0","id":1,"result":{}}', undefined, undefined],
    [
      "an error response",
      '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
      undefined,
      undefined,
    ],
    ["a negative id", '{"jsonrpc":"2.0","id":-5,"method":"ping"}', 0, -5],
    ["a huge id", '{"jsonrpc":"2.0","id":1e300,"method":"ping"}', -32600, null],
    [
      "the largest safe id",
      '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}',
      0,
      9007199254740991,
    ],
  ];
  for (const [name, raw, code, id] of cases) {
    await t.step(name, async () => {
      const reply = await s.handle(raw);
      if (code === undefined) return assert.equal(reply, undefined);
      const r = JSON.parse(reply!);
      assert.equal(r.jsonrpc, "2.0");
      assert.deepEqual(r.id, id);
      if (code === 0) assert.deepEqual(r.result, {});
      else assert.equal(r.error.code, code);
      assert.ok(!/\bat\s+\S+:\d+:\d+/.test(reply!), "no stack trace");
    });
  }
});

Deno.test("createMemoMcpProtocolServer() ignores notifications/cancelled from a stateless transport", async () => {
  const runtime = createFakeRuntime(1, { delayMs: 100 });
  const s = createMemoMcpProtocolServer({ runtime });
  // In flight on a connection (stdio), where the id names one request…
  const pending = s.handle(
    '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"memory_stats"}}',
  );
  await until(() => runtime.signals.length > 0, "the call to reach the runtime");
  // …a cancellation arriving over stateless HTTP, where ids are not unique.
  const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}';
  assert.equal(
    await s.handle(cancel, { transport: "http", protocolVersion: "2025-06-18" }),
    undefined,
  );
  const reply = JSON.parse((await pending)!);
  assert.equal(reply.result.structuredContent.notes, 1);
  assert.equal(runtime.signals[0].aborted, false);
});

Deno.test("createMemoMcpProtocolServer(): a batch's answer is held to maxOutputBytes as a whole; the largest answers give way to their ids' -32012", async () => {
  const { server: s } = server({ maxOutputBytes: 2000 });
  await call(s, "initialize", init("2025-03-26"));
  const read = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "resources/read",
    params: { uri: "memo://stats" },
  });
  const single = (await s.handle(JSON.stringify(read(1))))!;
  assert.ok(single.length < 500, "one answer fits, and three");
  const reply = (await s.handle(JSON.stringify([1, 2, 3, 4, 5].map(read))))!;
  assert.ok(new TextEncoder().encode(reply).length <= 2000, `${reply.length} bytes`);
  const answers = JSON.parse(reply) as { id: number; result?: unknown; error?: { code: number } }[];
  assert.deepEqual(answers.map((a) => a.id), [1, 2, 3, 4, 5]); // every id answered, in order
  const cut = answers.filter((a) => a.error?.code === -32012);
  assert.ok(cut.length > 0 && cut.length < 5, JSON.stringify(answers.map((a) => a.error?.code)));
  assert.ok(answers.some((a) => a.result !== undefined));
});

Deno.test("createMemoMcpProtocolServer(): a batch whose every answer's -32012 is still over maxOutputBytes gets one -32012", async () => {
  const { server: s } = server({ maxOutputBytes: 600 });
  await call(s, "initialize", init("2025-03-26"));
  const reads = [1, 2, 3, 4, 5].map((id) => ({
    jsonrpc: "2.0",
    id,
    method: "resources/read",
    params: { uri: "memo://stats" },
  }));
  const reply = JSON.parse((await s.handle(JSON.stringify(reads)))!);
  assert.equal(reply.id, null);
  assert.equal(reply.error.code, -32012);
  assert.equal(reply.error.data.code, "MCP_OUTPUT_LIMIT");
});

Deno.test("createMemoMcpProtocolServer() takes limits from 1 to 10^9: a timeout past a timer's 2^31 - 1 ms is refused, not fired at once", () => {
  assert.throws(
    () => createMemoMcpProtocolServer({ runtime: createFakeRuntime(0), requestTimeoutMs: 2 ** 31 }),
    /requestTimeoutMs must be an integer from 1 to 1000000000/,
  );
  createMemoMcpProtocolServer({ runtime: createFakeRuntime(0), requestTimeoutMs: 1_000_000_000 });
});

Deno.test("createMemoMcpProtocolServer(): a read tool's logged arguments carry no secret the runtime's guard detects", async () => {
  const records: unknown[] = [];
  const runtime = createFakeRuntime(2);
  const secret = "glpat-Zr8vQ2mW4kT9xN1pLc7H";
  runtime.scrubSecrets = (value: unknown) =>
    Promise.resolve(JSON.parse(JSON.stringify(value).replaceAll(secret, "[redacted:gitlab]")));
  const s = createMemoMcpProtocolServer({ runtime, logger: (r) => void records.push(r) });
  await call(s, "tools/call", { name: "recall", arguments: { query: `deploy ${secret}` } });
  const logged = JSON.stringify(records);
  assert.match(logged, /tools\/call recall/);
  assert.ok(!logged.includes(secret), logged);
});

Deno.test("createMemoMcpProtocolServer(): a write whose answer would carry a stored note over maxOutputBytes is refused before it writes", async () => {
  const { runtime, server: s } = server({ maxOutputBytes: 20_000 }, 0);
  runtime.notes.set("big", {
    id: "big",
    title: "big",
    body: '"'.repeat(10_000),
    labels: [],
    hash: "h",
    created: "2025-01-01T00:00:00.000Z",
    updated: "2025-01-01T00:00:00.000Z",
  });
  for (
    const [name, args] of [
      ["forget", { id: "big" }],
      ["update_note", { id: "big", labels: ["x"] }],
    ] as const
  ) {
    const r = await call(s, "tools/call", { name, arguments: args });
    const code = r.error?.code ?? r.result?.structuredContent?.error?.code;
    assert.ok(code === -32012 || code === "MCP_OUTPUT_LIMIT", `${name}: ${JSON.stringify(r)}`);
    assert.ok(runtime.notes.has("big"), `${name} wrote`);
    assert.deepEqual(runtime.notes.get("big")!.labels, [], `${name} wrote`);
  }
});
