import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { McpError } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import { exerciseEverything, validating } from "./fixtures/mcp_sdk.ts";
import { tempDir } from "../testing/temp_dir.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ROOT = fileURLToPath(new URL("..", import.meta.url));

async function connect(dir: string, extra: string[] = []) {
  const stdio = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "cli.ts", "mcp", "--dir", dir, ...extra],
    cwd: ROOT,
    stderr: "pipe",
    env: { ...Deno.env.toObject(), NO_COLOR: "1" },
  });
  const errors: unknown[] = [];
  const { transport, inbound } = validating(stdio);
  const client = new Client({ name: "memo-test", version: "1.0.0" });
  client.onerror = (e: unknown) => void errors.push(e);
  await client.connect(transport);
  return { client, inbound, errors };
}

Deno.test("memo mcp serves every tool, resource, template and prompt to the SDK client over stdio", async () => {
  await using dirTmp = await tempDir("memo-sdk-stdio-");
  const dir = dirTmp.path;
  const { client, inbound, errors } = await connect(dir);
  try {
    assert.equal(client.getServerVersion()?.name, "memo");
    assert.match(client.getInstructions() ?? "", /recall/);
    const caps = client.getServerCapabilities()!;
    assert.ok(caps.tools && caps.resources && caps.prompts && caps.logging && caps.completions);
    await client.setLoggingLevel("info");
    await exerciseEverything(client);
  } finally {
    await client.close();
  }
  assert.deepEqual(inbound.invalid, []);
  assert.deepEqual(errors, [], "stdout carried only valid JSON-RPC");
  assert.ok(inbound.messages.length > 40);
  assert.ok(
    inbound.messages.some((m: Json) =>
      (m as { method?: string }).method === "notifications/message"
    ),
    "log notifications arrive after logging/setLevel",
  );
});

Deno.test("memo mcp --read-only refuses writes with -32010 and serves reads", async () => {
  await using dirTmp = await tempDir("memo-sdk-ro-");
  const dir = dirTmp.path;
  const { client, inbound } = await connect(dir, ["--read-only"]);
  try {
    const error = await client.callTool({ name: "remember", arguments: { text: "x" } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32010);
    assert.equal((error.data as { code: string }).code, "MCP_AUTHORIZATION_ERROR");
    const stats = await client.callTool({ name: "memory_stats", arguments: {} });
    assert.equal((stats.structuredContent as { notes: number }).notes, 0);
  } finally {
    await client.close();
  }
  assert.deepEqual(inbound.invalid, []);
});

Deno.test("memo mcp honours the limit flags", async () => {
  await using dirTmp = await tempDir("memo-sdk-limits-");
  const dir = dirTmp.path;
  const { client } = await connect(dir, ["--max-page-size", "5", "--default-page-size", "2"]);
  try {
    const tools = await client.listTools();
    const list = tools.tools.find((t: Json) => t.name === "list_notes")!;
    assert.equal((list.inputSchema.properties!.limit as { maximum: number }).maximum, 5);
    const over = await client.callTool({ name: "list_notes", arguments: { limit: 6 } });
    assert.equal(over.isError, true);
  } finally {
    await client.close();
  }
});

Deno.test("memo mcp list_notes pages newest first with order", async () => {
  await using dirTmp = await tempDir("memo-sdk-order-");
  const dir = dirTmp.path;
  const { client, inbound } = await connect(dir, ["--default-page-size", "2"]);
  try {
    for (const text of ["first note", "second note", "third note"]) {
      await client.callTool({ name: "remember", arguments: { text } });
    }
    const tools = await client.listTools();
    const list = tools.tools.find((t: Json) => t.name === "list_notes")!;
    assert.deepEqual((list.inputSchema.properties!.order as { enum: string[] }).enum, [
      "oldest",
      "newest",
    ]);
    type Page = { notes: { body: string }[]; nextCursor?: string; total: number };
    const page = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: "list_notes", arguments: args })).structuredContent as Page;
    const first = await page({ order: "newest" });
    assert.deepEqual(first.notes.map((n) => n.body), ["third note", "second note"]);
    assert.equal(first.total, 3);
    const second = await page({ order: "newest", cursor: first.nextCursor });
    assert.deepEqual(second.notes.map((n) => n.body), ["first note"]);
    assert.equal(second.nextCursor, undefined);
    const oldest = await page({});
    assert.deepEqual(oldest.notes.map((n) => n.body), ["first note", "second note"]);
    const bad = await client.callTool({ name: "list_notes", arguments: { order: "random" } });
    assert.equal(bad.isError, true);
  } finally {
    await client.close();
  }
  assert.deepEqual(inbound.invalid, []);
});
