/**
 * Internal: how the store writes a file into a cache folder (`.memo/cache/`: the index snapshot,
 * the merge of a conflicted file, the digest record). Each is rebuilt at will, so a write is
 * atomic (a temporary file renamed over the old one) and the folder keeps itself out of the
 * project's git history.
 *
 * @module
 */

import { mkdir, rename, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { currentPid } from "../platform/system.ts";

/**
 * Writes `data` to `path` atomically: into `<path>.<pid>.<random>.tmp` beside it, then renamed
 * over it. Creates the folder, with a `.gitignore` of `*` when it has none. Rejects when a step
 * fails, the temporary file removed first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { writeCacheFile } from "./_cache_file.ts";
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "cache", "thing.json");
 * await writeCacheFile(path, '{"ok":true}');
 * assert.equal(await Deno.readTextFile(path), '{"ok":true}');
 * assert.equal(await Deno.readTextFile(join(dir, "cache", ".gitignore")), "*\n");
 * assert.deepEqual([...Deno.readDirSync(join(dir, "cache"))].length, 2); // no temporary file left
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeCacheFile(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // The cache is rebuilt at will and can be large: keep it out of the project's git history.
  await writeFile(join(dirname(path), ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
  const tmp = `${path}.${currentPid()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}
