/**
 * Benchmark peer: the official MCP TypeScript SDK v2's `serveStdio`
 * (`@modelcontextprotocol/server` 2.4.0, which speaks 2026-07-28) over a
 * factory that returns an `McpServer` with one `echo` tool, as its
 * documentation shows. `bench/stdio_stateless.ts` runs it beside `memo mcp` with
 * the same client code.
 *
 * Run: `deno run -A --lock=deno.dev.lock bench/peers/sdk_v2_stdio.ts`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- benchmark peer, pinned
import { McpServer } from "npm:@modelcontextprotocol/server@2.4.0";
// deno-lint-ignore no-import-prefix -- benchmark peer, pinned
import { serveStdio } from "npm:@modelcontextprotocol/server@2.4.0/stdio";
import * as z from "zod";

if (import.meta.main) {
  serveStdio(() => {
    const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
    server.registerTool(
      "echo",
      { description: "Echo the text back", inputSchema: z.object({ text: z.string() }) },
      ({ text }) => ({ content: [{ type: "text", text }] }),
    );
    return server;
  });
}
