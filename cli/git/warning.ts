/**
 * The warning of a clone whose project names memo's merge driver but whose git config lacks it:
 * one `memo:` line on stderr, and a `git` field in the project's stats.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import type { CliIO } from "../context.ts";
import {
  gitattributesPath,
  gitConfigValue,
  hasMergeAttribute,
  inGitWorkTree,
  initFix,
  type RunProgram,
} from "./wiring.ts";

/**
 * The one-line warning of a clone whose project has the attribute but no driver, or `undefined`
 * when there is nothing to say. Cheap where there is nothing to say: it reads
 * `.memo/.gitattributes` and runs git only when that names the driver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { missingDriverWarning } from "./warning.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await missingDriverWarning(runProgram, dir), undefined); // no attribute: no git run
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function missingDriverWarning(
  run: RunProgram,
  root: string,
): Promise<string | undefined> {
  const attributes = await readFile(gitattributesPath(root), "utf8").catch(() => undefined);
  if (!hasMergeAttribute(attributes)) return undefined;
  if (await gitConfigValue(run, root, "merge.memo.driver") !== undefined) return undefined;
  if (!await inGitWorkTree(run, root)) return undefined;
  return missingDriverMessage(root);
}

/**
 * The message of a missing driver, naming the command that fixes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingDriverMessage } from "./warning.ts";
 *
 * assert.match(missingDriverMessage("/work/app"), /run: memo init --dir \/work\/app$/);
 * ```
 */
export function missingDriverMessage(root: string): string {
  return "this clone has no merge driver for .memo/memory/notes.md (git would merge notes as " +
    `text and leave conflicts); run: ${initFix(root)}`;
}

/** The io objects already warned (one line per command, hence per process). */
const warned = new WeakSet<object>();

/**
 * Prints the missing-driver warning (`memo: …` on stderr, terminal or not) at most once per `io`,
 * and never fails: a git that cannot run says nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { warnMissingDriver } from "./warning.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const io = recordingIO(dir);
 * await warnMissingDriver(dir, io);
 * assert.deepEqual(io.err, []); // not a git work tree: nothing to say
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function warnMissingDriver(
  root: string,
  io: Pick<CliIO, "stderr" | "runProgram">,
  print: (line: string) => Promise<void> = (line) => io.stderr(line),
): Promise<void> {
  if (!io.runProgram || warned.has(io)) return;
  warned.add(io);
  try {
    const warning = await missingDriverWarning(io.runProgram, root);
    if (warning !== undefined) await print(`memo: ${warning}\n`);
  } catch {
    // a warning never fails its command
  }
}

/**
 * What `memory_stats` (`stats().git`) says of a clone without the notes' merge driver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { GitStats } from "./warning.ts";
 *
 * const git: GitStats = { driver: "missing", fix: "memo init --dir /work/app" };
 * assert.equal(git.driver, "missing");
 * ```
 */
export interface GitStats {
  /** `missing`: `.memo/.gitattributes` names the driver, this clone's git config lacks it. */
  driver: "missing";
  /** The command that fixes it. */
  fix: string;
}

/**
 * Makes `runtime.stats()` (hence `memory_stats` and the page's status) carry `git: { driver:
 * "missing", fix }` when the project's clone lacks the notes' merge driver. The check runs once,
 * at the first `stats()` call, never before; `runtime` is returned, its `stats` replaced.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { withGitStats } from "./warning.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const runtime = withGitStats({ stats: () => Promise.resolve({ notes: 0 }) }, dir, runProgram);
 * assert.deepEqual(await runtime.stats(), { notes: 0 }); // not in git: nothing added
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function withGitStats<R extends { stats(...args: never[]): Promise<object> }>(
  runtime: R,
  root: string,
  run: RunProgram | undefined,
): R {
  if (!run) return runtime;
  const stats = runtime.stats.bind(runtime);
  let missing: Promise<boolean> | undefined;
  runtime.stats = (async (...args: never[]) => {
    missing ??= missingDriverWarning(run, root).then((w) => w !== undefined, () => false);
    const [result, lacks] = await Promise.all([stats(...args), missing]);
    if (!lacks) return result;
    const git: GitStats = { driver: "missing", fix: initFix(root) };
    return { ...result, git };
  }) as R["stats"];
  return runtime;
}
