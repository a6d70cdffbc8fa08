/**
 * The one place where Deno and Node differ, and what serves HTTP on both: the
 * process side of the adapter (arguments, environment, stdin/stdout as web
 * streams, exit, terminal detection, shutdown signals; `process.ts`),
 * `serve()` on `Deno.serve` or `node:http` (`serve.ts`, which loads
 * `_node_serve.ts` on Node only), and the pieces that `memo serve` and the
 * reference Cloud API server share: the `/healthz` answer (`healthz.ts`), the
 * request log (`access_log.ts`) and the capped body read (`read_limited.ts`). No other folder touches `Deno.*` or `process`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HEALTHZ_PATH, hostName, serve } from "./mod.ts";
 *
 * const server = await serve(() => new Response("ok"), { hostname: "127.0.0.1", port: 0 });
 * const response = await fetch(`http://127.0.0.1:${server.port}${HEALTHZ_PATH}`);
 * assert.equal(await response.text(), "ok");
 * assert.ok(hostName === "deno" || hostName === "node");
 * await server.shutdown();
 * ```
 *
 * @module
 */

export * from "./process.ts";
export * from "./serve.ts";
export * from "./healthz.ts";
export * from "./access_log.ts";
export * from "./read_limited.ts";
