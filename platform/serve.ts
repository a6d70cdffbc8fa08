/**
 * The serving side of the Deno/Node adapter: `serve()` runs a web-standard handler on `Deno.serve`,
 * or on `node:http` through `_node_serve.ts`, which only Node loads.
 *
 * @module
 */

import type { PlatformServer, ServeOptions } from "./_serve_types.ts";

export type { PlatformServer, ServeOptions } from "./_serve_types.ts";

// Typed loosely on purpose: the npm build compiles this file without Deno's types.
// deno-lint-ignore no-explicit-any
const deno: any = (globalThis as any).Deno;

/**
 * Serves a web-standard handler over HTTP on Deno (`Deno.serve`) or Node (`node:http`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serve } from "./serve.ts";
 *
 * const server = await serve(() => new Response("hi"), { hostname: "127.0.0.1", port: 0 });
 * assert.notEqual(server.port, 0); // port 0 picked a free port
 * const response = await fetch(`http://127.0.0.1:${server.port}/`);
 * assert.equal(await response.text(), "hi");
 * await server.shutdown();
 * ```
 */
export async function serve(
  handler: (request: Request) => Response | Promise<Response>,
  options: ServeOptions,
): Promise<PlatformServer> {
  if (deno) {
    let listening!: (addr: { hostname: string; port: number }) => void;
    const ready = new Promise<{ hostname: string; port: number }>((r) => listening = r);
    // Deno cannot cut a graceful shutdown under way: aborting Deno.serve's signal then throws
    // BadResource out of Deno's own listener, which ends the process. The caller's signal is
    // passed on only until shutdown() is called; after that, a forced stop is the caller's to
    // make by not waiting any longer (a process that exits closes the connections with it).
    const forced = new AbortController();
    let shuttingDown = false;
    const force = () => {
      if (!shuttingDown) forced.abort(options.signal?.reason);
    };
    if (options.signal?.aborted) force();
    options.signal?.addEventListener("abort", force, { once: true });
    const server = deno.serve({
      hostname: options.hostname,
      port: options.port,
      signal: forced.signal,
      onListen: (addr: { hostname: string; port: number }) => listening(addr),
    }, handler);
    const addr = await ready;
    return {
      hostname: addr.hostname,
      port: addr.port,
      shutdown: () => {
        shuttingDown = true;
        return server.shutdown();
      },
      finished: server.finished,
    };
  }
  const { serveNode } = await import("./_node_serve.ts");
  return serveNode(handler, options);
}
