import assert from "node:assert/strict";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { createMemoMcpProtocolServer } from "./protocol_server.ts";
import { TOOLS } from "./tools/records.ts";
import { createFakeRuntime } from "../tests/fixtures/mcp_fake_runtime.ts";
import { until } from "../testing/wait.ts";
import {
  call,
  EXPECTED_TOOL_NAMES,
  type Json,
  server,
} from "../tests/fixtures/mcp_protocol_calls.ts";
import { pageCounter } from "../testing/pages.ts";

Deno.test("createMemoMcpProtocolServer() lists tools with schemas and annotations per version", async (t) => {
  await t.step("2025-11-25 has title, outputSchema and annotations", async () => {
    const r = await call(server().server, "tools/list", undefined, {
      transport: "http",
      protocolVersion: "2025-11-25",
    });
    const names = r.result.tools.map((tl: Json) => tl.name);
    assert.deepEqual(names, EXPECTED_TOOL_NAMES);
    for (const tool of r.result.tools) {
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.outputSchema.type, "object");
      assert.equal(typeof tool.description, "string");
      assert.equal(typeof tool.annotations.readOnlyHint, "boolean");
      assert.equal(typeof tool.annotations.destructiveHint, "boolean");
      assert.equal(typeof tool.annotations.idempotentHint, "boolean");
      assert.equal(tool.inputSchema.$schema, undefined);
    }
    const list = r.result.tools.find((tl: Json) => tl.name === "list_notes");
    assert.equal(list.inputSchema.properties.limit.maximum, 100);
    const hints = Object.fromEntries(
      r.result.tools.map((
        tl: Json,
      ) => [tl.name, [tl.annotations.readOnlyHint, tl.annotations.destructiveHint]]),
    );
    assert.deepEqual(hints, {
      remember: [false, false],
      recall: [true, false],
      get_note: [true, false],
      list_notes: [true, false],
      update_note: [false, true],
      correct: [false, false],
      supersede: [false, false],
      forget: [false, true],
      tidy: [true, false],
      sync_connectors: [false, false],
      memory_stats: [true, false],
    });
    const args = (name: string) =>
      Object.keys(r.result.tools.find((tl: Json) => tl.name === name).inputSchema.properties ?? {});
    const history = ["includeSuperseded", "asOf", "since", "until"];
    assert.deepEqual(args("remember"), [
      "text",
      "title",
      "labels",
      "source",
      "supersedes",
      "validFrom",
      "validUntil",
      "scope",
    ]);
    assert.deepEqual(args("recall"), [
      "query",
      "limit",
      "engine",
      "labels",
      "source",
      "scope",
      "explain",
      ...history,
    ]);
    assert.deepEqual(args("list_notes"), [
      "cursor",
      "limit",
      "labels",
      "source",
      "scope",
      "order",
      ...history,
    ]);
    assert.deepEqual(args("update_note"), [
      "id",
      "text",
      "title",
      "labels",
      "validFrom",
      "validUntil",
      "supersedes",
      "scope",
    ]);
    assert.deepEqual(args("correct"), ["id", "text", "title", "labels", "validFrom"]);
    assert.deepEqual(args("supersede"), ["ids", "by"]);
    assert.deepEqual(args("tidy"), []);
    assert.deepEqual(args("sync_connectors"), ["connectors"]);
    assert.deepEqual(args("memory_stats"), []);
  });
  await t.step("2024-11-05 has neither outputSchema nor annotations", async () => {
    const r = await call(server().server, "tools/list", undefined, {
      transport: "http",
      protocolVersion: "2024-11-05",
    });
    for (const tool of r.result.tools) {
      assert.equal(tool.outputSchema, undefined);
      assert.equal(tool.annotations, undefined);
    }
  });
  await t.step("a cursor on tools/list, prompts/list or templates is -32602", async () => {
    const { server: s } = server();
    for (const m of ["tools/list", "prompts/list", "resources/templates/list"]) {
      assert.equal((await call(s, m, { cursor: "forged" })).error.code, -32602, m);
    }
  });
  await t.step("maxPageSize shows in the schema", async () => {
    const r = await call(server({ maxPageSize: 40, defaultPageSize: 10 }).server, "tools/list");
    const list = r.result.tools.find((tl: Json) => tl.name === "list_notes");
    assert.equal(list.inputSchema.properties.limit.maximum, 40);
  });
});

Deno.test("createMemoMcpProtocolServer() calls tools with structured and text results", async (t) => {
  const { server: s, runtime } = server({}, 3);
  await t.step("remember returns the note", async () => {
    const r = await call(s, "tools/call", {
      name: "remember",
      arguments: { text: "Deploys run with make deploy", labels: ["ops"] },
    });
    assert.equal(r.result.isError, undefined);
    assert.equal(r.result.structuredContent.status, "written");
    assert.deepEqual(JSON.parse(r.result.content[0].text), r.result.structuredContent);
  });
  await t.step("get_note on an unknown id is a tool error MCP_NOT_FOUND", async () => {
    const r = await call(s, "tools/call", { name: "get_note", arguments: { id: "nope" } });
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.error.code, "MCP_NOT_FOUND");
  });
  for (
    const [name, args] of [["update_note", { id: "nope", title: "x" }], ["forget", {
      id: "nope",
    }]] as const
  ) {
    await t.step(`${name} on an unknown id is a tool error MCP_NOT_FOUND`, async () => {
      const r = await call(s, "tools/call", { name, arguments: args });
      assert.equal(r.result.structuredContent.error.code, "MCP_NOT_FOUND");
    });
  }
  await t.step("bad arguments are a tool error MCP_VALIDATION_ERROR", async () => {
    const r = await call(s, "tools/call", { name: "recall", arguments: { query: 5 } });
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
    assert.match(r.result.content[0].text, /^Cannot call recall: invalid arguments/);
  });
  await t.step("an unknown tool is -32602 MCP_NOT_FOUND", async () => {
    const r = await call(s, "tools/call", { name: "nope", arguments: {} });
    assert.equal(r.error.code, -32602);
    assert.equal(r.error.data.code, "MCP_NOT_FOUND");
  });
  await t.step("list_notes with a bad order is a tool error MCP_VALIDATION_ERROR", async () => {
    const r = await call(s, "tools/call", { name: "list_notes", arguments: { order: "random" } });
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
    assert.match(
      r.result.content[0].text,
      /^Cannot call list_notes: invalid arguments \(order: .*"oldest"\|"newest"\)$/,
    );
  });
  await t.step("a forged list_notes cursor is a tool error", async () => {
    const r = await call(s, "tools/call", { name: "list_notes", arguments: { cursor: "forged" } });
    assert.equal(r.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
  });
  await t.step("an I/O failure is -32603 MEMO_MCP_ERROR without a stack", async () => {
    runtime.options.fail = () => new Error("EIO: disk on fire\n    at read (file.ts:1:2)");
    const r = await call(s, "tools/call", { name: "memory_stats", arguments: {} });
    runtime.options.fail = undefined;
    assert.equal(r.error.code, -32603);
    assert.equal(r.error.data.code, "MEMO_MCP_ERROR");
    assert.equal(r.error.data.stack, undefined);
  });
  await t.step("a failed connector is a tool error that keeps the counts", async () => {
    runtime.options.sync = {
      connectors: [{
        id: "gh",
        type: "discussions",
        fetched: 2,
        written: 2,
        updated: 0,
        unchanged: 0,
      }],
      written: 2,
      updated: 0,
      unchanged: 0,
      errors: [{
        connector: "notion",
        type: "pages",
        error: { name: "WorkspaceAuthError", message: "authorization failed (401/403)" },
      }],
    };
    const r = await call(s, "tools/call", { name: "sync_connectors", arguments: {} });
    runtime.options.sync = undefined;
    assert.equal(r.result.isError, true);
    assert.equal(r.result.structuredContent.written, 2);
    assert.match(r.result.structuredContent.error.message, /notion: authorization failed/);
  });
  await t.step("under 2025-03-26 there is no structuredContent", async () => {
    const r = await call(s, "tools/call", { name: "memory_stats", arguments: {} }, {
      transport: "http",
      protocolVersion: "2025-03-26",
    });
    assert.equal(r.result.structuredContent, undefined);
    assert.equal(JSON.parse(r.result.content[0].text).notes, 4);
  });
});

Deno.test("createMemoMcpProtocolServer() pages resources/list with opaque cursors", async () => {
  const { server: s } = server({}, 60);
  const first = await call(s, "resources/list");
  assert.equal(first.result.resources.length, 25);
  assert.equal(first.result.resources[0].uri, "memo://stats");
  const seen = new Set(first.result.resources.map((r: Json) => r.uri));
  let cursor = first.result.nextCursor;
  const nextPage = pageCounter("the pages of resources/list");
  while (cursor) {
    nextPage();
    const page = await call(s, "resources/list", { cursor });
    assert.ok(page.result.resources.length <= 25);
    for (const r of page.result.resources) seen.add(r.uri);
    cursor = page.result.nextCursor;
  }
  assert.equal(seen.size, 61);
  assert.equal((await call(s, "resources/list", { cursor: "forged" })).error.code, -32602);
  assert.equal((await call(s, "resources/list", { cursor: "n.forged" })).error.code, -32602);
});

Deno.test("createMemoMcpProtocolServer() reads resources and completes ids", async () => {
  const { server: s, runtime } = server({}, 3);
  const id = [...runtime.notes.keys()][0];
  const note = await call(s, "resources/read", { uri: `memo://notes/${id}` });
  assert.equal(note.result.contents[0].mimeType, "text/markdown");
  assert.match(note.result.contents[0].text, /^# Note 0/);
  const stats = await call(s, "resources/read", { uri: "memo://stats" });
  assert.equal(JSON.parse(stats.result.contents[0].text).notes, 3);
  assert.equal((await call(s, "resources/read", { uri: "memo://notes/nope" })).error.code, -32002);
  assert.equal((await call(s, "resources/read", { uri: "file:///etc/passwd" })).error.code, -32002);
  const templates = await call(s, "resources/templates/list");
  assert.equal(templates.result.resourceTemplates[0].uriTemplate, "memo://notes/{id}");
  const done = await call(s, "completion/complete", {
    ref: { type: "ref/resource", uri: "memo://notes/{id}" },
    argument: { name: "id", value: id.slice(0, 3) },
  });
  assert.ok(done.result.completion.values.includes(id));
  const unknown = await call(s, "completion/complete", {
    ref: { type: "ref/prompt", name: "nope" },
    argument: { name: "x", value: "" },
  });
  assert.equal(unknown.error.code, -32602);
});

Deno.test("createMemoMcpProtocolServer() serves the three prompts", async () => {
  const { server: s } = server({}, 10);
  const list = await call(s, "prompts/list");
  assert.deepEqual(list.result.prompts.map((p: Json) => p.name), [
    "recall_context",
    "capture_session",
    "review_memory",
  ]);
  assert.deepEqual(list.result.prompts[0].arguments, [
    { name: "topic", description: "What the conversation is about.", required: true },
  ]);
  const ctx = await call(s, "prompts/get", {
    name: "recall_context",
    arguments: { topic: "topic 3" },
  });
  assert.ok(ctx.result.messages.length >= 2);
  assert.equal(ctx.result.messages[1].content.type, "resource");
  const cap = await call(s, "prompts/get", {
    name: "capture_session",
    arguments: { summary: "We fixed CI" },
  });
  assert.match(cap.result.messages[0].content.text, /We fixed CI/);
  const rev = await call(s, "prompts/get", { name: "review_memory", arguments: { labels: "l1" } });
  assert.match(rev.result.messages[0].content.text, /labelled l1/);
  assert.equal(
    (await call(s, "prompts/get", { name: "recall_context", arguments: {} })).error.code,
    -32602,
  );
  // A token in an argument is not said back.
  const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  for (
    const [name, args] of [
      ["recall_context", { topic: `zzz ${token}` }],
      ["capture_session", { summary: `token ${token}` }],
      ["review_memory", { labels: token }],
    ] as const
  ) {
    const got = await call(s, "prompts/get", { name, arguments: args });
    assert.ok(got.result, name);
    assert.ok(!JSON.stringify(got.result).includes(token.slice(4)), name);
  }
  const unknown = await call(s, "prompts/get", { name: "nope" });
  assert.equal(unknown.error.code, -32602);
  assert.equal(unknown.error.data.code, "MCP_NOT_FOUND");
  const topics = await call(s, "completion/complete", {
    ref: { type: "ref/prompt", name: "review_memory" },
    argument: { name: "labels", value: "l0,l" },
  });
  assert.deepEqual(topics.result.completion.values.sort(), ["l0,l1", "l0,l2"]);
});

Deno.test("createMemoMcpProtocolServer() refuses prompts/get without a string name as invalid params", async (t) => {
  const { server: s } = server();
  const cases: [string, Json][] = [
    ["no params", undefined],
    ["no name", { arguments: { topic: "x" } }],
    ["a number", { name: 7 }],
    ["null", { name: null }],
    ["an object", { name: { toString: "recall_context" } }],
  ];
  for (const [what, params] of cases) {
    await t.step(what, async () => {
      const reply = await call(s, "prompts/get", params);
      assert.equal(reply.error.code, -32602);
      assert.equal(reply.error.data.code, "MCP_VALIDATION_ERROR");
      assert.equal(reply.error.data.status, 400);
      assert.equal(reply.error.message, "Cannot get a prompt: params.name must be a string");
    });
  }
  await t.step("an unknown well-formed name stays MCP_NOT_FOUND", async () => {
    const reply = await call(s, "prompts/get", { name: "recall_contexts" });
    assert.equal(reply.error.code, -32602);
    assert.equal(reply.error.data.code, "MCP_NOT_FOUND");
  });
});

Deno.test("createMemoMcpProtocolServer() sends log notifications only after logging/setLevel", async () => {
  const sent: string[] = [];
  const records: unknown[] = [];
  const { server: s } = server({ logger: (r) => void records.push(r) });
  const ctx = { transport: "stdio" as const, notify: (m: string) => void sent.push(m) };
  await call(s, "tools/call", { name: "memory_stats", arguments: {} }, ctx);
  assert.equal(sent.length, 0);
  assert.equal(records.length, 1);
  assert.equal((await call(s, "logging/setLevel", { level: "bogus" }, ctx)).error.code, -32602);
  assert.deepEqual((await call(s, "logging/setLevel", { level: "info" }, ctx)).result, {});
  await call(s, "tools/call", { name: "memory_stats", arguments: {} }, ctx);
  assert.equal(sent.length, 1);
  const note = JSON.parse(sent[0]);
  assert.equal(note.method, "notifications/message");
  assert.equal(note.params.level, "info");
  assert.equal(note.id, undefined);
  await call(s, "logging/setLevel", { level: "error" }, ctx);
  await call(s, "tools/call", { name: "memory_stats", arguments: {} }, ctx);
  assert.equal(sent.length, 1);
});

Deno.test("createMemoMcpProtocolServer() drops the answer of a cancelled request", async () => {
  const { server: s } = server({}, 1);
  const slow = createFakeRuntime(1, { delayMs: 5_000 });
  const s2 = createMemoMcpProtocolServer({ runtime: slow });
  const pending = s2.handle(
    '{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"memory_stats"}}',
  );
  await until(() => slow.signals.length > 0, "the call to reach the runtime");
  assert.equal(
    await s2.handle(
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}',
    ),
    undefined,
  );
  assert.equal(await pending, undefined);
  assert.ok(slow.signals[0].aborted);
  assert.ok(await s.handle('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
});

Deno.test("memory_stats, memo://stats and recall carry the hybrid runtime's replica and origin", async (t) => {
  const base = createFakeRuntime(2);
  const replica = {
    outbox: 3,
    lastPush: "2025-01-02T00:00:00.000Z",
    lastPull: null,
    lagMs: null,
    conflicts: 1,
    error: "Cannot reach the Memo Cloud API at https://cloud.example: connection refused",
  };
  const runtime: MemoMcpRuntime = {
    ...base,
    kind: "hybrid",
    stats: async (options) => ({ ...await base.stats(options), replica }),
    recall: async (query, options) =>
      (await base.recall(query, options)).map((hit) => ({ ...hit, origin: "cloud" as const })),
  };
  const s = createMemoMcpProtocolServer({ runtime });
  const limits = { defaultPageSize: 25, maxPageSize: 100 };
  const outputOf = (name: string) => TOOLS.find((tool) => tool.name === name)!.bind(limits).output;
  await t.step(
    "memory_stats: structuredContent has replica, and its schema accepts it",
    async () => {
      const r = await call(s, "tools/call", { name: "memory_stats", arguments: {} });
      assert.deepEqual(r.result.structuredContent.replica, replica);
      assert.ok(outputOf("memory_stats").safeParse(r.result.structuredContent).success);
      const bad = { ...r.result.structuredContent, replica: { ...replica, lagMs: "soon" } };
      assert.ok(!outputOf("memory_stats").safeParse(bad).success, "the schema checks replica");
    },
  );
  await t.step(
    "tools/list: memory_stats declares replica, recall hits declare origin",
    async () => {
      const r = await call(s, "tools/list", undefined, {
        transport: "http",
        protocolVersion: "2025-11-25",
      });
      const tool = (name: string) => r.result.tools.find((tl: Json) => tl.name === name);
      const declared = tool("memory_stats").outputSchema.properties.replica;
      assert.deepEqual(Object.keys(declared.properties), [
        "outbox",
        "lastPush",
        "lastPull",
        "lagMs",
        "conflicts",
        "error",
      ]);
      assert.deepEqual(declared.required, ["outbox", "lastPush", "lastPull", "lagMs", "conflicts"]);
      const hit = tool("recall").outputSchema.properties.hits.items;
      assert.equal(hit.properties.origin.const, "cloud");
      assert.ok(!(hit.required ?? []).includes("origin"));
    },
  );
  await t.step("memo://stats passes replica through", async () => {
    const r = await call(s, "resources/read", { uri: "memo://stats" });
    assert.deepEqual(JSON.parse(r.result.contents[0].text).replica, replica);
  });
  await t.step("recall: hits keep origin cloud, and the schema accepts it", async () => {
    const r = await call(s, "tools/call", { name: "recall", arguments: { query: "topic" } });
    assert.ok(r.result.structuredContent.hits.length > 0);
    assert.ok(r.result.structuredContent.hits.every((h: Json) => h.origin === "cloud"));
    assert.ok(outputOf("recall").safeParse(r.result.structuredContent).success);
    const bad = { hits: [{ ...r.result.structuredContent.hits[0], origin: "local" }] };
    assert.ok(!outputOf("recall").safeParse(bad).success, "origin is cloud or absent");
  });
  await runtime.close();
});
