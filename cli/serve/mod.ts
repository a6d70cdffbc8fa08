/**
 * The commands that serve: `memo mcp` (stdio), `memo serve` (the HTTP
 * endpoint and the web page), `memo cloud serve`, and their limit flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cloudCommand, mcpCommand, serveCommand } from "./mod.ts";
 *
 * assert.deepEqual([mcpCommand.name, serveCommand.name, cloudCommand.name], ["mcp", "serve", "cloud"]);
 * ```
 *
 * @module
 */

export * from "./mcp.ts";
export * from "./serve.ts";
export * from "./serve_config.ts";
export * from "./cloud.ts";
export * from "./limit_flags.ts";
