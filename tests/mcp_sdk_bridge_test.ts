import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { ResourceListChangedNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/inMemory.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { createMcpHandler, McpServer as McpServerV2 } from "npm:@modelcontextprotocol/server@2.4.0";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client as ClientV2 } from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { z } from "zod";
import { registerMemoMcpCapabilities } from "../server/sdk/mod.ts";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import { engineArgument } from "../server/tools/_recall_text.ts";
import type { MemoMcpOptions } from "../server/options.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { createFakeRuntime } from "./fixtures/mcp_fake_runtime.ts";
import { until } from "../testing/wait.ts";
import { exerciseEverything, validating } from "./fixtures/mcp_sdk.ts";
import { EXPECTED_TOOL_NAMES } from "./fixtures/mcp_protocol_calls.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function bridged(options: MemoMcpOptions, addOwnTool = false) {
  const server = new McpServer({ name: "host-app", version: "1.0.0" });
  if (addOwnTool) {
    server.registerTool(
      "echo",
      { inputSchema: { text: z.string() } },
      ({ text }: { text: string }) => ({
        content: [{ type: "text", text }],
      }),
    );
  }
  registerMemoMcpCapabilities(server, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const { transport, inbound } = validating(clientSide);
  await server.connect(serverSide);
  const client = new Client({ name: "memo-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, server, inbound };
}

Deno.test("registerMemoMcpCapabilities() serves everything through the SDK's McpServer", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-bridge-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
  const { client, inbound } = await bridged({ runtime });
  try {
    await exerciseEverything(client);
  } finally {
    await client.close();
    await runtime.close();
  }
  assert.deepEqual(inbound.invalid, []);
});

Deno.test("registerMemoMcpCapabilities(): a note added, by the bridge or another writer, sends resources/list_changed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-bridge-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
  const other = createMemoMcpRuntimeFromConfig({ rootDir: dir });
  const { client } = await bridged({ runtime });
  let changed = 0;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    changed++;
  });
  try {
    await client.callTool({ name: "remember", arguments: { text: "Deploys run on Fridays" } });
    await until(() => changed >= 1, "list_changed after the bridge's remember");
    const before = changed;
    await other.remember({ text: "The queue is kafka" }); // another process's write
    await until(() => changed > before, "list_changed after another writer's remember");
  } finally {
    await client.close();
    await other.close();
    await runtime.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("registerMemoMcpCapabilities() shows the protocol server's exact schemas and coexists with the host's tools", async () => {
  const runtime = createFakeRuntime(2);
  const { client } = await bridged({ runtime }, true);
  try {
    const listed = (await client.listTools()).tools;
    assert.ok(listed.some((t: Json) => t.name === "echo"), "the host's own tool is still there");
    const direct = JSON.parse(
      (await createMemoMcpProtocolServer({ runtime }).handle(
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      ))!,
    ).result.tools as Json[];
    for (const tool of direct) {
      const viaSdk = listed.find((t: Json) => t.name === tool.name) as Json;
      assert.ok(viaSdk, tool.name);
      const strip = ({ $schema: _, ...rest }: Json) => rest;
      assert.deepEqual(strip(viaSdk.inputSchema), tool.inputSchema, `${tool.name} inputSchema`);
      assert.deepEqual(strip(viaSdk.outputSchema), tool.outputSchema, `${tool.name} outputSchema`);
      assert.deepEqual(viaSdk.annotations, tool.annotations);
    }
    const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    assert.equal((echo.content as Json)[0].text, "hi");
  } finally {
    await client.close();
  }
});

Deno.test("registerMemoMcpCapabilities() applies memo's validation, authorization and limits", async (t) => {
  const runtime = createFakeRuntime(3);
  const seen: string[] = [];
  const { client } = await bridged({
    runtime,
    authorize: (ctx) => {
      seen.push(`${ctx.tool}/${ctx.transport}`);
      return ctx.tool !== "forget";
    },
    maxOutputBytes: 1000,
    requestTimeoutMs: 1_000,
  });
  const call = async (name: string, args: unknown) =>
    (await client.callTool({ name, arguments: args as Record<string, unknown> })) as Json;
  try {
    await t.step("invalid arguments are a tool error with MCP_VALIDATION_ERROR", async () => {
      const r = await call("recall", { query: "" });
      assert.equal(r.isError, true);
      assert.equal(r.structuredContent.error.code, "MCP_VALIDATION_ERROR");
    });
    await t.step("a refused write carries MCP_AUTHORIZATION_ERROR", async () => {
      const r = await call("forget", { id: [...runtime.notes.keys()][0] });
      assert.equal(r.structuredContent.error.code, "MCP_AUTHORIZATION_ERROR");
      assert.equal(runtime.notes.size, 3);
      assert.deepEqual(seen, ["forget/sdk"]);
    });
    await t.step("an oversized result carries MCP_OUTPUT_LIMIT", async () => {
      const r = await call("list_notes", { limit: 3 });
      assert.equal(r.structuredContent.error.code, "MCP_OUTPUT_LIMIT");
    });
    await t.step("a slow runtime carries MCP_TIMEOUT", async () => {
      runtime.options.delayMs = 30_000;
      const r = await call("memory_stats", {});
      runtime.options.delayMs = 0;
      assert.equal(r.structuredContent.error.code, "MCP_TIMEOUT");
    });
    await t.step("an unknown resource is an error", async () => {
      await assert.rejects(client.readResource({ uri: "memo://notes/nope" }));
    });
    await t.step(
      "an oversized resource or prompt is the JSON-RPC error MCP_OUTPUT_LIMIT",
      async () => {
        const big = { ...[...runtime.notes.values()][0], id: "nbig", body: "word ".repeat(400) };
        runtime.notes.set(big.id, big);
        const read = await client.readResource({ uri: "memo://notes/nbig" }).then(
          () => undefined,
          (e: Json) => e,
        );
        assert.equal(read?.code, -32012, String(read));
        const prompt = await client.getPrompt({
          name: "capture_session",
          arguments: { summary: "word ".repeat(300) },
        }).then(() => undefined, (e: Json) => e);
        assert.equal(prompt?.code, -32012, String(prompt));
        runtime.notes.delete(big.id);
      },
    );
  } finally {
    await client.close();
  }
});

Deno.test("registerMemoMcpCapabilities() with readOnly refuses writes", async () => {
  const { client } = await bridged({ runtime: createFakeRuntime(1), readOnly: true });
  try {
    const r = (await client.callTool({ name: "remember", arguments: { text: "x" } })) as Json;
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error.code, "MCP_AUTHORIZATION_ERROR");
  } finally {
    await client.close();
  }
});

Deno.test("registerMemoMcpCapabilities() on the SDK v2 McpServer serves the v2 client pinned to 2026-07-28 over stateless HTTP", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-bridge-v2-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
  const errors: unknown[] = [];
  // One McpServer per HTTP request, as createMcpHandler wants. The cast:
  // v2's registerTool, registerResource and registerPrompt do not match
  // McpServerLike's types (their callbacks take a ServerContext and must
  // return v2's result types), though they accept memo's registrations.
  const handler = createMcpHandler(() => {
    const server = new McpServerV2({ name: "host-app", version: "1.0.0" });
    server.registerTool(
      "echo",
      { inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: "text", text }] }),
    );
    registerMemoMcpCapabilities(server, { runtime });
    return server;
  }, { onerror: (e) => void errors.push(e) });
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => handler.fetch(req),
  );
  const endpoint = `http://127.0.0.1:${http.addr.port}/mcp`;
  const client = new ClientV2(
    { name: "memo-test", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");

    // tools/list: the host's tool, then memo's with the protocol server's schemas.
    const listed = (await client.listTools()).tools;
    assert.deepEqual(listed.map((t) => t.name), ["echo", ...EXPECTED_TOOL_NAMES]);
    const direct = JSON.parse(
      (await createMemoMcpProtocolServer({ runtime }).handle(
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      ))!,
    ).result.tools as Json[];
    const strip = ({ $schema: _, ...rest }: Json) => rest;
    // Registration with an SDK server is synchronous, before the runtime's recall settings are
    // read: the bridge's `engine` argument says what auto does in general terms.
    const recallInput = direct.find((t) => t.name === "recall")!.inputSchema as Json;
    recallInput.properties.engine.description = engineArgument(undefined);
    for (const tool of direct) {
      const viaSdk = listed.find((t) => t.name === tool.name) as Json;
      assert.deepEqual(strip(viaSdk.inputSchema), tool.inputSchema, `${tool.name} inputSchema`);
      assert.deepEqual(strip(viaSdk.outputSchema), tool.outputSchema, `${tool.name} outputSchema`);
      assert.deepEqual(viaSdk.annotations, tool.annotations);
    }

    // tools/call: remember, then recall.
    const remembered = await client.callTool({
      name: "remember",
      arguments: { text: "Deploys run with make deploy", labels: ["ops"] },
    }) as Json;
    assert.equal(remembered.isError, undefined, JSON.stringify(remembered));
    assert.equal(remembered.structuredContent.status, "written");
    const id = remembered.structuredContent.note.id as string;
    const recalled = await client.callTool({
      name: "recall",
      arguments: { query: "deploy" },
    }) as Json;
    assert.equal(recalled.structuredContent.hits[0].note.id, id);
    const invalid = await client.callTool({ name: "recall", arguments: { query: "" } }) as Json;
    assert.equal(invalid.isError, true);
    assert.equal(invalid.structuredContent.error.code, "MCP_VALIDATION_ERROR");
    const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } }) as Json;
    assert.equal(echo.content[0].text, "hi");

    // Resources: memo://stats, the template, a note, an id completion, an unknown note.
    const stats = await client.readResource({ uri: "memo://stats" });
    assert.equal(JSON.parse((stats.contents[0] as Json).text).notes, 1);
    const templates = await client.listResourceTemplates();
    assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ["memo://notes/{id}"]);
    const listedResources = await client.listResources();
    assert.deepEqual(listedResources.resources.map((r) => r.uri), [
      "memo://stats",
      `memo://notes/${id}`,
    ]);
    const note = await client.readResource({ uri: `memo://notes/${id}` });
    assert.match((note.contents[0] as Json).text, /make deploy/);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "memo://notes/{id}" },
      argument: { name: "id", value: id.slice(0, 4) },
    });
    assert.deepEqual(ids.completion.values, [id]);
    await assert.rejects(
      client.readResource({ uri: "memo://notes/zzzzzzzzzz" }),
      (e: Json) => e.code === -32602,
    );

    // Prompts.
    const prompts = await client.listPrompts();
    assert.deepEqual(prompts.prompts.map((p) => p.name), [
      "recall_context",
      "capture_session",
      "review_memory",
    ]);
    const context = await client.getPrompt({
      name: "recall_context",
      arguments: { topic: "deploy" },
    });
    assert.ok(context.messages.some((m) => m.content.type === "resource"));
    const review = await client.getPrompt({ name: "review_memory", arguments: { labels: "ops" } });
    assert.match(JSON.stringify(review.messages), /Deploys run with make deploy/);

    // The wire, without the client: a stateless resources/read is a complete result.
    const raw = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "resources/read",
        "mcp-name": "memo://stats",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "resources/read",
        params: {
          uri: "memo://stats",
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    assert.equal(raw.status, 200);
    const body = await raw.json();
    assert.equal(body.result.resultType, "complete", JSON.stringify(body));
    assert.equal(JSON.parse(body.result.contents[0].text).notes, 1);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await handler.close();
    await http.shutdown();
    await runtime.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("registerMemoMcpCapabilities() on the SDK v2 McpServer passes on the auth info, the client's cancel and prompt completion", async (t) => {
  const runtime = createFakeRuntime(3);
  const seen: unknown[] = [];
  const handler = createMcpHandler(() => {
    const s = new McpServerV2({ name: "host-app", version: "1.0.0" });
    registerMemoMcpCapabilities(s, {
      runtime,
      authorize: (ctx) => {
        seen.push(ctx.authInfo);
        return true;
      },
    });
    return s;
  });
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => handler.fetch(req, { authInfo: { token: "t", clientId: "ci-bot", scopes: ["w"] } }),
  );
  const c = new ClientV2({ name: "t", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.addr.port}/mcp`)),
  );
  try {
    await t.step("authorize sees the handler's auth info, never its token", async () => {
      await c.callTool({ name: "remember", arguments: { text: "x" } });
      assert.deepEqual(seen, [{ scheme: "custom", extra: { clientId: "ci-bot", scopes: ["w"] } }]);
    });
    await t.step("a client's cancel aborts the runtime call", async () => {
      runtime.options.delayMs = 30_000; // the call is still running whenever the cancel comes
      const before = runtime.signals.length;
      const ac = new AbortController();
      const call = c.callTool({ name: "memory_stats", arguments: {} }, { signal: ac.signal })
        .catch(() => {});
      await until(() => runtime.signals.length > before, "the call to reach the runtime");
      ac.abort();
      await call;
      await until(() => runtime.signals[before].aborted, "the cancel to reach the runtime");
      assert.deepEqual(runtime.signals.slice(before).map((s) => s.aborted), [true]);
      runtime.options.delayMs = 0;
    });
    await t.step("an optional prompt argument completes", async () => {
      const r = await c.complete({
        ref: { type: "ref/prompt", name: "review_memory" },
        argument: { name: "labels", value: "l" },
      });
      assert.deepEqual(r.completion.values, ["l0", "l1", "l2"]);
    });
  } finally {
    await c.close();
    await handler.close();
    await http.shutdown();
  }
});

Deno.test("registerMemoMcpCapabilities(): a server watches the runtime while connected, and a closed one keeps no listener (SDK v1 and v2)", async () => {
  const runtime = createFakeRuntime(2);
  // SDK v1: a server a connection, one runtime.
  for (let i = 0; i < 3; i++) {
    const server = new McpServer({ name: "host-app", version: "1.0.0" });
    registerMemoMcpCapabilities(server, { runtime });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    assert.equal(runtime.watchers, 1, "watching while connected");
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientSide);
    await client.listResources();
    await client.close();
    await server.close();
    assert.equal(runtime.watchers, 0, `after server ${i + 1} closed`);
  }
  // SDK v2's createMcpHandler: a server a request.
  const handler = createMcpHandler(() => {
    const server = new McpServerV2({ name: "host-app", version: "1.0.0" });
    // deno-lint-ignore no-explicit-any
    registerMemoMcpCapabilities(server as any, { runtime });
    return server;
  });
  const http = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => handler.fetch(request),
  );
  const client = new ClientV2({ name: "t", version: "1" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.addr.port}/mcp`)),
    );
    for (let i = 0; i < 5; i++) await client.listResources();
    assert.equal(runtime.watchers, 0, "no listener outlives its request");
  } finally {
    await client.close();
    await http.shutdown();
  }
});
