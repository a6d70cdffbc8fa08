/**
 * Running another program to its end (`git merge-file`, the merge driver's fallback), under Deno
 * and Node alike, through `node:child_process`.
 *
 * @module
 */

/**
 * What {@linkcode runProgram} returns: the exit code (-1 when the program could not start or was
 * killed by a signal) and what it wrote.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ProgramResult } from "./run_program.ts";
 *
 * const result: ProgramResult = { code: 0, stdout: "", stderr: "" };
 * assert.equal(result.code, 0);
 * ```
 */
export interface ProgramResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `program` with `args` in `cwd` (no shell) and waits for its end. Never throws: a program
 * that cannot start answers code -1 with the reason on `stderr`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { execPath } from "./process.ts";
 * import { runProgram } from "./run_program.ts";
 *
 * const ok = await runProgram(execPath(), ["--version"], ".");
 * assert.equal(ok.code, 0);
 * assert.notEqual(ok.stdout, "");
 * const missing = await runProgram("memo-no-such-program", [], ".");
 * assert.equal(missing.code, -1);
 * ```
 */
export async function runProgram(
  program: string,
  args: readonly string[],
  cwd: string,
): Promise<ProgramResult> {
  // node:child_process loads at the first run, not with every process that imports the platform.
  const { execFile } = await import("node:child_process");
  return await new Promise((resolve) => {
    execFile(
      program,
      [...args],
      { cwd, encoding: "utf8", maxBuffer: 1 << 30 },
      (error, stdout, stderr) => {
        const code = error === null
          ? 0
          : typeof (error as { code?: unknown }).code === "number"
          ? (error as { code: number }).code
          : -1;
        resolve({
          code,
          stdout: String(stdout ?? ""),
          stderr: String(stderr || (code === -1 ? error?.message ?? "" : "")),
        });
      },
    );
  });
}
