/**
 * `memo mcp`: serves the project's memory over MCP on stdin/stdout, for
 * desktop and IDE clients. Stdout carries JSON-RPC only; logs go to stderr,
 * and only when it is a terminal.
 *
 * @module
 */

import { boolFlag, intFlag, parseArgs, type ParsedArgs, positionals, stringFlag } from "./args.ts";
import type { CliCommand, CliIO } from "./context.ts";
import type { MemoMcpProtocolServer } from "../server/types.ts";

const LIMIT_FLAGS = [
  ["request-timeout-ms", "requestTimeoutMs"],
  ["max-input-bytes", "maxInputBytes"],
  ["max-output-bytes", "maxOutputBytes"],
  ["default-page-size", "defaultPageSize"],
  ["max-page-size", "maxPageSize"],
] as const;

/** The instructions `memo mcp` sends with its `initialize` result. */
export const MCP_INSTRUCTIONS =
  "memo is this project's long-term memory. Before answering questions about the project, its decisions, conventions or past work, call recall with the topic. When the user settles something worth keeping (a decision, a convention, a command that works, a pitfall), store it with remember as one self-contained note with labels. Correct outdated notes with update_note instead of adding duplicates. Never store secrets.";

type Limits = Partial<Record<typeof LIMIT_FLAGS[number][1], number>>;

function limitFlags(p: ParsedArgs): Limits {
  const out: Limits = {};
  for (const [flag, option] of LIMIT_FLAGS) {
    const value = intFlag(p, flag, 1, 1_000_000_000);
    if (value !== undefined) out[option] = value;
  }
  return out;
}

async function serve(p: ParsedArgs, io: CliIO): Promise<number> {
  if (!io.stdin || !io.stdoutStream) throw new Error("Cannot serve MCP: no stdin/stdout streams");
  // Imported here, not at the top: `memo mcp` loads only what it needs, and
  // the other commands do not load the MCP server.
  const [{ readHttpEnv }, { createMemoMcpRuntimeFromConfig }, { createMemoMcpProtocolServer }, {
    runStdioServer,
  }, { findProjectRoot }] = await Promise.all([
    import("../server/http_env.ts"),
    import("../runtimes/factory.ts"),
    import("../server/protocol_server.ts"),
    import("../server/stdio.ts"),
    import("./project.ts"),
  ]);
  const env = readHttpEnv(io.env);
  const dir = stringFlag(p, "dir") ?? env.rootDir;
  const rootDir = await findProjectRoot(dir, io.cwd);
  const mode = env.runtime === "hybrid" || env.runtime === "cloud" ? env.runtime : "local";
  // The notes load right after the first answer (usually `initialize`), so
  // that loading them never delays the handshake.
  const runtime = createMemoMcpRuntimeFromConfig({
    mode: mode as "local",
    rootDir,
    env: io.env,
    prewarm: false,
  });
  const flags = limitFlags(p);
  const server = createMemoMcpProtocolServer({
    runtime,
    readOnly: boolFlag(p, "read-only") || env.readOnly === true,
    requestTimeoutMs: flags.requestTimeoutMs ?? env.requestTimeoutMs,
    maxInputBytes: flags.maxInputBytes ?? env.maxInputBytes,
    maxOutputBytes: flags.maxOutputBytes ?? env.maxOutputBytes,
    defaultPageSize: flags.defaultPageSize ?? env.defaultPageSize,
    maxPageSize: flags.maxPageSize ?? env.maxPageSize,
    instructions: MCP_INSTRUCTIONS,
    logger: io.stderrIsTerminal
      ? (record) => void io.stderr(`memo: ${record.level}: ${record.message}\n`).catch(() => {})
      : undefined,
  });
  let warm: (() => void) | undefined = () => {
    warm = undefined;
    setTimeout(() => void runtime.stats().catch(() => {}), 0);
  };
  const served: MemoMcpProtocolServer = {
    name: server.name,
    version: server.version,
    handle: async (raw, context) => {
      const reply = await server.handle(raw, context);
      warm?.();
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
  }
  return 0;
}

/** `memo mcp`. */
export const mcpCommand: CliCommand = {
  name: "mcp",
  summary: "Serve memory over MCP on stdin/stdout (Claude, Cursor, VS Code …)",
  usage:
    "mcp [--dir D] [--read-only] [--request-timeout-ms N] [--max-input-bytes N] [--max-output-bytes N] [--default-page-size N] [--max-page-size N]",
  run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", ...LIMIT_FLAGS.map(([flag]) => flag)],
      boolean: ["read-only"],
    });
    positionals(p, []);
    limitFlags(p); // usage errors before anything starts
    return serve(p, io);
  },
};
