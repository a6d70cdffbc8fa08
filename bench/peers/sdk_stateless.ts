/**
 * Benchmark peer (a): the official MCP TypeScript SDK's stateless Streamable
 * HTTP server, built the way its README shows — Express with `express.json()`,
 * and for every POST a new `McpServer` and `StreamableHTTPServerTransport`
 * with `sessionIdGenerator: undefined` — with one `echo` tool.
 *
 * Run: `deno run -A bench/peers/sdk_stateless.ts <port>`
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- bench-only, pinned
import express from "npm:express@5.2.1";
// deno-lint-ignore no-import-prefix -- bench-only, pinned
import { McpServer } from "npm:@modelcontextprotocol/sdk@1.32.2/server/mcp.js";
// deno-lint-ignore no-import-prefix -- bench-only, pinned
import { StreamableHTTPServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- bench-only, pinned
import { z } from "npm:zod@4.6.7";

const port = Number(Deno.args[0] ?? 8788);

function getServer(): McpServer {
  const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the message back", inputSchema: { message: z.string() } },
    ({ message }: { message: string }) => ({ content: [{ type: "text", text: message }] }),
  );
  return server;
}

const app = express();
app.use(express.json());
// deno-lint-ignore no-explicit-any -- express ships no types here
app.post("/mcp", async (req: any, res: any) => {
  try {
    const server = getServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  } catch {
    if (!res.headersSent) {
      res.status(500).json({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Internal server error" },
        id: null,
      });
    }
  }
});
app.listen(port, "127.0.0.1", () => {
  console.error(`sdk peer: listening on http://127.0.0.1:${port}/mcp`);
});
