import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/inMemory.js";
import { z } from "zod";
import { registerMemoMcpCapabilities } from "../server/sdk/mod.ts";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import type { MemoMcpOptions } from "../server/options.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { createFakeRuntime } from "./fixtures/mcp_fake_runtime.ts";
import { exerciseEverything, validating } from "./fixtures/mcp_sdk.ts";

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
