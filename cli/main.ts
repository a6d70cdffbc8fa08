/**
 * `runCli(argv, io)`: dispatches a `memo` command line and maps errors to the
 * one-line `memo: <message>` format and the exit codes (0 ok, 1 failed, 2 usage).
 *
 * @module
 */

import { UsageError } from "./args.ts";
import { commands } from "./commands.ts";
import type { CliCommand, CliIO } from "./context.ts";
import { errorLine, maskSecrets } from "./output.ts";
import { VERSION } from "../version.ts";

/**
 * Text of `memo help`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { VERSION } from "@memo/mcp-server";
 * import { helpText } from "./main.ts";
 *
 * const help = helpText();
 * assert.ok(help.startsWith(`memo ${VERSION}: local-first memory for AI agents\n`));
 * assert.match(help, /^ {2}recall {6}Find the notes that match a query$/m); // names padded to merge-file
 * ```
 */
export function helpText(list: readonly CliCommand[] = commands): string {
  const width = Math.max(...list.map((c) => c.name.length), 4);
  return [
    `memo ${VERSION}: local-first memory for AI agents`,
    "",
    "Usage: memo <command> [arguments] [--dir DIR] [--json]",
    "",
    "Commands:",
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  Show this help, or a command's usage (memo help recall)`,
    "",
    "Every command but merge-file takes --dir DIR (the project root; default:",
    "the nearest ancestor holding .memo/, else the current directory); every one",
    "but mcp, export, merge-file and help takes --json (print exactly one JSON",
    "document on stdout). Exit codes: 0 ok, 1 failed, 2 usage.",
    "",
  ].join("\n");
}

function usageOf(c: CliCommand): string {
  return `Usage: memo ${c.usage}\n\n${c.summary}.\n`;
}

/**
 * Runs one `memo` command line; returns the exit code. Never throws.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { runCli } from "./main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * assert.equal(await runCli(["remember", "Deploys run with make deploy"], io), 0);
 * assert.equal(await runCli(["--json", "recall", "deploy"], io), 0); // flags may come first
 * assert.equal(JSON.parse(io.out[1]).hits[0].note.title, "Deploys run with make deploy");
 *
 * assert.equal(await runCli(["recall"], io), 2); // a usage error
 * assert.match(io.err[0], /^memo: missing query \(usage: memo recall /);
 * assert.equal(await runCli(["get", "nope"], io), 1); // a failure
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = commandFirst(argv);
  try {
    if (name === undefined || name === "help" || name === "--help" || name === "-h") {
      const topic = name === "help" ? rest.find((a) => !a.startsWith("-")) : undefined;
      const target = topic && topic !== "help" ? find(topic) : undefined;
      if (topic && topic !== "help" && !target) throw new UsageError(`unknown command ${topic}`);
      await io.stdout(target ? usageOf(target) : helpText());
      return name === undefined ? 2 : 0;
    }
    if (name === "--version" || name === "-V") {
      await io.stdout(`${VERSION}\n`);
      return 0;
    }
    const command = find(name);
    if (!command) throw new UsageError(`unknown command ${name}`);
    // A help flag among the options; after `--`, `-h` is text (`memo remember -- -h`).
    const end = rest.indexOf("--");
    const options = end === -1 ? rest : rest.slice(0, end);
    if (options.includes("--help") || options.includes("-h")) {
      await io.stdout(usageOf(command));
      return 0;
    }
    return await command.run([...rest], io);
  } catch (e) {
    return await reportError(e, io, name);
  }
}

/**
 * Lets the flags every command takes come before the command too
 * (`memo --dir D recall q` is `memo recall q --dir D`).
 */
function commandFirst(argv: readonly string[]): string[] {
  let i = 0;
  const leading: string[] = [];
  while (i < argv.length) {
    const a = argv[i];
    if (a === "--json" || a.startsWith("--dir=")) leading.push(a), i++;
    else if (a === "--dir" && i + 1 < argv.length) leading.push(a, argv[i + 1]), i += 2;
    else break;
  }
  if (leading.length === 0 || i >= argv.length) return [...argv];
  return [argv[i], ...argv.slice(i + 1), ...leading];
}

function find(name: string): CliCommand | undefined {
  return commands.find((c) => c.name === name);
}

async function reportError(e: unknown, io: CliIO, name: string | undefined): Promise<number> {
  if (e instanceof UsageError) {
    const hint = name && find(name) ? ` (usage: memo ${find(name)!.usage})` : " (see memo help)";
    await io.stderr(errorLine(await maskSecrets(e.message) + hint));
    return 2;
  }
  // The reader of stdout went away (`memo export | head`): it chose to stop
  // reading, so there is nothing to report and nowhere to report it.
  if (isBrokenPipe(e)) return 0;
  // Input the runtime refuses (an empty text, a forged cursor) is a usage
  // error. Matched by name and code, not class, so that the CLI does not load
  // the runtimes to check.
  const { name: errorName, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  if (errorName === "MemoRuntimeError" && code === "INVALID_INPUT") {
    await io.stderr(errorLine(await maskSecrets((e as Error).message)));
    return 2;
  }
  await io.stderr(errorLine(await maskSecrets(e instanceof Error ? e.message : String(e))));
  return 1;
}

/** A write to a pipe whose reader has closed it: Deno's `BrokenPipe`, Node's `EPIPE`. */
function isBrokenPipe(e: unknown): boolean {
  const { name, code } = (e ?? {}) as { name?: unknown; code?: unknown };
  return name === "BrokenPipe" || code === "EPIPE";
}
