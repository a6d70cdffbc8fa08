/**
 * The types of serving HTTP that `_serve.ts` (Deno) and `_node_serve.ts` (Node) share, in a file of
 * their own so that neither imports the other's module for them.
 *
 * @module
 */

/**
 * A running HTTP server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PlatformServer, serve } from "./serve.ts";
 *
 * const server: PlatformServer = await serve(() => new Response(null, { status: 204 }), {
 *   hostname: "127.0.0.1",
 *   port: 0,
 * });
 * assert.equal(server.hostname, "127.0.0.1");
 * assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 204);
 * await server.shutdown();
 * await server.finished;
 * ```
 */
export interface PlatformServer {
  /** Address actually bound (port 0 resolves to a free port). */
  readonly hostname: string;
  /** Port actually bound. */
  readonly port: number;
  /**
   * Stops accepting connections and lets the requests in flight finish (idle connections are
   * closed); aborting `signal` closes every connection. On Deno, a signal aborted once `shutdown()`
   * was called no longer cuts the requests in flight (Deno cannot): stop waiting for `finished`
   * instead, and the process's exit closes them.
   */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  readonly finished: Promise<void>;
}

/**
 * Options of `serve()` in `_serve.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serve, type ServeOptions } from "./serve.ts";
 *
 * const controller = new AbortController();
 * const options: ServeOptions = { hostname: "127.0.0.1", port: 0, signal: controller.signal };
 * const server = await serve(() => new Response("ok"), options);
 * assert.equal(await (await fetch(`http://127.0.0.1:${server.port}/`)).text(), "ok");
 * controller.abort(); // stops the server, like shutdown()
 * await server.finished;
 * ```
 */
export interface ServeOptions {
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Abort to stop the server at once, closing every connection. */
  signal?: AbortSignal;
}
