/**
 * The official MCP SDK client, over its Streamable HTTP transport, against
 * `deno serve --host 127.0.0.1 --port <free> http.ts` run as a subprocess on
 * a temporary project: every tool, resource and prompt.
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { startDenoServe } from "./_serve_process.ts";
import { MEMO_MCP_INSTRUCTIONS } from "../server/mod.ts";

type Structured = Record<string, unknown> & {
  note?: { id: string; title: string; body: string; labels: string[] };
};

Deno.test("deno serve http.ts serves every tool, resource and prompt to the SDK client", async (t) => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-sdk-http-" });
  const server = await startDenoServe({ MEMO_ROOT_DIR: rootDir });
  const client = new Client({ name: "memo-http-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`));
  try {
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name, arguments: args });
      return result as { isError?: boolean; structuredContent?: Structured; content: unknown[] };
    };

    await t.step("initialize", () => {
      assert.equal(client.getServerVersion()?.name, "memo");
      const caps = client.getServerCapabilities();
      assert.ok(caps?.tools && caps?.resources && caps?.prompts, JSON.stringify(caps));
      // memo's instructions for the model, as `memo mcp` and `memo serve` send them.
      assert.equal(client.getInstructions(), MEMO_MCP_INSTRUCTIONS);
    });

    await t.step("ping and logging/setLevel", async () => {
      assert.deepEqual(await client.ping(), {});
      assert.deepEqual(await client.setLoggingLevel("warning"), {});
    });

    await t.step("tools/list", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x: { name: string }) => x.name).sort(), [
        "correct",
        "forget",
        "get_note",
        "list_notes",
        "memory_stats",
        "recall",
        "remember",
        "supersede",
        "sync_connectors",
        "tidy",
        "update_note",
      ]);
      for (const tool of tools) {
        assert.ok(tool.outputSchema, `${tool.name} has an outputSchema`);
        assert.equal(typeof tool.annotations?.readOnlyHint, "boolean");
      }
    });

    let id = "";
    await t.step("remember", async () => {
      const r = await call("remember", {
        text: "The staging database is db-stage-2, migrated on Fridays.",
        title: "Staging database",
        labels: ["infra"],
      });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      id = r.structuredContent!.note!.id;
      assert.ok(id);
      await call("remember", { text: "Deploys run with make deploy from the main branch." });
    });

    await t.step("recall", async () => {
      const r = await call("recall", { query: "staging database", limit: 5 });
      const hits = r.structuredContent!.hits as { note: { id: string } }[];
      assert.equal(hits[0].note.id, id);
    });

    await t.step("get_note", async () => {
      const r = await call("get_note", { id });
      assert.equal(r.structuredContent!.note!.title, "Staging database");
      const missing = await call("get_note", { id: "nope-404" });
      assert.equal(missing.isError, true);
      assert.equal((missing.structuredContent!.error as { code: string }).code, "MCP_NOT_FOUND");
    });

    await t.step("list_notes", async () => {
      const r = await call("list_notes", { limit: 1 });
      assert.equal((r.structuredContent!.notes as unknown[]).length, 1);
      assert.equal(r.structuredContent!.total, 2);
    });

    await t.step("update_note", async () => {
      const r = await call("update_note", { id, labels: ["infra", "db"] });
      assert.deepEqual(r.structuredContent!.note!.labels, ["infra", "db"]);
    });

    await t.step("memory_stats", async () => {
      const r = await call("memory_stats");
      assert.notEqual(r.isError, true, JSON.stringify(r));
      assert.equal((r.structuredContent as { notes?: number }).notes, 2, JSON.stringify(r));
    });

    await t.step("sync_connectors", async () => {
      const r = await call("sync_connectors");
      assert.ok(r.structuredContent, JSON.stringify(r));
    });

    await t.step("resources/list, templates and read", async () => {
      const { resources } = await client.listResources();
      assert.equal(resources[0].uri, "memo://stats");
      assert.ok(resources.some((r: { uri: string }) => r.uri === `memo://notes/${id}`));
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((r: { uriTemplate: string }) => r.uriTemplate), [
        "memo://notes/{id}",
      ]);
      const stats = await client.readResource({ uri: "memo://stats" });
      assert.equal(stats.contents[0].mimeType, "application/json");
      const note = await client.readResource({ uri: `memo://notes/${id}` });
      assert.match(String((note.contents[0] as { text: string }).text), /db-stage-2/);
      await assert.rejects(
        client.readResource({ uri: "memo://notes/nope-404" }),
        /-32002|not found/i,
      );
    });

    await t.step("completion/complete of the note template", async () => {
      const r = await client.complete({
        ref: { type: "ref/resource", uri: "memo://notes/{id}" },
        argument: { name: "id", value: id.slice(0, 3) },
      });
      assert.ok(r.completion.values.includes(id), JSON.stringify(r));
    });

    await t.step("prompts", async () => {
      const { prompts } = await client.listPrompts();
      assert.deepEqual(prompts.map((p: { name: string }) => p.name).sort(), [
        "capture_session",
        "recall_context",
        "review_memory",
      ]);
      const recall = await client.getPrompt({
        name: "recall_context",
        arguments: { topic: "staging" },
      });
      assert.ok(recall.messages.length > 0);
      assert.match(JSON.stringify(recall.messages), /db-stage-2/);
      const capture = await client.getPrompt({
        name: "capture_session",
        arguments: { summary: "fixed CI" },
      });
      assert.ok(capture.messages.length > 0);
      const review = await client.getPrompt({ name: "review_memory", arguments: {} });
      assert.ok(review.messages.length > 0);
    });

    await t.step("forget", async () => {
      const r = await call("forget", { id });
      assert.equal((r.structuredContent!.forgotten as { id: string }).id, id);
      const after = await call("get_note", { id });
      assert.equal(after.isError, true);
    });
  } finally {
    await client.close().catch(() => {});
    await server.stop();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
  }
});
