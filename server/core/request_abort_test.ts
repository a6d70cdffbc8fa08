/**
 * A request passed on by a transport that makes its signal on demand (HTTP): the core hears of its
 * abort through the transport's hook, the call's signal is the request's own, and a timeout or the
 * client's departure still reaches the runtime.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createMemoMcpProtocolServer } from "../protocol_server.ts";
import type { MemoMcpTimer } from "../options.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { until } from "../../testing/wait.ts";
import { ON_ABORT } from "./request_abort.ts";

/** An HTTP-like context: it counts reads of its signal, and keeps its hook's listeners. */
function hookedContext() {
  const listeners = new Set<() => void>();
  let signalReads = 0;
  let hooked = 0;
  const context: MemoMcpRequestContext & { [ON_ABORT]: (l: () => void) => () => void } = {
    transport: "http",
    protocolVersion: "2025-11-25",
    get signal() {
      signalReads++;
      return new AbortController().signal;
    },
    [ON_ABORT](listener) {
      hooked++;
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    context,
    listeners,
    get signalReads() {
      return signalReads;
    },
    get hooked() {
      return hooked;
    },
    /** The client goes away. */
    abort() {
      for (const listener of [...listeners]) listener();
    },
  };
}

const call = (name: string, id = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });

Deno.test("a tool call passed on by HTTP never makes its transport's signal: it listens on the hook, and stops when answered", async () => {
  const runtime = createFakeRuntime(3);
  const server = createMemoMcpProtocolServer({ runtime });
  const http = hookedContext();
  const answer = JSON.parse((await server.handle(call("memory_stats"), http.context))!);
  assert.equal(answer.result.structuredContent.notes, 3);
  assert.equal(http.signalReads, 0, "the transport's signal was never made");
  assert.equal(http.hooked, 2, "the core listened on the hook, and so did the call's own signal");
  // The core stopped listening once answered; the call's signal stays linked as long as the
  // message (the HTTP context drops its listeners when the answer is out).
  assert.equal(http.listeners.size, 1);
  assert.equal(runtime.signals.at(-1)!.aborted, false, "the runtime got a signal of its own");
});

Deno.test("the client going away (the hook) aborts the runtime's signal and leaves the call unanswered", async () => {
  const runtime = createFakeRuntime(3, { delayMs: 30_000 });
  const server = createMemoMcpProtocolServer({ runtime });
  const http = hookedContext();
  const pending = server.handle(call("memory_stats"), http.context);
  await until(() => runtime.signals.length > 0, "the call to reach the runtime");
  http.abort();
  assert.equal(await pending, undefined, "a cancelled request gets no answer");
  assert.ok(runtime.signals.at(-1)!.aborted, "the runtime's signal is aborted");
  assert.equal(http.signalReads, 0);
});

Deno.test("a passed-on call over a transport without the hook stops listening to its signal once answered", async () => {
  const runtime = createFakeRuntime(3);
  const server = createMemoMcpProtocolServer({ runtime });
  const transport = new AbortController();
  let listening = 0;
  const add = transport.signal.addEventListener.bind(transport.signal);
  const remove = transport.signal.removeEventListener.bind(transport.signal);
  transport.signal.addEventListener = (
    ...args: Parameters<typeof add>
  ) => (listening++, add(...args));
  transport.signal.removeEventListener = (...args: Parameters<typeof remove>) => (
    listening--, remove(...args)
  );
  const context = {
    transport: "http" as const,
    protocolVersion: "2025-11-25",
    signal: transport.signal,
  };
  for (let id = 1; id <= 3; id++) {
    const answer = JSON.parse((await server.handle(call("memory_stats", id), context))!);
    assert.equal(answer.result.structuredContent.notes, 3);
  }
  assert.equal(listening, 0, "no listener left on a signal that outlives the requests");
  // …and while a call runs, the transport's abort reaches it.
  runtime.options.delayMs = 30_000;
  const pending = server.handle(call("memory_stats", 4), context);
  await until(() => runtime.signals.length > 3, "the call to reach the runtime");
  transport.abort();
  assert.equal(await pending, undefined);
  assert.ok(runtime.signals.at(-1)!.aborted);
});

Deno.test("a passed-on call's timeout aborts the runtime's signal and answers MCP_TIMEOUT", async () => {
  let fire: (() => void) | undefined;
  const timer: MemoMcpTimer = {
    setTimeout(callback) {
      fire = callback;
      return 1;
    },
    clearTimeout() {
      fire = undefined;
    },
  };
  const runtime = createFakeRuntime(3, { delayMs: 30_000 });
  const server = createMemoMcpProtocolServer({ runtime, requestTimeoutMs: 1234, timer });
  const http = hookedContext();
  const pending = server.handle(call("memory_stats"), http.context);
  await until(() => runtime.signals.length > 0 && fire !== undefined, "the call and its deadline");
  fire!();
  const answer = JSON.parse((await pending)!);
  assert.equal(answer.error.code, -32011);
  assert.equal(answer.error.data.code, "MCP_TIMEOUT");
  assert.ok(runtime.signals.at(-1)!.aborted, "the runtime's signal is aborted");
  assert.equal(
    runtime.signals.at(-1)!.reason?.code,
    "MCP_TIMEOUT",
    "with the timeout as its reason",
  );
});
