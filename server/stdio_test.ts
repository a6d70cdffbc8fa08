import assert from "node:assert/strict";
import { runStdioServer } from "./stdio.ts";
import { createMemoMcpProtocolServer } from "./protocol_server.ts";
import type { MemoMcpProtocolServer } from "./types.ts";
import { createFakeRuntime } from "../tests/fixtures/mcp_fake_runtime.ts";

const encoder = new TextEncoder();

/** Runs the stdio loop over the given input chunks; returns every output line. */
async function run(
  chunks: (string | Uint8Array)[],
  server: MemoMcpProtocolServer = createMemoMcpProtocolServer({ runtime: createFakeRuntime(2) }),
  options: { maxLineBytes?: number; bytes?: boolean } = {},
): Promise<string[]> {
  const { bytes, ...loop } = options;
  const source = {
    start(controller: ReadableStreamDefaultController<Uint8Array>) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  };
  // A byte stream (as Deno's stdin is) is read with a BYOB reader into one buffer.
  const input = bytes
    ? new ReadableStream({ type: "bytes", ...source } as UnderlyingByteSource)
    : new ReadableStream<Uint8Array>(source);
  let text = "";
  const decoder = new TextDecoder();
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      text += decoder.decode(chunk, { stream: true });
    },
  });
  await runStdioServer(server, { input, output, ...loop });
  assert.ok(text === "" || text.endsWith("\n"), "every message ends with a newline");
  return text.split("\n").filter((l) => l !== "");
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("runStdioServer() answers one message per line", async () => {
  const lines = await run([ping(1) + "\n" + ping(2) + "\n"]);
  assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), [1, 2]);
});

Deno.test("runStdioServer() joins partial lines split across chunks, even inside a character", async () => {
  const msg = encoder.encode(
    JSON.stringify({ jsonrpc: "2.0", id: "é€😀", method: "ping" }) + "\n",
  );
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < msg.length; i += 3) chunks.push(msg.slice(i, i + 3));
  const lines = await run(chunks);
  assert.deepEqual(JSON.parse(lines[0]), { jsonrpc: "2.0", id: "é€😀", result: {} });
});

Deno.test("runStdioServer() reads a byte stream into one reused buffer", async () => {
  const big = JSON.stringify({
    jsonrpc: "2.0",
    id: "big",
    method: "ping",
    pad: "x".repeat(150_000),
  });
  const msg = encoder.encode(
    `${ping(1)}\n${big}\n${ping(2)}\n${
      JSON.stringify({ jsonrpc: "2.0", id: "é€", method: "ping" })
    }\n`,
  );
  const chunks: Uint8Array[] = [];
  for (let i = 0, n = 1; i < msg.length; i += n, n = n * 7 % 70_001 + 1) {
    chunks.push(msg.slice(i, i + n));
  }
  const lines = await run(chunks, undefined, { bytes: true });
  assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), [1, 2, "big", "é€"]);
  assert.ok(lines.every((l) => JSON.parse(l).result), lines.join("\n").slice(0, 500));
});

Deno.test("runStdioServer() handles CRLF, blank lines and a last line without newline", async () => {
  const lines = await run(["\r\n\n  \n" + ping(1) + "\r\n\r\n" + ping(2) + "\n\n", ping(3)]);
  assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), [1, 2, 3]);
});

Deno.test("runStdioServer() counts a message's own bytes against maxInputBytes: a CR or a BOM is framing", async () => {
  const limit = 2048;
  const server = createMemoMcpProtocolServer({
    runtime: createFakeRuntime(2),
    maxInputBytes: limit,
  });
  /** A ping of exactly `bytes` bytes. */
  const pingOf = (id: number, bytes: number) => {
    const base = JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad: "" } });
    return base.replace('"pad":""', `"pad":"${"a".repeat(bytes - base.length)}"`);
  };
  const lines = await run([
    pingOf(1, limit) + "\r\n",
    "\uFEFF" + pingOf(2, limit) + "\n",
    pingOf(3, limit + 1) + "\r\n",
  ], server);
  const byId = new Map(lines.map((l) => [JSON.parse(l).id, JSON.parse(l)]));
  assert.deepEqual(byId.get(1).result, {});
  assert.deepEqual(byId.get(2).result, {});
  assert.deepEqual(byId.get(3).error.data.details, { limit, size: limit + 1 });
});

Deno.test("runStdioServer() answers invalid JSON with -32700 and goes on", async () => {
  const lines = await run(["{oops\n", ping(1) + "\n", "\u00ff\u00fe\n"]);
  const replies = lines.map((l) => JSON.parse(l));
  assert.equal(replies.filter((r) => r.error?.code === -32700 && r.id === null).length, 2);
  assert.ok(replies.some((r) => r.id === 1 && r.result));
});

Deno.test("runStdioServer() sends nothing for notifications and responses", async () => {
  const lines = await run([
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
    '{"jsonrpc":"2.0","id":9,"result":{}}\n',
  ]);
  assert.deepEqual(lines, []);
});

Deno.test("runStdioServer() handles requests concurrently and waits for them before resolving", async () => {
  const runtime = createFakeRuntime(2, { delayMs: 500 });
  const server = createMemoMcpProtocolServer({ runtime });
  const slow = JSON.stringify({
    jsonrpc: "2.0",
    id: "slow",
    method: "tools/call",
    params: { name: "memory_stats", arguments: {} },
  });
  const started = performance.now();
  const lines = await run([slow + "\n" + ping(1) + "\n"], server);
  assert.ok(performance.now() - started >= 490, "resolved only after the slow request");
  assert.deepEqual(lines.map((l) => JSON.parse(l).id), [1, "slow"], "the ping overtakes");
});

Deno.test("runStdioServer() drops a line over maxLineBytes with one -32600 and goes on", async () => {
  const long = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + "a".repeat(5000) + '"}}';
  const chunks = [long.slice(0, 2000), long.slice(2000) + "\n" + ping(2) + "\n"];
  const lines = await run(chunks, undefined, { maxLineBytes: 1000 });
  const replies = lines.map((l) => JSON.parse(l));
  assert.equal(replies.length, 2);
  assert.equal(replies[0].error.code, -32600);
  assert.equal(replies[1].id, 2);
});

Deno.test("runStdioServer() writes log notifications after logging/setLevel", async () => {
  const lines = await run([
    '{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}\n',
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_stats","arguments":{}}}\n',
  ]);
  const methods = lines.map((l) => JSON.parse(l).method).filter(Boolean);
  assert.deepEqual(methods, ["notifications/message"]);
});

Deno.test("runStdioServer() stops on abort and still answers what is in flight", async () => {
  const server = createMemoMcpProtocolServer({ runtime: createFakeRuntime(1) });
  let push!: (s: string) => void;
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (s) => controller.enqueue(encoder.encode(s));
    },
  });
  const out: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (c) => void out.push(new TextDecoder().decode(c)),
  });
  const stop = new AbortController();
  const done = runStdioServer(server, { input, output, signal: stop.signal });
  push(ping(1) + "\n");
  await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await done;
  assert.equal(JSON.parse(out.join("")).id, 1);
});

Deno.test("runStdioServer(): a line that is not UTF-8 is a parse error, not text with U+FFFD", async () => {
  const head = encoder.encode('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"');
  const tail = encoder.encode('"}}\n');
  const lines = await run([new Uint8Array([...head, 0xff, 0xfe, ...tail]), ping(2) + "\n"]);
  assert.equal(JSON.parse(lines[0]).error?.code, -32700, lines[0]);
  assert.deepEqual(JSON.parse(lines[1]), { jsonrpc: "2.0", id: 2, result: {} }); // and goes on
});

Deno.test("runStdioServer(): a line over maxLineBytes is dropped however its chunks fall, and one at the limit is served with its CR", async () => {
  const long = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + "a".repeat(5000) + '"}}';
  // The whole line in one chunk, and a line its second chunk completes (each chunk under the limit).
  for (const chunks of [[long + "\n"], [long.slice(0, 900), long.slice(900) + "\n"]]) {
    const lines = await run([...chunks, ping(2) + "\n"], undefined, { maxLineBytes: 1000 });
    assert.equal(JSON.parse(lines[0]).error?.code, -32600, lines[0]);
    assert.deepEqual(JSON.parse(lines[1]), { jsonrpc: "2.0", id: 2, result: {} });
  }
  const line = ping(1); // exactly maxLineBytes bytes, then CRLF, split before its end
  const lines = await run([line.slice(0, 10), line.slice(10) + "\r", "\n"], undefined, {
    maxLineBytes: line.length,
  });
  assert.deepEqual(JSON.parse(lines[0]), { jsonrpc: "2.0", id: 1, result: {} });
  const over = await run([line + "x\n"], undefined, { maxLineBytes: line.length });
  assert.equal(JSON.parse(over[0]).error?.code, -32600);
});
