/**
 * Benchmark peer: memo's hosted endpoint (`handleMemoMcpRequest`, what `deno serve http.ts`
 * serves) with timers inside the process, for `bench/http_ceiling.ts`: each request's time in the
 * handler (from the call to its `Response`) and, inside it, the time in the runtime's `recall`
 * (`recallDetailed` or `recall`, whichever the tool calls). `GET /__timers` answers the sums since
 * the last `GET /__timers?reset`, so that the bench reads the time outside `recall` per request at
 * the load it puts on, and compares it with the same timer in the bare peer
 * (`bench/peers/bare_answers.mjs`).
 *
 * Run: `deno run -A bench/peers/memo_timed.ts <port> <rootDir>`
 *
 * @module
 */

import { createMemoMcpRuntimeFromConfig, type MemoMcpRuntime } from "../../mod.ts";
import { handleMemoMcpRequest } from "../../http.ts";

const port = Number(Deno.args[0] ?? 8790);
const rootDir = Deno.args[1] ?? ".";

const timers = { requests: 0, handlerMs: 0, recalls: 0, recallMs: 0 };

const runtime: MemoMcpRuntime = createMemoMcpRuntimeFromConfig({ rootDir });

/** `fn` (the runtime's own method, bound once) with a timer around each call. */
function timedCall<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    const start = performance.now();
    try {
      return await fn(...args);
    } finally {
      timers.recallMs += performance.now() - start;
      timers.recalls++;
    }
  };
}

// The timers go on the runtime itself, once, around its two recall methods only: the rest of the
// runtime is the very object memo serves (a Proxy here cost an allocation on every property read,
// which the time outside recall then counted against memo).
runtime.recall = timedCall(runtime.recall.bind(runtime));
if (runtime.recallDetailed) {
  runtime.recallDetailed = timedCall(runtime.recallDetailed.bind(runtime));
}
const options = { runtime };

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: () => console.error(`memo-timed: listening on http://127.0.0.1:${port}/mcp`),
}, async (request) => {
  if (request.method === "GET" && request.url.includes("/__timers")) {
    const body = JSON.stringify(timers);
    if (request.url.endsWith("?reset")) {
      Object.assign(timers, { requests: 0, handlerMs: 0, recalls: 0, recallMs: 0 });
    }
    return new Response(body, { headers: { "content-type": "application/json" } });
  }
  const start = performance.now();
  const response = await handleMemoMcpRequest(request, options);
  timers.handlerMs += performance.now() - start;
  timers.requests++;
  return response;
});
