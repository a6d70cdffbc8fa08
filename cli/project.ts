/**
 * Finding the project a command works on: `--dir`, else the nearest ancestor
 * of the working directory that holds `.memo/`, else the working directory.
 *
 * @module
 */

import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/**
 * Resolves the project root.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { findProjectRoot } from "./project.ts";
 *
 * const project = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(join(project, ".memo"));
 * await Deno.mkdir(join(project, "src", "deep"), { recursive: true });
 * assert.equal(await findProjectRoot(undefined, join(project, "src", "deep")), project);
 * assert.equal(await findProjectRoot("../other", project), join(project, "..", "other")); // --dir
 * await Deno.remove(project, { recursive: true });
 * ```
 */
export async function findProjectRoot(
  dir: string | undefined,
  cwd: string,
  memoHome?: string,
): Promise<string> {
  if (dir !== undefined) return resolve(cwd, dir);
  // The user scope's home is never a project, nor is the folder whose .memo it is.
  const home = memoHome === undefined ? undefined : resolve(cwd, memoHome);
  let current = resolve(cwd);
  while (true) {
    try {
      const memo = join(current, ".memo");
      if (current !== home && memo !== home && (await stat(memo)).isDirectory()) return current;
    } catch {
      // not here; go up
    }
    const parent = dirname(current);
    if (parent === current) return resolve(cwd);
    current = parent;
  }
}
