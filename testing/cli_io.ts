/**
 * Test helper: a `CliIO` that records stdout and stderr. Not published
 * (`testing/` is excluded from the packages).
 *
 * @module
 */

import type { CliIO } from "../cli/context.ts";

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
 * ```
 */
export function recordingIO(cwd: string, stdinText = ""): RecordingIO {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => Promise.resolve(void out.push(t)),
    stderr: (t) => Promise.resolve(void err.push(t)),
    stderrIsTerminal: false,
    env: {},
    cwd,
    readStdin: () => Promise.resolve(stdinText),
  };
}
