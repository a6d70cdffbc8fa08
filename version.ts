/**
 * The package version, reported by `memo --version` and as the MCP server's
 * default `version`.
 *
 * @module
 */

/** The version of `@memo/mcp-server`. Kept equal to `version` in deno.json (a test checks). */
export const VERSION = "0.1.0";
