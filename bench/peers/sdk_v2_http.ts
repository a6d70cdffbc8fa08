/**
 * Benchmark peer: the official MCP TypeScript SDK v2's stateless HTTP handler
 * (`@modelcontextprotocol/server` 2.4.0, which speaks 2026-07-28), built the
 * way its documentation ("Serve over HTTP") shows — `createMcpHandler` over a
 * factory that returns a new `McpServer` with one `echo` tool for every
 * request — and mounted on `Deno.serve`. `bench/http_stateless.ts` runs it beside
 * memo with the same stateless requests.
 *
 * Run: `deno run -A --lock=deno.dev.lock bench/peers/sdk_v2_http.ts <port>`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- benchmark peer, pinned
import { createMcpHandler, McpServer } from "npm:@modelcontextprotocol/server@2.4.0";
import * as z from "zod";

if (import.meta.main) serve(Number(Deno.args[0] ?? 8791));

/** Serves the peer on `port`. */
function serve(port: number): void {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
    server.registerTool(
      "echo",
      { description: "Echoes the message back", inputSchema: z.object({ message: z.string() }) },
      ({ message }) => ({ content: [{ type: "text", text: message }] }),
    );
    return server;
  });

  Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: () => console.error(`sdk v2 peer: listening on http://127.0.0.1:${port}/mcp`),
  }, (request) => handler.fetch(request));
}
