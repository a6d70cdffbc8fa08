/**
 * The runtime a `memo` command works through: built by the same factory as `memo mcp` and `memo
 * serve`, so that `MEMO_RUNTIME` and `MEMO_ROOT_DIR` apply to every command. The project is
 * `--dir`, else `MEMO_ROOT_DIR`, else the nearest ancestor holding `.memo/`, else the working
 * directory.
 *
 * @module
 */

import {
  createMemoMcpRuntimeFromEnv,
  type MemoMcpRuntime,
  type ModelProgress,
  readRuntimeEnv,
} from "../runtimes/mod.ts";
import { choiceFlag, type ParsedArgs, stringFlag } from "./args.ts";
import type { CliIO } from "./context.ts";
import { findProjectRoot } from "./project.ts";
import { warnMissingDriver } from "./git/wiring.ts";

/**
 * Options of {@linkcode withProjectRuntime}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ProjectRuntimeOptions } from "./runtime.ts";
 *
 * const options: ProjectRuntimeOptions = { onModelProgress: (p) => assert.ok(p.progress >= 0) };
 * options.onModelProgress!({ status: "ready", progress: 100 });
 * ```
 */
export interface ProjectRuntimeOptions {
  /**
   * Progress of the embedding model's load (`memo embed`, `memo recall --engine vector`).
   * @default undefined
   */
  onModelProgress?: (progress: ModelProgress) => void;
}

/**
 * The project root a command targets: `--dir`, else `MEMO_ROOT_DIR`, else the nearest folder
 * holding `.memo/` (see `findProjectRoot`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 * import { projectRoot } from "./runtime.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await projectRoot(parseArgs(["--dir", dir], { string: ["dir"] }), { env: {}, cwd: "/" }), dir);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function projectRoot(p: ParsedArgs, io: Pick<CliIO, "env" | "cwd">): Promise<string> {
  const dir = stringFlag(p, "dir") ?? readRuntimeEnv(io.env).rootDir;
  return await findProjectRoot(dir, io.cwd);
}

/**
 * Opens the runtime of the project a command targets, runs `fn` on it and closes it. When the
 * project's clone lacks the notes' merge driver (the attribute without `merge.memo.driver`), one
 * `memo: …` line on `io.stderr` says so, with the fix. A command is short: the runtime embeds nothing in the background (`embedInBackground: false`); `memo embed`
 * and `memo recall --engine vector|hybrid` call `runtime.embed()` themselves.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 * import { withProjectRuntime } from "./runtime.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const p = parseArgs(["--dir", dir], { string: ["dir"] });
 * const stats = await withProjectRuntime(p, { env: {}, cwd: "/" }, (runtime) => runtime.stats());
 * assert.equal(stats.notes, 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function withProjectRuntime<T>(
  p: ParsedArgs,
  io: Pick<CliIO, "env" | "cwd"> & Partial<Pick<CliIO, "stderr" | "runProgram">>,
  fn: (runtime: MemoMcpRuntime) => Promise<T>,
  options: ProjectRuntimeOptions = {},
): Promise<T> {
  const rootDir = await projectRoot(p, io);
  // A clone without the notes' merge driver says so on stderr, once, beside the command's work.
  const warned = io.stderr
    ? warnMissingDriver(rootDir, io as Pick<CliIO, "stderr" | "runProgram">)
    : undefined;
  const runtime = createMemoMcpRuntimeFromEnv({
    env: io.env,
    rootDir,
    prewarm: false,
    embedInBackground: false,
    onModelProgress: options.onModelProgress,
    // `--secrets`, on the commands that write (the others do not declare it).
    secrets: choiceFlag(p, "secrets", ["redact", "refuse", "allow"] as const),
  });
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
    await warned;
  }
}
