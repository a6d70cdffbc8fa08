/**
 * Internal: replacing a file's content whole, so that a reader sees the old
 * text or the new one, never a part (`memo init`'s files, `memo export --out`).
 *
 * @module
 */

import { chmod, realpath, rename, rm, stat, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `path` through a temporary file beside it and a rename.
 * A symbolic link is followed (its target is replaced, the link stays) and an
 * existing file keeps its mode; a new one is 0644. The folder must exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readFile, stat, writeFile } from "node:fs/promises";
 * import { writeFileAtomically } from "./write_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await writeFile(`${dir}/a.json`, "{}\n", { mode: 0o600 });
 * await writeFileAtomically(`${dir}/a.json`, '{"a":1}\n');
 * assert.equal(await readFile(`${dir}/a.json`, "utf8"), '{"a":1}\n');
 * assert.equal((await stat(`${dir}/a.json`)).mode & 0o777, 0o600); // the mode is kept
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  let target = path;
  let mode: number | undefined;
  try {
    target = await realpath(path);
    mode = (await stat(target)).mode & 0o777;
  } catch {
    // a new file
  }
  const tmp = `${target}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await writeFile(tmp, text, { mode: mode ?? 0o644 });
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
