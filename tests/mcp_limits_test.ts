import assert from "node:assert/strict";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import type { AuthorizationContext, MemoMcpOptions, MemoMcpTimer } from "../server/options.ts";
import { createFakeRuntime } from "./fixtures/mcp_fake_runtime.ts";
import { until } from "../testing/wait.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const encoder = new TextEncoder();

function make(options: Partial<MemoMcpOptions> = {}, notes = 3) {
  const runtime = createFakeRuntime(notes);
  return { runtime, server: createMemoMcpProtocolServer({ runtime, ...options }) };
}

async function send(s: ReturnType<typeof make>["server"], msg: unknown): Promise<Json> {
  const reply = await s.handle(typeof msg === "string" ? msg : JSON.stringify(msg));
  return reply === undefined ? undefined : JSON.parse(reply);
}

const tool = (name: string, args: unknown, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** A remember request of exactly `bytes` UTF-8 bytes (with multi-byte text). */
function rememberOfSize(bytes: number): string {
  const base = JSON.stringify(tool("remember", { text: "é" }));
  let text = "é";
  let size = encoder.encode(base).length;
  while (size + 2 <= bytes) {
    text += "é";
    size += 2;
  }
  if (size < bytes) text += "a";
  const raw = JSON.stringify(tool("remember", { text }));
  assert.equal(encoder.encode(raw).length, bytes);
  return raw;
}

Deno.test("maxInputBytes accepts a message at the limit and refuses one byte past it", async () => {
  const limit = 4096;
  const { server } = make({ maxInputBytes: limit });
  const ok = await send(server, rememberOfSize(limit));
  assert.equal(ok.result.structuredContent.status, "written");
  const over = await send(server, rememberOfSize(limit + 1));
  assert.equal(over.id, 1);
  assert.equal(over.error.code, -32602);
  assert.equal(over.error.data.code, "MCP_VALIDATION_ERROR");
  assert.deepEqual(over.error.data.details, { limit, size: limit + 1 });
  // Bytes, not characters: the same check through handle(Uint8Array).
  const bytes = encoder.encode(rememberOfSize(limit + 1));
  assert.equal(JSON.parse((await server.handle(bytes))!).error.code, -32602);
  // An oversized notification gets no answer.
  const note = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { pad: "a".repeat(limit) } });
  assert.equal(await server.handle(note), undefined);
});

Deno.test("maxOutputBytes counts the whole response: at the limit ok, one byte past is -32012", async () => {
  const body = "Ünïcödé ".repeat(400);
  const measure = make({}, 0);
  const { note } = await measure.runtime.remember({ text: body });
  const request = tool("get_note", { id: note.id }, "out-1");
  const full = (await measure.server.handle(JSON.stringify(request)))!;
  const size = encoder.encode(full).length;
  for (const [limit, ok] of [[size, true], [size - 1, false]] as const) {
    const s = make({ maxOutputBytes: limit }, 0);
    s.runtime.notes.set(note.id, note);
    const reply = (await s.server.handle(JSON.stringify(request)))!;
    if (ok) assert.equal(reply, full);
    else {
      const r = JSON.parse(reply);
      assert.equal(r.id, "out-1");
      assert.equal(r.error.code, -32012);
      assert.equal(r.error.data.code, "MCP_OUTPUT_LIMIT");
      assert.deepEqual(r.error.data.details, { limit, size });
    }
  }
});

Deno.test("page size: 100 is accepted, 101 is a tool argument error", async (t) => {
  const { server } = make({}, 150);
  await t.step("list_notes", async () => {
    const ok = await send(server, tool("list_notes", { limit: 100 }));
    assert.equal(ok.result.structuredContent.notes.length, 100);
    assert.ok(ok.result.structuredContent.nextCursor);
    const over = await send(server, tool("list_notes", { limit: 101 }));
    assert.equal(over.result.isError, true);
    assert.equal(over.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
  });
  await t.step("list_notes defaults to 25", async () => {
    const page = await send(server, tool("list_notes", {}));
    assert.equal(page.result.structuredContent.notes.length, 25);
  });
  await t.step("recall", async () => {
    const ok = await send(server, tool("recall", { query: "note", limit: 100 }));
    assert.equal(ok.result.structuredContent.hits.length, 100);
    const over = await send(server, tool("recall", { query: "note", limit: 101 }));
    assert.equal(over.result.structuredContent.error.code, "MCP_VALIDATION_ERROR");
  });
  await t.step(
    "resources/list pages hold defaultPageSize entries, capped by maxPageSize",
    async () => {
      const big = make({ defaultPageSize: 100 }, 150);
      const page = await send(big.server, { jsonrpc: "2.0", id: 1, method: "resources/list" });
      assert.equal(page.result.resources.length, 100);
      assert.throws(() => make({ defaultPageSize: 101 }), /defaultPageSize/);
    },
  );
});

/** A timer the test fires by hand. */
function manualTimer() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timer: MemoMcpTimer & { fire(): number[]; readonly pending: number } = {
    get pending() {
      return pending.size;
    },
    setTimeout(callback, ms) {
      pending.set(++next, { callback, ms });
      return next;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    fire() {
      const fired = [...pending.values()].map((p: Json) => p.ms);
      for (const [k, p] of [...pending]) {
        pending.delete(k);
        p.callback();
      }
      return fired;
    },
  };
  return timer;
}

Deno.test("requestTimeoutMs: an answer before the deadline passes, the deadline itself is MCP_TIMEOUT", async () => {
  const timer = manualTimer();
  const { server, runtime } = make({ requestTimeoutMs: 1234, timer });
  const ok = await send(server, tool("memory_stats", {}));
  assert.equal(ok.result.structuredContent.notes, 3);
  runtime.options.delayMs = 60_000;
  const pending = send(server, tool("memory_stats", {}, 2));
  await until(() => timer.pending > 0, "the request's deadline timer");
  assert.deepEqual(timer.fire(), [1234]);
  const r = await pending;
  assert.equal(r.error.code, -32011);
  assert.equal(r.error.data.code, "MCP_TIMEOUT");
  assert.ok(runtime.signals.at(-1)!.aborted, "the runtime's signal is aborted");
});

Deno.test("requestTimeoutMs: a write the deadline finds past its point of no return answers what it wrote", async () => {
  const timer = manualTimer();
  const { server, runtime } = make({ requestTimeoutMs: 1234, timer });
  const real = runtime.remember.bind(runtime);
  let finish!: () => void;
  const signals: AbortSignal[] = [];
  // A write that no longer stops: it hears its signal, and writes all the same.
  runtime.remember = (input, options) => {
    signals.push(options!.signal!);
    return new Promise<void>((resolve) => finish = resolve).then(() => real(input, {}));
  };
  const pending = send(server, tool("remember", { text: "written after the deadline" }));
  await until(() => timer.pending > 0 && finish !== undefined, "the call and its deadline");
  timer.fire(); // the deadline: the call's signal aborts, the answer waits for the write
  assert.ok(signals[0].aborted);
  finish();
  const r = await pending;
  assert.equal(r.error, undefined, JSON.stringify(r));
  assert.equal(r.result.structuredContent.status, "written");
  assert.equal(r.result.structuredContent.note.body, "written after the deadline");

  // One that never says: the timeout, another requestTimeoutMs later.
  runtime.remember = () => new Promise(() => {});
  const stuck = send(server, tool("remember", { text: "never answers" }, 2));
  await until(() => timer.pending > 0, "the deadline");
  assert.deepEqual(timer.fire(), [1234]);
  await until(() => timer.pending > 0, "the second deadline");
  assert.deepEqual(timer.fire(), [1234]);
  const late = await stuck;
  assert.equal(late.error.code, -32011);
  assert.equal(late.error.data.code, "MCP_TIMEOUT");
});

Deno.test("requestTimeoutMs abandons a slow runtime with real timers", async () => {
  const { server, runtime } = make({ requestTimeoutMs: 100 });
  runtime.options.delayMs = 10_000;
  const started = performance.now();
  for (
    const msg of [
      tool("recall", { query: "x" }),
      { jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "memo://stats" } },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "prompts/get",
        params: { name: "recall_context", arguments: { topic: "x" } },
      },
    ]
  ) {
    const r = await send(server, msg);
    assert.equal(r.error.code, -32011, JSON.stringify(r));
  }
  // Each answered at its 100 ms deadline: one that waited for the runtime would take 10 s.
  const took = performance.now() - started;
  assert.ok(took < 10_000, `took ${took.toFixed(0)} ms`);
  assert.ok(runtime.signals.every((s) => s.aborted));
});

Deno.test("authorize is called for every write tool and a refusal is -32010", async () => {
  const seen: AuthorizationContext[] = [];
  const { server } = make({
    authorize: (ctx) => {
      seen.push(ctx);
      return ctx.tool === "remember";
    },
  });
  const writes: [string, unknown][] = [
    ["update_note", { id: "n1", title: "t" }],
    ["forget", { id: "n1" }],
    ["sync_connectors", {}],
  ];
  for (const [name, args] of writes) {
    const r = await send(server, tool(name, args));
    assert.equal(r.error.code, -32010, name);
    assert.equal(r.error.data.code, "MCP_AUTHORIZATION_ERROR");
    assert.equal(r.error.data.status, 403);
  }
  const ok = await send(server, tool("remember", { text: "allowed" }));
  assert.equal(ok.result.structuredContent.status, "written");
  for (const read of ["recall", "get_note", "list_notes", "memory_stats"]) {
    await send(
      server,
      tool(read, read === "recall" ? { query: "x" } : read === "get_note" ? { id: "x" } : {}),
    );
  }
  assert.deepEqual(seen.map((c) => c.tool), [
    "update_note",
    "forget",
    "sync_connectors",
    "remember",
  ]);
  assert.equal(seen[0].transport, "stdio");
  assert.deepEqual(seen[3].arguments, { text: "allowed" });
});

Deno.test("authorize that throws or returns a non-true value refuses the write", async () => {
  for (
    const authorize of [() => Promise.reject(new Error("boom")), () => "yes" as unknown as boolean]
  ) {
    const { server } = make({ authorize });
    const r = await send(server, tool("remember", { text: "x" }));
    assert.equal(r.error.code, -32010);
    assert.doesNotMatch(JSON.stringify(r), /boom/);
  }
});

Deno.test("readOnly refuses every write with MCP_AUTHORIZATION_ERROR and serves reads", async () => {
  const { server, runtime } = make({ readOnly: true, authorize: () => true });
  const id = [...runtime.notes.keys()][0];
  for (
    const [name, args] of [
      ["remember", { text: "x" }],
      ["update_note", { id, title: "t" }],
      ["forget", { id }],
      ["sync_connectors", {}],
    ] as const
  ) {
    const r = await send(server, tool(name, args));
    assert.equal(r.error.code, -32010, name);
    assert.match(r.error.message, /read-only/);
  }
  assert.equal(runtime.notes.size, 3);
  const read = await send(server, tool("get_note", { id }));
  assert.equal(read.result.structuredContent.note.id, id);
});

Deno.test("redact: the redacted value never appears in errors, logs or authorize", async () => {
  const SECRET = "hunter2-do-not-leak-7f3a";
  const logs: string[] = [];
  const sent: string[] = [];
  const contexts: unknown[] = [];
  const { server } = make({
    redact: (args) => {
      const a = { ...(args as Record<string, unknown>) };
      for (const k of Object.keys(a)) if (k !== "labels") a[k] = "[hidden]";
      return a;
    },
    logger: (r) => void logs.push(JSON.stringify(r)),
    authorize: (ctx) => {
      contexts.push(ctx.arguments);
      return false;
    },
  });
  const ctx = { transport: "stdio" as const, notify: (m: string) => void sent.push(m) };
  await server.handle(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "logging/setLevel",
      params: { level: "debug" },
    }),
    ctx,
  );
  const replies = [
    await server.handle(JSON.stringify(tool("get_note", { id: SECRET })), ctx),
    await server.handle(JSON.stringify(tool("get_note", { id: SECRET, extra: SECRET })), ctx),
    await server.handle(JSON.stringify(tool("remember", { text: SECRET })), ctx),
    await server.handle(JSON.stringify(tool("recall", { query: SECRET, limit: SECRET })), ctx),
    await server.handle(JSON.stringify(tool("list_notes", { cursor: SECRET })), ctx),
    await server.handle(
      JSON.stringify(
        tool("get_note", { id: 5, token: "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }),
      ),
      ctx,
    ),
  ];
  const everything = [...replies, ...logs, ...sent, JSON.stringify(contexts)].join("\n");
  assert.ok(logs.length >= 6 && sent.length >= 6, "logs were written");
  assert.doesNotMatch(everything, new RegExp(SECRET));
  assert.doesNotMatch(everything, /ghp_abcdef/);
  // Where the secret was: [REDACTED] in the error the client and the log get, and
  // redact()'s [hidden] in the arguments the log gets.
  assert.match(replies[0] ?? "", /"text":"Cannot find note \[REDACTED\]"/);
  assert.match(logs.join("\n"), /"message":"Cannot find note \[REDACTED\]"/);
  assert.match(logs.join("\n"), /"tool":"get_note","arguments":\{"id":"\[hidden\]"\}/);
  assert.deepEqual(contexts, [{ text: "[hidden]" }]);
});

Deno.test("MemoMcpOptions defaults: name memo, 25/100 pages, 30 s, 256000 and 512000 bytes", async () => {
  const { resolveMemoMcpOptions } = await import("../server/options.ts");
  const r = resolveMemoMcpOptions({ runtime: createFakeRuntime() });
  assert.equal(r.name, "memo");
  assert.equal(r.defaultPageSize, 25);
  assert.equal(r.maxPageSize, 100);
  assert.equal(r.requestTimeoutMs, 30000);
  assert.equal(r.maxInputBytes, 256000);
  assert.equal(r.maxOutputBytes, 512000);
  assert.equal(r.readOnly, false);
  assert.throws(() => resolveMemoMcpOptions({ runtime: createFakeRuntime(), maxInputBytes: 0 }));
  // deno-lint-ignore no-explicit-any
  assert.throws(() => resolveMemoMcpOptions({} as any), /runtime is required/);
});
