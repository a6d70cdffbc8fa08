/**
 * Change notifications: `subscriptions/listen` (2026-07-28) over stdio and
 * over HTTP (a POST-response SSE stream with keep-alives, bounded by
 * `maxListenStreams`), and `resources/subscribe` for session-era stdio clients.
 * Every listener is released when a stream ends, and the tests run with
 * Deno's op and resource sanitizers on, so a leaked timer or watcher fails.
 */

import assert from "node:assert/strict";
import { createMemoMcpProtocolServer } from "../server/protocol_server.ts";
import { createHttpHandler } from "../server/http/handler.ts";
import type { MemoMcpProtocolServer } from "../server/types.ts";
import { createFakeRuntime, type FakeRuntime } from "./fixtures/mcp_fake_runtime.ts";
import type { Json } from "./fixtures/mcp_protocol_calls.ts";
import { readUntil as readWithin } from "../testing/wait.ts";

const SANITIZE = { sanitizeOps: true, sanitizeResources: true };
const STATELESS = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": STATELESS,
  "io.modelcontextprotocol/clientCapabilities": {},
};
const SUB_ID = "io.modelcontextprotocol/subscriptionId";
const FILTER = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
  resourceSubscriptions: ["memo://stats", "memo://notes/n000001", "https://elsewhere.example/x"],
};

function listenMessage(id: number | string, notifications: unknown = FILTER): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { _meta: META, notifications },
  });
}

/** A stdio-like connection: what the server notifies, and a way to close it. */
function connection() {
  const sent: Json[] = [];
  const closed = new AbortController();
  return {
    sent,
    close: () => closed.abort(),
    context: {
      transport: "stdio" as const,
      notify: (m: string) => void sent.push(JSON.parse(m)),
      closed: closed.signal,
    },
  };
}

/** A session's `initialize` (2025-11-25), as a client sends it first. */
const INITIALIZE = {
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  },
};

/** Sends one JSON-RPC message on a connection's context; its parsed reply, if one came. */
function sender(server: MemoMcpProtocolServer, context: ReturnType<typeof connection>["context"]) {
  return async (m: Record<string, unknown>) => {
    const reply = await server.handle(JSON.stringify({ jsonrpc: "2.0", ...m }), context);
    return reply === undefined ? undefined : JSON.parse(reply);
  };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await tick(5);
  }
}

Deno.test({
  name:
    "subscriptions/listen on stdio acknowledges what memo honours, then tags every change with the subscription id",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(2);
    const server = createMemoMcpProtocolServer({ runtime, requestTimeoutMs: 30 });
    const conn = connection();
    const answer = server.handle(listenMessage(7), conn.context);
    await until(() => conn.sent.length === 1, "the acknowledgement");
    assert.deepEqual(conn.sent[0], {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        _meta: { [SUB_ID]: 7 },
        notifications: {
          resourcesListChanged: true,
          resourceSubscriptions: ["memo://stats", "memo://notes/n000001"],
        },
      },
    });
    assert.equal(runtime.watchers, 1);
    await tick(60); // past requestTimeoutMs: a listen is exempt
    runtime.emitChange({ ids: ["n000001"], listChanged: false });
    runtime.emitChange({ ids: ["n000099"], listChanged: true });
    assert.deepEqual(
      conn.sent.slice(1).map((m) => [m.method, m.params.uri, m.params._meta[SUB_ID]]),
      [
        ["notifications/resources/updated", "memo://stats", 7],
        ["notifications/resources/updated", "memo://notes/n000001", 7],
        ["notifications/resources/list_changed", undefined, 7],
        ["notifications/resources/updated", "memo://stats", 7],
      ],
    );
    // The client cancels: no answer, and the watch is released.
    await server.handle(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 7 },
      }),
      conn.context,
    );
    assert.equal(await answer, undefined);
    assert.equal(runtime.watchers, 0);
    runtime.emitChange({ ids: [], listChanged: true });
    assert.equal(conn.sent.length, 5, "nothing after the end");
  },
});

Deno.test({
  name: "subscriptions/listen ends with a completion result when the connection closes",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(0);
    const server = createMemoMcpProtocolServer({ runtime });
    const conn = connection();
    const answer = server.handle(listenMessage("s1", { resourcesListChanged: true }), conn.context);
    await until(() => conn.sent.length === 1, "the acknowledgement");
    conn.close();
    const reply = JSON.parse((await answer)!);
    assert.equal(reply.id, "s1");
    assert.equal(reply.result.resultType, "complete");
    assert.equal(reply.result._meta[SUB_ID], "s1");
    assert.equal(runtime.watchers, 0);
  },
});

Deno.test({
  name:
    "subscriptions/listen refuses a malformed filter, a session-era request, and one past maxListenStreams",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(0);
    const server = createMemoMcpProtocolServer({ runtime, maxListenStreams: 1 });
    const conn = connection();
    const bad = JSON.parse((await server.handle(listenMessage(1, "all"), conn.context))!);
    assert.equal(bad.error.code, -32602);
    const sessionEra = JSON.parse(
      (await server.handle(
        '{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{}}}',
        conn.context,
      ))!,
    );
    assert.equal(sessionEra.error.code, -32601);
    const first = server.handle(listenMessage(3), conn.context);
    await until(() => runtime.watchers === 1, "the first listen");
    const second = JSON.parse((await server.handle(listenMessage(4), conn.context))!);
    assert.equal(second.error.code, -31503);
    assert.match(second.error.message, /1 streams are open/);
    conn.close();
    assert.equal(JSON.parse((await first)!).id, 3);
  },
});

// ---- HTTP ----

function httpListen(
  handler: (r: Request) => Promise<Response>,
  id: number,
  signal?: AbortSignal,
): Promise<Response> {
  return handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": STATELESS,
        "mcp-method": "subscriptions/listen",
      },
      body: listenMessage(id),
      signal,
    }),
  );
}

function handlerOn(runtime: FakeRuntime, maxListenStreams = 2) {
  const server: MemoMcpProtocolServer = createMemoMcpProtocolServer({ runtime });
  return createHttpHandler(
    {
      allowedOrigins: [],
      auth: {},
      maxInputBytes: 256000,
      maxListenStreams,
      listenKeepAliveMs: 20,
    },
    () => server,
  );
}

/** Reads SSE text from `res` until `check` holds on what arrived. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  check: (text: string) => boolean,
  sofar = "",
): Promise<string> {
  const got = await readWithin(reader, check, "the listen stream's next event", { sofar });
  if (got.done) throw new Error(`stream ended before expected: ${got.text}`);
  return got.text;
}

Deno.test({
  name:
    "HTTP subscriptions/listen streams SSE: acknowledgement, keep-alives and changes, until the client goes away",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(1);
    const handle = handlerOn(runtime);
    const res = await httpListen(handle, 11);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    assert.equal(res.headers.get("x-accel-buffering"), "no");
    const reader = res.body!.getReader();
    let text = await readUntil(reader, (t) => t.includes("acknowledged"));
    assert.match(
      text,
      /^event: message\ndata: \{"jsonrpc":"2.0","method":"notifications\/subscriptions\/acknowledged"/,
    );
    text = await readUntil(reader, (t) => t.includes(": keep-alive"), text);
    runtime.emitChange({ ids: ["n000001"], listChanged: true });
    text = await readUntil(reader, (t) => t.includes(`"uri":"memo://notes/n000001"`), text);
    assert.match(text, /notifications\/resources\/list_changed/);
    const events = text.split("\n\n").filter((e) => e.startsWith("event: message"));
    for (const e of events) {
      assert.equal(JSON.parse(e.slice(e.indexOf("data: ") + 6)).params._meta[SUB_ID], 11);
    }
    await reader.cancel();
    await until(() => runtime.watchers === 0, "the watch to be released");
  },
});

Deno.test({
  name:
    "HTTP subscriptions/listen past maxListenStreams is 503 with Retry-After, and a freed slot is reused",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(0);
    const handle = handlerOn(runtime, 1);
    const first = await httpListen(handle, 1);
    assert.equal(first.status, 200);
    const reader = first.body!.getReader();
    await readUntil(reader, (t) => t.includes("acknowledged"));
    const refused = await httpListen(handle, 2);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    const body = await refused.json();
    assert.equal(body.id, 2);
    assert.equal(body.error.code, -31503);
    assert.match(body.error.message, /^Cannot listen: 1 streams are open/);
    await reader.cancel();
    await until(() => runtime.watchers === 0, "the first stream to end");
    await tick(5);
    const again = await httpListen(handle, 3);
    assert.equal(again.status, 200);
    await again.body!.cancel();
    await until(() => runtime.watchers === 0, "the last stream to end");
  },
});

Deno.test({
  name:
    "session-era stdio clients get resources/subscribe, updated and list_changed; session-era HTTP does not",
  ...SANITIZE,
  async fn() {
    const runtime = createFakeRuntime(2);
    const server = createMemoMcpProtocolServer({ runtime });
    const conn = connection();
    const send = sender(server, conn.context);
    const init = await send(INITIALIZE);
    assert.deepEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true });
    await send({ method: "notifications/initialized" });
    assert.equal(runtime.watchers, 1);
    assert.deepEqual(
      (await send({
        id: 2,
        method: "resources/subscribe",
        params: { uri: "memo://notes/n000002" },
      })).result,
      {},
    );
    const unknown = await send({
      id: 3,
      method: "resources/subscribe",
      params: { uri: "file:///x" },
    });
    assert.equal(unknown.error.code, -32002);
    runtime.emitChange({ ids: ["n000002"], listChanged: false });
    runtime.emitChange({ ids: ["n000003"], listChanged: true });
    assert.deepEqual(conn.sent.map((m) => [m.method, m.params?.uri]), [
      ["notifications/resources/updated", "memo://notes/n000002"],
      ["notifications/resources/list_changed", undefined],
    ]);
    await send({ id: 4, method: "resources/unsubscribe", params: { uri: "memo://notes/n000002" } });
    runtime.emitChange({ ids: ["n000002"], listChanged: false });
    assert.equal(conn.sent.length, 2, "no update after unsubscribe");
    conn.close();
    assert.equal(runtime.watchers, 0, "the connection's end releases the watch");

    // Over HTTP, where memo keeps no session, the session era has no way to send changes.
    const http = createMemoMcpProtocolServer({ runtime: createFakeRuntime(0) });
    const context = { transport: "http" as const, protocolVersion: "2025-11-25" };
    const httpInit = JSON.parse(
      (await http.handle(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}',
        context,
      ))!,
    );
    assert.deepEqual(httpInit.result.capabilities.resources, {
      subscribe: false,
      listChanged: false,
    });
    const httpSub = JSON.parse(
      (await http.handle(
        '{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"memo://stats"}}',
        context,
      ))!,
    );
    assert.equal(httpSub.error.code, -32601);
  },
});

Deno.test("resources/subscribe and resources/unsubscribe take a note's URI however it is encoded: one note, one subscription", async () => {
  const runtime = createFakeRuntime(2);
  const server = createMemoMcpProtocolServer({ runtime });
  const { sent, close, context } = connection();
  const send = sender(server, context);
  try {
    await send(INITIALIZE);
    await send({ method: "notifications/initialized" });
    // n000002 with its first letter percent-encoded, then as memo writes it: the same note.
    await send({ id: 2, method: "resources/subscribe", params: { uri: "memo://notes/%6E000002" } });
    await send({ id: 3, method: "resources/subscribe", params: { uri: "memo://notes/n000002" } });
    runtime.emitChange({ ids: ["n000002"], listChanged: false });
    assert.deepEqual(sent, [{
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "memo://notes/n000002" },
    }]);
    await send({
      id: 4,
      method: "resources/unsubscribe",
      params: { uri: "memo://notes/%6e000002" },
    });
    runtime.emitChange({ ids: ["n000002"], listChanged: false });
    assert.equal(sent.length, 1, "no update after unsubscribing from the same note");
  } finally {
    close();
  }
});
