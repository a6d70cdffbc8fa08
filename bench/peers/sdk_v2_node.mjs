// Benchmark peer: the official MCP TypeScript SDK v2 under Node. Its stateless handler
// (`@modelcontextprotocol/server`, `createMcpHandler`, which speaks 2026-07-28) mounted on a plain
// `node:http` server through the SDK's own Node adapter (`@modelcontextprotocol/node`,
// `toNodeHandler`), with the loopback Host and Origin guards its README puts in front of a
// hand-wired `node:http` server; one `echo` tool, a new `McpServer` for every request, as
// `bench/peers/sdk_v2_http.ts` does on `Deno.serve`. Dependencies are pinned in
// sdk_peer_package.json beside this file (installed by `installNodePeer` in bench/_http_kit.ts).
//
// Run: node bench/peers/sdk_v2_node.mjs <port>
//
// The packages are loaded with require() (their CommonJS builds) so that `deno check .` in the
// repository does not try to resolve them.
import { createServer } from "node:http";
import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);
const { createMcpHandler, McpServer } = require("@modelcontextprotocol/server");
const { localhostHostValidation, localhostOriginValidation, toNodeHandler } = require(
  "@modelcontextprotocol/node",
);
const { z } = require("zod");
const port = Number(process.argv[2] ?? 8792);

const handler = toNodeHandler(createMcpHandler(() => {
  const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the message back", inputSchema: z.object({ message: z.string() }) },
    ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  return server;
}));
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

createServer((req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  void handler(req, res);
}).listen(port, "127.0.0.1", () => {
  console.error(`sdk v2 node peer: listening on http://127.0.0.1:${port}/mcp`);
});
