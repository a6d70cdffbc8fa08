/**
 * `@memo/mcp-server`: memo's MCP server — local-first memory for AI agents.
 *
 * - {@linkcode createMemoMcpProtocolServer}: the transport-agnostic JSON-RPC
 *   2.0 handler (tools, resources, prompts, limits, errors);
 * - {@linkcode runStdioServer}: newline-delimited JSON-RPC over stdin/stdout;
 * - {@linkcode registerMemoMcpCapabilities}: the same surface on an official
 *   SDK `McpServer`;
 * - runtimes: {@linkcode createMemoMcpRuntimeFromConfig},
 *   {@linkcode createMemoMcpRuntimeFromMemo}, {@linkcode createMemoCloudMcpRuntime};
 * - errors: {@linkcode MemoMcpError} and its subclasses, {@linkcode toSafeError}.
 *
 * The stateless Streamable HTTP handlers live in `@memo/mcp-server/http`.
 * Run as a program, this module is the `memo` command
 * (`deno run -A jsr:@memo/mcp-server mcp`).
 *
 * @example
 * ```ts
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   runStdioServer,
 * } from "@memo/mcp-server";
 *
 * const server = createMemoMcpProtocolServer({
 *   runtime: createMemoMcpRuntimeFromConfig({ rootDir: "." }),
 *   readOnly: true,
 * });
 * await runStdioServer(server);
 * ```
 *
 * @module
 */

export * from "./server/mod.ts";
export * from "./runtimes/mod.ts";
export { VERSION } from "./version.ts";

if (import.meta.main) {
  await import("./cli.ts");
}
