/**
 * Benchmark peer: the official MCP SDK's `McpServer` with one trivial `echo`
 * tool over `StdioServerTransport`. `bench/stdio_bench.ts` runs it beside
 * `memo mcp` with the same SDK client.
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- test-only, pinned
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back", inputSchema: { text: z.string() } },
  ({ text }: { text: string }) => ({ content: [{ type: "text" as const, text }] }),
);
await server.connect(new StdioServerTransport());
