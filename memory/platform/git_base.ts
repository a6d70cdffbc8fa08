/**
 * The base of a git merge in progress: the common ancestor's version of a file, which git keeps in
 * its index as stage 1 while the file is unmerged (a merge, a rebase, a cherry-pick, a revert or a
 * stash pop that conflicted). The file store asks for it only while `notes.md` holds conflict
 * markers without `|||||||` parts, so that reads and `memo resolve` merge three ways; and whether
 * git lists the file as unmerged, with the two sides as committed, asked only when a run of markers
 * sits in a code block.
 *
 * @module
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, dirname, join, resolve as absolute } from "node:path";
import process from "node:process";

/**
 * The text of `path` at stage 1 of git's index (`git show :1:./<name>`, run in its folder);
 * `undefined` outside a git work tree, when git is missing, or when the file is not unmerged.
 * Never throws. Without a `.git` in the folder or above it (and without `GIT_DIR`), git is not
 * run at all: it would only say that this is not a repository.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gitMergeBase } from "./git_base.ts";
 * const dir = await Deno.makeTempDir();
 * assert.equal(await gitMergeBase(`${dir}/notes.md`), undefined); // not in a merge
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function gitMergeBase(path: string): Promise<string | undefined> {
  return gitOutput(path, ["show", `:1:./${basename(path)}`]);
}

/**
 * Whether git lists `path` as unmerged (`git ls-files -u`, run in its folder): a merge, a rebase,
 * a cherry-pick, a revert or a stash pop left it conflicted and it is not yet `git add`ed. False
 * outside a git work tree or when git is missing; never throws, and runs no git without a `.git`
 * in the folder or above it (or `GIT_DIR`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gitUnmerged } from "./git_base.ts";
 * const dir = await Deno.makeTempDir();
 * assert.equal(await gitUnmerged(`${dir}/notes.md`), false); // not in a repository
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function gitUnmerged(path: string): Promise<boolean> {
  const listed = await gitOutput(path, ["ls-files", "-u", "--", `./${basename(path)}`]);
  return listed !== undefined && listed.trim() !== "";
}

/**
 * The texts of `path` at stages 2 and 3 of git's index (the two sides a merge in progress joins,
 * as committed: `git show :2:./<name>` and `:3:`); those that cannot be read are left out. Never
 * throws, and runs no git outside a repository.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gitSides } from "./git_base.ts";
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await gitSides(`${dir}/notes.md`), []); // not in a merge
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function gitSides(path: string): Promise<string[]> {
  const sides = await Promise.all(
    [2, 3].map((stage) => gitOutput(path, ["show", `:${stage}:./${basename(path)}`])),
  );
  return sides.filter((side): side is string => side !== undefined);
}

/**
 * What `git ARGS` prints, run in the folder of `path`; `undefined` when it fails, when git is
 * missing, or (without running it) when no `.git` is in the folder or above it.
 */
function gitOutput(path: string, args: string[]): Promise<string | undefined> {
  if (!mayBeInGit(dirname(path))) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    try {
      execFile(
        "git",
        args,
        { cwd: dirname(path), encoding: "utf8", maxBuffer: 1 << 30 },
        (error, stdout) => resolve(error === null ? String(stdout) : undefined),
      );
    } catch {
      resolve(undefined);
    }
  });
}

/** Whether `dir` or a folder above it holds a `.git` (or `GIT_DIR` names one); never throws. */
function mayBeInGit(dir: string): boolean {
  try {
    if (process.env.GIT_DIR) return true;
    for (let at = absolute(dir);; at = dirname(at)) {
      if (existsSync(join(at, ".git"))) return true;
      if (dirname(at) === at) return false;
    }
  } catch {
    return true;
  }
}
