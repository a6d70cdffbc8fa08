/**
 * The cloud runtime and the typed Cloud API client it talks through: the
 * client, its options and answer shapes, its errors, the transport's
 * connection test, and the project's `.memo/config.json` reader.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, isMemoCloudError, MemoCloudClient } from "./mod.ts";
 * const client = new MemoCloudClient({ baseUrl: "https://cloud.example", apiKey: "mk_example" });
 * assert.ok(client instanceof MemoCloudClient);
 * assert.equal(isMemoCloudError(new Error("x")), false);
 * const runtime = createMemoCloudMcpRuntime({ baseUrl: "https://cloud.example", apiKey: "mk_example" });
 * assert.equal(runtime.kind, "cloud");
 * await runtime.close();
 * ```
 *
 * @module
 */

export * from "./runtime.ts";
export * from "./client.ts";
export * from "./client_options.ts";
export * from "./client_types.ts";
export * from "./errors.ts";
export * from "./config.ts";
export * from "./transport.ts";
