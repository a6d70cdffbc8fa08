/**
 * The runtime a `memo` command works through: built by the same factory as `memo mcp` and `memo
 * serve`, so that `MEMO_RUNTIME` and `MEMO_ROOT_DIR` apply to every command. The project is
 * `--dir`, else `MEMO_ROOT_DIR`, else the nearest ancestor holding `.memo/`, else the working
 * directory.
 *
 * @module
 */

import { memoHomeOf } from "../env.ts";
import {
  createMemoMcpRuntimeFromEnv,
  type MemoMcpRuntime,
  type ModelProgress,
  readRuntimeEnv,
} from "../runtimes/mod.ts";
import { choiceFlag, type ParsedArgs, stringFlag } from "./args.ts";
import type { CliIO } from "./context.ts";
import { findProjectRoot } from "./project.ts";
import { warnMissingDriver } from "./git/warning.ts";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";

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
  const flag = stringFlag(p, "dir");
  const dir = flag ?? readRuntimeEnv(io.env).rootDir;
  const root = await findProjectRoot(dir, io.cwd, memoHomeOf(io.env));
  // A folder named on purpose must be there: a mistyped one is not made, notes and all.
  if (dir !== undefined) {
    await checkFolder(root, flag !== undefined ? `--dir ${dir}` : `MEMO_ROOT_DIR ${dir}`);
  }
  return root;
}

/** Throws "Cannot use …: no such folder" (exit 1) unless `path` is a folder. */
async function checkFolder(path: string, named: string): Promise<void> {
  let folder: boolean;
  try {
    folder = (await stat(path)).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder) {
    throw new Error(
      `Cannot use ${named}: no such folder (create it, or run \`memo init --dir ${path}\`)`,
    );
  }
}

/**
 * Opens the runtime of the project a command targets, runs `fn` on it and closes it. A command is
 * short: the runtime embeds nothing in the background (`embedInBackground: false`); `memo embed`
 * and `memo recall --engine vector|hybrid` call `runtime.embed()` themselves. While `notes.md`
 * holds an unresolved git merge, it prints one `memo:` line saying so on stderr
 * ({@linkcode unresolvedMergeNotice}), unless a write refused for that reason said it already. When
 * the project's clone lacks the notes' merge driver (the attribute without `merge.memo.driver`),
 * one `memo: …` line says so, with the fix.
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
  let refused = false;
  try {
    return await fn(runtime);
  } catch (e) {
    refused = (e as { code?: unknown } | null)?.code === "CONFLICT";
    throw e;
  } finally {
    await runtime.close();
    await warned;
    // A refused write said it already: one line either way.
    const notice = refused ? undefined : await unresolvedMergeNotice(rootDir);
    if (notice && io.stderr) await io.stderr(notice);
  }
}

/**
 * The one `memo:` line a command prints on stderr while the project's `notes.md` holds an
 * unresolved git merge (conflict markers); `undefined` when it does not (one search of the file).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unresolvedMergeNotice } from "./runtime.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await unresolvedMergeNotice(dir), undefined); // no notes.md
 * await Deno.mkdir(`${dir}/.memo/memory`, { recursive: true });
 * await Deno.writeTextFile(`${dir}/.memo/memory/notes.md`, "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n");
 * assert.match((await unresolvedMergeNotice(dir))!, /^memo: .*unresolved git merge.*memo resolve/);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function unresolvedMergeNotice(root: string): Promise<string | undefined> {
  const path = join(root, ".memo", "memory", "notes.md");
  const bytes = await readFile(path).catch(() => undefined);
  // Bytes first: a clean file is never decoded, and the memory package loads only for a marker.
  if (!bytes || !startsALine(bytes, "<<<<<<<")) return undefined;
  const { conflictHunks, conflictScanFor } = await import("@memo/memory");
  const text = new TextDecoder().decode(bytes);
  if (conflictHunks(text, await conflictScanFor(text, path)) === 0) return undefined;
  return `memo: ${path} has an unresolved git merge (conflict markers): reads show the notes ` +
    "merged, writes are refused; run `memo resolve`, then `git add` the file\n";
}

/** Whether `needle` starts a line of `bytes` (found by the runtime's native byte search). */
function startsALine(bytes: Buffer, needle: string): boolean {
  for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + 1)) {
    if (i === 0 || bytes[i - 1] === 10) return true;
  }
  return false;
}
