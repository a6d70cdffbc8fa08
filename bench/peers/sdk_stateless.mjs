// Benchmark peer (a), under Node: the official MCP TypeScript SDK's stateless
// Streamable HTTP server, built the way its README shows — Express with
// express.json(), and for every POST a new McpServer and
// StreamableHTTPServerTransport with sessionIdGenerator: undefined — with one
// echo tool. Dependencies are pinned in sdk_peer_package.json beside this file
// (bench/http_bench.ts copies both to a temporary folder (as package.json) and runs npm install
// there, so no node_modules lands in the tree).
//
// Run: node bench/peers/sdk_stateless.mjs <port>
//
// The packages are loaded with require() (their CommonJS builds) so that
// `deno check .` in the repository does not try to resolve them.
import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);
const express = require("express");
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require(
  "@modelcontextprotocol/sdk/server/streamableHttp.js",
);
const { z } = require("zod");
const port = Number(process.argv[2] ?? 8788);
function getServer() {
  const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echoes the message back",
    inputSchema: { message: z.string() },
  }, ({ message }) => ({ content: [{ type: "text", text: message }] }));
  return server;
}
const app = express();
app.use(express.json());
app.post("/mcp", async (req, res) => {
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
app.listen(
  port,
  "127.0.0.1",
  () => console.error(`sdk peer: listening on http://127.0.0.1:${port}/mcp`),
);
