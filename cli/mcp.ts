/**
 * `memo mcp`: serves the project's memory over MCP on stdin/stdout, for
 * desktop and IDE clients. Stdout carries JSON-RPC only; logs go to stderr,
 * and only when it is a terminal.
 *
 * @module
 */

import { boolFlag, intFlag, parseArgs, type ParsedArgs, positionals, stringFlag } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
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
  const [{ readHttpEnv }, { createMemoMcpRuntimeFromConfig }, { createDeferredRuntime }, {
    createMemoMcpProtocolServer,
  }, { runStdioServer }] = await Promise.all([
    import("../server/http_env.ts"),
    import("../runtimes/factory.ts"),
    import("../runtimes/_deferred.ts"),
    import("../server/protocol_server.ts"),
    import("../server/stdio.ts"),
  ]);
  const env = readHttpEnv(io.env);
  const dir = stringFlag(p, "dir") ?? env.rootDir;
  const mode = env.runtime === "hybrid" || env.runtime === "cloud" ? env.runtime : "local";
  // The factory refuses the modes this version lacks; let it say so now.
  if (mode !== "local") createMemoMcpRuntimeFromConfig({ mode: mode as "local" });
  // Finding the project (node:fs, node:path) and loading the notes both wait
  // until after the first answer (usually `initialize`), so that neither
  // delays the handshake.
  const runtime = createDeferredRuntime("local", async () => {
    const { findProjectRoot } = await import("./project.ts");
    return createMemoMcpRuntimeFromConfig({
      mode: "local",
      rootDir: await findProjectRoot(dir, io.cwd),
      env: io.env,
      prewarm: false,
    });
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
  }
  return 0;
}

/** `memo mcp`. */
export const mcpCommand: CliCommand = {
  ...COMMAND_INFO.mcp,
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
