/**
 * The one place where Deno and Node differ (the process, serving HTTP), and
 * what `memo serve` and the Cloud API server share: `/healthz`, the request
 * log, the capped body read. No other folder touches `Deno.*` or `process`.
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
export * from "./text_response.ts";
export * from "./healthz.ts";
export * from "./access_log.ts";
export * from "./read_limited.ts";
export * from "./run_program.ts";
export * from "./files.ts";
export * from "./spawn_detached.ts";
export * from "./memory.ts";
