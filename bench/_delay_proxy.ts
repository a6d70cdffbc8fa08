/**
 * A loopback HTTP proxy that puts a server "far away": every request waits
 * half the delay before it is forwarded and the other half before its answer
 * is sent, so each round trip through the proxy takes `delayMs` more.
 * Requests are delayed independently (latency, not bandwidth: two requests at
 * once both take `delayMs`). `GET /__proxy/stats` is answered by the proxy
 * itself, at once, with the counts (`requests`, `bytesIn`, `bytesOut`).
 *
 * `bench/hybrid_bench.ts` runs it as its own process, so that its work does
 * not land in the measured process:
 *
 * ```sh
 * deno run -A bench/_delay_proxy.ts --target http://127.0.0.1:8788 --delay 100
 * # prints {"origin":"http://127.0.0.1:PORT"} on stdout, then serves until killed
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";

/** Options of {@linkcode startDelayProxy}. */
export interface DelayProxyOptions {
  /** Origin to forward to, e.g. `http://127.0.0.1:8788`. */
  target: string;
  /** Added to every round trip, in ms (half on the way in, half on the way out). */
  delayMs: number;
  /**
   * Port to listen on (loopback).
   * @default 0 (any free port)
   */
  port?: number;
}

/** What the proxy has forwarded so far. */
export interface DelayProxyStats {
  /** Requests forwarded (the stats route not counted). */
  requests: number;
  /** Request body bytes forwarded. */
  bytesIn: number;
  /** Answer body bytes sent back. */
  bytesOut: number;
}

/** A running delaying proxy. */
export interface DelayProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** Counts so far. */
  stats(): DelayProxyStats;
  /** Stops listening and waits for requests under way. */
  close(): Promise<void>;
}

/** The proxy's own route, answered without delay. */
export const DELAY_PROXY_STATS_PATH = "/__proxy/stats";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Starts a delaying proxy in this process.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startDelayProxy } from "./_delay_proxy.ts";
 *
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("hi"));
 * const proxy = await startDelayProxy({ target: `http://127.0.0.1:${server.addr.port}`, delayMs: 40 });
 * const started = performance.now();
 * const res = await fetch(`${proxy.origin}/x`);
 * assert.equal(await res.text(), "hi");
 * assert.ok(performance.now() - started >= 38);
 * assert.equal(proxy.stats().requests, 1);
 * await proxy.close();
 * await server.shutdown();
 * ```
 */
export function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  const counts: DelayProxyStats = { requests: 0, bytesIn: 0, bytesOut: 0 };
  const before = Math.floor(options.delayMs / 2);
  const after = options.delayMs - before;
  const target = options.target;

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === DELAY_PROXY_STATS_PATH) return Response.json(counts);
    counts.requests++;
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    counts.bytesIn += body?.byteLength ?? 0;
    const headers = new Headers(request.headers);
    headers.delete("host");
    if (before > 0) await sleep(before);
    let answer: Response;
    try {
      answer = await fetch(new URL(url.pathname + url.search, target), {
        method: request.method,
        headers,
        body,
        redirect: "manual",
      });
    } catch {
      if (after > 0) await sleep(after);
      return new Response(null, { status: 502 });
    }
    const bytes = new Uint8Array(await answer.arrayBuffer());
    counts.bytesOut += bytes.byteLength;
    const out = new Headers(answer.headers);
    out.delete("content-length");
    out.delete("content-encoding");
    out.delete("transfer-encoding");
    if (after > 0) await sleep(after);
    return new Response(request.method === "HEAD" ? null : bytes, {
      status: answer.status,
      headers: out,
    });
  }

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      onListen({ port }) {
        resolve({
          origin: `http://127.0.0.1:${port}`,
          stats: () => ({ ...counts }),
          close: () => server.shutdown(),
        });
      },
    }, handle);
  });
}

/**
 * Reads a proxy's counts over HTTP (for a proxy in another process).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { proxyStats, startDelayProxy } from "./_delay_proxy.ts";
 *
 * const proxy = await startDelayProxy({ target: "http://127.0.0.1:9", delayMs: 0 });
 * assert.deepEqual(await proxyStats(proxy.origin), { requests: 0, bytesIn: 0, bytesOut: 0 });
 * await proxy.close();
 * ```
 */
export async function proxyStats(origin: string): Promise<DelayProxyStats> {
  const res = await fetch(`${origin}${DELAY_PROXY_STATS_PATH}`);
  return await res.json();
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      target: { type: "string" },
      delay: { type: "string", default: "100" },
      port: { type: "string", default: "0" },
    },
  });
  if (!values.target) {
    console.error("delay proxy: --target ORIGIN is required");
    Deno.exit(2);
  }
  const proxy = await startDelayProxy({
    target: values.target,
    delayMs: Number(values.delay),
    port: Number(values.port),
  });
  console.log(JSON.stringify({ origin: proxy.origin }));
}
