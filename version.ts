/**
 * The package version, reported by `memo --version` and as the MCP server's default `version`.
 *
 * @module
 */

/**
 * The version of `@memo/mcp-server`. Kept equal to `version` in deno.json (a test checks).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERSION } from "@memo/mcp-server";
 *
 * assert.match(VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION = "0.2.0";
