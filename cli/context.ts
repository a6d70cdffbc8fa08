/**
 * What a CLI command gets: its arguments and injected I/O, so that commands
 * run the same under Deno, under Node and in tests.
 *
 * @module
 */

/** Injected I/O of the CLI. */
export interface CliIO {
  /** Writes to stdout. */
  stdout(text: string): Promise<void>;
  /** Writes to stderr. */
  stderr(text: string): Promise<void>;
  /** Whether stderr is a terminal (progress and logs go there only then). */
  stderrIsTerminal: boolean;
  /** Environment variables. */
  env: Record<string, string | undefined>;
  /** Working directory. */
  cwd: string;
  /** Reads all of stdin as text (for `--file -`). */
  readStdin(): Promise<string>;
  /** Standard input as a byte stream (the stdio MCP transport). */
  stdin?(): Promise<ReadableStream<Uint8Array>>;
  /** Standard output as a byte stream (the stdio MCP transport). */
  stdoutStream?(): Promise<WritableStream<Uint8Array>>;
  /** Registers a SIGINT/SIGTERM callback; returns a remover. */
  onShutdownSignal?(callback: () => void): () => void;
  /** Serves HTTP (`memo serve`): `Deno.serve` under Deno, `node:http` under Node. */
  serve?(
    handler: (request: Request) => Response | Promise<Response>,
    options: { hostname: string; port: number; signal?: AbortSignal },
  ): Promise<{ readonly port: number; readonly finished: Promise<void> }>;
}

/** A `memo` subcommand. */
export interface CliCommand {
  /** Name, as typed after `memo`. */
  name: string;
  /** One-line summary for `memo help`. */
  summary: string;
  /** Usage line(s), without the leading `memo `. */
  usage: string;
  /** Runs the command; returns the exit code (0 ok, 1 failed). Throws UsageError for exit 2. */
  run(argv: string[], io: CliIO): Promise<number>;
}
