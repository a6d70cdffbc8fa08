/**
 * The SDK bridge: memo's tools, resources and prompts registered on an official MCP SDK `McpServer`
 * (`bridge.ts`), and the SDK shapes it relies on (`types.ts`). A folder of its own because it loads
 * zod at once, which the stdio and HTTP servers defer to their first request.
 *
 * @module
 */

export * from "./bridge.ts";
export * from "./types.ts";
