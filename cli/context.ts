/**
 * What a CLI command gets: its arguments and injected I/O, so that commands run the same under
 * Deno, under Node and in tests.
 *
 * @module
 */

/**
 * Injected I/O of the CLI.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CliIO } from "./context.ts";
 * import { runCli } from "./main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const out: string[] = [];
 * const io: CliIO = {
 *   stdout: (text) => Promise.resolve(void out.push(text)),
 *   stderr: () => Promise.resolve(),
 *   stderrIsTerminal: false,
 *   env: {},
 *   cwd: rootDir,
 *   readStdin: () => Promise.resolve("Deploys run with make deploy"),
 * };
 * assert.equal(await runCli(["remember", "--file", "-"], io), 0); // the text comes from stdin
 * assert.match(out[0], /^written \S+  Deploys run with make deploy\n$/);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface CliIO {
  stdout(text: string): Promise<void>;
  stderr(text: string): Promise<void>;
  /** Whether stderr is a terminal (progress and logs go there only then). */
  stderrIsTerminal: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * The program running memo, Deno or Node, and its path: `memo init` writes it into client
   * configurations. Without it, they name plain `deno`/`node`.
   */
  program?: { name: "deno" | "node"; path: string };
  /** Reads all of stdin as text (for `--file -`). */
  readStdin(): Promise<string>;
  /**
   * Whether stdin is a terminal: a command may then ask a question (`memo forget --source`'s
   * confirmation).
   * @default false
   */
  stdinIsTerminal?: boolean;
  /**
   * Reads one line of stdin, without its line break (the answer to a question); undefined at the
   * end of the input. Without it, nothing can be asked.
   */
  readLine?(): Promise<string | undefined>;
  /** Standard input as a byte stream (the stdio MCP transport). */
  stdin?(): Promise<ReadableStream<Uint8Array>>;
  /** Standard output as a byte stream (the stdio MCP transport). */
  stdoutStream?(): Promise<WritableStream<Uint8Array>>;
  /** Registers a SIGINT/SIGTERM callback (told which, where the platform knows); returns a remover. */
  onShutdownSignal?(callback: (signal?: "SIGINT" | "SIGTERM") => void): () => void;
  /**
   * Runs another program to its end (`memo merge-file` falls back to `git merge-file`): its exit
   * code (-1 when it cannot start) and output. Without it, no program can be run.
   */
  runProgram?(
    program: string,
    args: readonly string[],
    cwd: string,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /**
   * File calls on the host's own API (`memo hook` reads through them); without them, the
   * command falls back on `node:fs/promises`.
   */
  files?: CliFiles;
  /**
   * Starts a program that outlives this process (no standard streams): `memo hook` rebuilds its
   * index that way. Without it, the rebuild runs in the hook itself.
   */
  spawnDetached?(program: string, args: readonly string[], cwd: string): Promise<boolean | void>;
  /** The command line that starts this `memo` again (for {@linkcode CliIO.spawnDetached}). */
  self?: string[];
  /** Serves HTTP (`memo serve`): `Deno.serve` under Deno, `node:http` under Node. */
  serve?(
    handler: (request: Request) => Response | Promise<Response>,
    options: { hostname: string; port: number; signal?: AbortSignal },
  ): Promise<{
    readonly port: number;
    readonly finished: Promise<void>;
    /** Stops accepting connections; the requests in flight finish (aborting `signal` cuts them). */
    shutdown(): Promise<void>;
  }>;
}

/**
 * File calls on the host's own API (`platform/files.ts`): `memo hook` runs as a fresh process on
 * every prompt, and loading `node:fs/promises` alone would cost it more than all of `memo
 * --version`. A missing file reads as an error whose `code` is `ENOENT`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CliFiles } from "./context.ts";
 * const files: Pick<CliFiles, "stat"> = { stat: () => Promise.resolve(undefined) };
 * assert.equal(await files.stat("/x"), undefined);
 * ```
 */
export interface CliFiles {
  readText(path: string): Promise<string>;
  readRanges(path: string, ranges: readonly (readonly [number, number])[]): Promise<Uint8Array[]>;
  stat(
    path: string,
  ): Promise<{ size: number; mtimeMs: number; ino: number; isDirectory: boolean } | undefined>;
  writeAtomically(path: string, data: string | Uint8Array): Promise<void>;
  append(path: string, text: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  remove(path: string): Promise<void>;
}

/**
 * A `memo` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import type { CliCommand } from "./context.ts";
 * import { helpText } from "./main.ts";
 *
 * const hello: CliCommand = {
 *   name: "hello",
 *   summary: "Say hello",
 *   usage: "hello",
 *   run: async (_argv, io) => {
 *     await io.stdout("hello\n");
 *     return 0;
 *   },
 * };
 * const io = recordingIO("/");
 * assert.equal(await hello.run([], io), 0);
 * assert.deepEqual(io.out, ["hello\n"]);
 * assert.match(helpText([hello]), /hello {2}Say hello/);
 * ```
 */
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
