/**
 * Test helper: a temporary folder that removes itself, with what it holds, when disposed.
 * Not published (`testing/` is excluded from the packages).
 *
 * @module
 */

/** A temporary folder: its `path`, removed with its contents by `await using`. */
export interface TempDir extends AsyncDisposable {
  /** The folder's absolute path. */
  readonly path: string;
}

/**
 * Makes a temporary folder named with `prefix`; `await using` removes it when the scope ends,
 * whether the test passed or threw.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tempDir } from "./temp_dir.ts";
 *
 * let kept = "";
 * {
 *   await using dir = await tempDir("memo-example-");
 *   kept = dir.path;
 *   await Deno.writeTextFile(`${kept}/a.txt`, "a");
 * }
 * await assert.rejects(Deno.stat(kept), Deno.errors.NotFound);
 * ```
 */
export async function tempDir(prefix: string): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
