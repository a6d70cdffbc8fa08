/**
 * What the benchmarks of the npm build share (`bench/npm_bench.ts`, `bench/start_bench.ts`):
 * building a checkout's three packages with its own `scripts/build_npm.ts`, installing them into
 * an empty project the way a user does (`npm install --install-links`), and the official SDK's
 * minimal stdio server, the peer under Node.
 *
 * @module
 */

import { join, resolve } from "node:path";

/** The official MCP SDK (v1), as the peer servers use it. */
export const SDK = "@modelcontextprotocol/sdk@1.32.2";

/** The packages the build writes, by folder. */
export const PACKAGES: readonly string[] = ["memory", "connectors", "mcp-server"];

/** The SDK's `McpServer` with one `echo` tool over `StdioServerTransport` (an `.mjs` file). */
export const SDK_SERVER = `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Echo the text back", inputSchema: { text: z.string() } },
  ({ text }) => ({ content: [{ type: "text", text }] }),
);
await server.connect(new StdioServerTransport());
`;

/** Runs a command to its end; its stdout, or an error with its stderr. */
export async function run(command: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", npm_config_loglevel: "error", npm_config_fund: "false" },
  }).output();
  const dec = new TextDecoder();
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")} failed: ${dec.decode(out.stderr)}`);
  }
  return dec.decode(out.stdout);
}

/** Builds the npm packages of the checkout at `repo` into `out`, with its own build script. */
export async function buildNpm(repo: string, out: string): Promise<void> {
  // A checkout from before the two lock files has only deno.lock, which then locks everything.
  const dev = await Deno.stat(`${repo}/deno.dev.lock`).then(() => true, () => false);
  const lock = dev ? ["--lock=deno.dev.lock"] : [];
  await run(Deno.execPath(), ["run", "-A", ...lock, "scripts/build_npm.ts", "--out", out], repo);
}

/**
 * Makes `app` an empty project and installs into it the packages built in `out` (with
 * `--install-links`, as copies), then `extra` (such as {@linkcode SDK}). Returns the path of
 * its `memo` bin (`…/@memo/mcp-server/cli.js`).
 */
export async function installApp(app: string, out: string, extra: string[] = []): Promise<string> {
  await Deno.mkdir(app, { recursive: true });
  await Deno.writeTextFile(join(app, "package.json"), JSON.stringify({ private: true }));
  const install = ["install", "--install-links", "--no-audit", "--no-fund"];
  // npm runs in `app`: a relative `out` (`--npm .scratch/npm`) is taken from here, not from there.
  await run("npm", [...install, ...PACKAGES.map((p) => resolve(out, p))], app);
  if (extra.length) await run("npm", [...install, ...extra], app);
  return join(app, "node_modules", "@memo", "mcp-server", "cli.js");
}
