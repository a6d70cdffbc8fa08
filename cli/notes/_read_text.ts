/**
 * Internal: the text a command takes as its argument or from `--file F` (`-`: stdin).
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type ParsedArgs, stringFlag, UsageError } from "../args.ts";
import type { CliIO } from "../context.ts";

/**
 * The text given as `positional`, or read from `--file` (`-` reads stdin); a usage error when
 * both are given, `FileReadError` when the file cannot be read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "../args.ts";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { readText } from "./_read_text.ts";
 *
 * const io = recordingIO(".");
 * assert.equal(await readText(parseArgs([], { string: ["file"] }), io, "hello"), "hello");
 * ```
 */
export async function readText(
  p: ParsedArgs,
  io: CliIO,
  positional: string | undefined,
): Promise<string | undefined> {
  const file = stringFlag(p, "file");
  if (file !== undefined && positional !== undefined) {
    throw new UsageError("give the text or --file, not both");
  }
  if (file === undefined) return positional;
  if (file === "-") return await io.readStdin();
  try {
    return await readFile(resolve(io.cwd, file), "utf8");
  } catch (e) {
    const reason = (e as { code?: string }).code ?? (e as Error).message;
    throw new FileReadError(`Cannot read ${file}: ${reason}`);
  }
}

/**
 * A file named on the command line could not be read (exit code 1).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { runCli } from "../main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * assert.equal(await runCli(["remember", "--file", "missing.md"], io), 1);
 * assert.deepEqual(io.err, ["memo: Cannot read missing.md: ENOENT\n"]);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class FileReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileReadError";
  }
}
