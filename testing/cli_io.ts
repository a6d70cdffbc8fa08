/**
 * Test helper: a `CliIO` that records stdout and stderr. Not published
 * (`testing/` is excluded from the packages).
 *
 * @module
 */

import type { CliIO } from "../cli/context.ts";
import { execPath, hostFiles, hostName, runProgram } from "../platform/mod.ts";

/**
 * A recording CliIO for tests.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCli } from "../cli/main.ts";
 * import { type RecordingIO, recordingIO } from "./cli_io.ts";
 *
 * const io: RecordingIO = recordingIO("/");
 * assert.equal(await runCli(["--version"], io), 0);
 * assert.equal(io.out.length, 1);
 * assert.equal(await runCli(["frobnicate"], io), 2);
 * assert.deepEqual(io.err, ["memo: unknown command frobnicate (see memo help)\n"]);
 * ```
 */
export interface RecordingIO extends CliIO {
  /** Everything written to stdout. */
  out: string[];
  /** Everything written to stderr. */
  err: string[];
}

/**
 * Creates a recording CliIO rooted at `cwd`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "./cli_io.ts";
 *
 * const io = recordingIO("/", "text on stdin");
 * await io.stdout("x");
 * assert.deepEqual(io.out, ["x"]);
 * assert.equal(await io.readStdin(), "text on stdin");
 *
 * // A terminal that answers "y" to a question, then ends.
 * const tty = recordingIO("/", "y\n", { terminal: true });
 * assert.equal(tty.stdinIsTerminal && tty.stderrIsTerminal, true);
 * assert.equal(await tty.readLine!(), "y");
 * assert.equal(await tty.readLine!(), undefined);
 * ```
 */
export function recordingIO(
  cwd: string,
  stdinText = "",
  options: RecordingIOOptions = {},
): RecordingIO {
  const out: string[] = [];
  const err: string[] = [];
  const lines = stdinText === "" ? [] : stdinText.replace(/\n$/, "").split("\n");
  const terminal = options.terminal ?? false;
  return {
    out,
    err,
    stdout: (t) => Promise.resolve(void out.push(t)),
    stderr: (t) => Promise.resolve(void err.push(t)),
    stderrIsTerminal: terminal,
    stdinIsTerminal: terminal,
    env: {},
    cwd,
    program: { name: hostName, path: execPath() },
    readStdin: () => Promise.resolve(stdinText),
    readLine: () => Promise.resolve(lines.shift()),
    runProgram,
    files: hostFiles,
  };
}

/**
 * Options of {@linkcode recordingIO}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO, type RecordingIOOptions } from "./cli_io.ts";
 *
 * const options: RecordingIOOptions = { terminal: true };
 * assert.equal(recordingIO("/", "", options).stdinIsTerminal, true);
 * ```
 */
export interface RecordingIOOptions {
  /**
   * Whether stdin and stderr act as a terminal (questions are asked,
   * progress is drawn); `readLine` answers with the lines of the stdin text.
   * @default false
   */
  terminal?: boolean;
}
