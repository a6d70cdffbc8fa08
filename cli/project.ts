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
 * import { findProjectRoot } from "./project.ts";
 * const root = await findProjectRoot(undefined, Deno.cwd());
 * ```
 */
export async function findProjectRoot(dir: string | undefined, cwd: string): Promise<string> {
  if (dir !== undefined) return resolve(cwd, dir);
  let current = resolve(cwd);
  while (true) {
    try {
      if ((await stat(join(current, ".memo"))).isDirectory()) return current;
    } catch {
      // not here; go up
    }
    const parent = dirname(current);
    if (parent === current) return resolve(cwd);
    current = parent;
  }
}
