/**
 * `memo mcp`: serves the project's memory over MCP on stdin/stdout, for desktop and IDE clients.
 * Stdout carries JSON-RPC only; logs go to stderr, and only when it is a terminal (a clone without
 * the notes' merge driver gets its one line there in any case).
 *
 * @module
 */

import {
  boolFlag,
  choiceFlag,
  parseArgs,
  type ParsedArgs,
  positionals,
  stringFlag,
} from "../args.ts";
import { memoHomeOf, readEnv } from "../../env.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { LIMIT_FLAGS, limitFlags } from "./limit_flags.ts";
// Static: this module itself is imported only when `memo mcp` runs (cli/commands.ts), so the
// runtime's and the server's modules load with it, in one step, and no other command loads them.
import {
  createMemoMcpProtocolServer,
  MEMO_MCP_INSTRUCTIONS,
  type MemoMcpProtocolServer,
  runStdioServer,
} from "../../server/mod.ts";
import {
  createDeferredRuntime,
  readRuntimeEnv,
  runtimeFactoryFromEnv,
} from "../../runtimes/start/mod.ts";

async function serve(p: ParsedArgs, io: CliIO): Promise<number> {
  if (!io.stdin || !io.stdoutStream) throw new Error("Cannot serve MCP: no stdin/stdout streams");
  const env = readEnv(io.env, "server");
  const runtimeEnv = readRuntimeEnv(io.env);
  const dir = stringFlag(p, "dir") ?? runtimeEnv.rootDir;
  // A configuration that cannot work fails now (exit 1); the runtime itself
  // is built later.
  const secrets = choiceFlag(p, "secrets", ["redact", "refuse", "allow"] as const);
  const build = runtimeFactoryFromEnv({ env: io.env, prewarm: false, secrets });
  let warned: Promise<void> | undefined;
  // Finding the project (node:fs, node:path) and loading the notes both wait
  // until after the first answer (usually `initialize`), so that neither
  // delays the handshake.
  const runtime = createDeferredRuntime(runtimeEnv.runtime ?? "local", async () => {
    const { findProjectRoot } = await import("../project.ts");
    const root = await findProjectRoot(dir, io.cwd, memoHomeOf(io.env));
    // A clone without the notes' merge driver says so on stderr (never on stdout), once.
    const warning = await import("../git/warning.ts");
    warned = warning.warnMissingDriver(root, io).catch(() => {});
    return warning.withGitStats(build(root), root, io.runProgram);
  });
  const server = createMemoMcpProtocolServer({
    ...env,
    ...limitFlags(p),
    runtime,
    readOnly: boolFlag(p, "read-only") || env.readOnly === true,
    instructions: MEMO_MCP_INSTRUCTIONS,
    logger: io.stderrIsTerminal
      ? (record) => void io.stderr(`memo: ${record.level}: ${record.message}\n`).catch(() => {})
      : undefined,
  });
  // Warm-up starts with the first message that arrives after an answer went
  // out (usually notifications/initialized): before it, even its timer would
  // delay the handshake (a process's first setTimeout costs milliseconds).
  let answered = false;
  let warm: (() => void) | undefined = () => {
    warm = undefined;
    setTimeout(() => void runtime.stats().catch(() => {}), 0);
  };
  const served: MemoMcpProtocolServer = {
    name: server.name,
    version: server.version,
    handle: async (raw, context) => {
      if (answered) warm?.();
      const reply = await server.handle(raw, context);
      if (reply !== undefined) answered = true;
      return reply;
    },
    handleParsed: (message, context) => server.handleParsed(message, context),
  };
  const stop = new AbortController();
  const off = io.onShutdownSignal?.(() => stop.abort());
  try {
    await runStdioServer(served, {
      input: await io.stdin(),
      output: await io.stdoutStream(),
      signal: stop.signal,
    });
  } finally {
    off?.();
    await runtime.close().catch(() => {});
    await warned;
  }
  return 0;
}

/**
 * `memo mcp`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { mcpCommand } from "./mcp.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const call = { name: "memory_stats", arguments: {} };
 * const lines = [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: call }];
 * let written = "";
 * const io = {
 *   ...recordingIO(rootDir),
 *   // In a terminal these are the process's stdin and stdout.
 *   stdin: () =>
 *     Promise.resolve(new Blob(lines.map((l) => JSON.stringify(l) + "\n")).stream()),
 *   stdoutStream: () =>
 *     Promise.resolve(
 *       new WritableStream<Uint8Array>({
 *         write(chunk) {
 *           written += new TextDecoder().decode(chunk);
 *         },
 *       }),
 *     ),
 * };
 * assert.equal(await mcpCommand.run(["--read-only"], io), 0); // returns when stdin ends
 * assert.equal(JSON.parse(written).result.structuredContent.notes, 0);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const mcpCommand: CliCommand = {
  ...COMMAND_INFO.mcp,
  run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "secrets", ...LIMIT_FLAGS],
      boolean: ["read-only"],
    });
    positionals(p, []);
    limitFlags(p); // usage errors before anything starts
    return serve(p, io);
  },
};
