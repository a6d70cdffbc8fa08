/**
 * Replacing a file whole through a temporary file beside it, so that a reader sees the old content
 * or the new, never a part ({@linkcode replaceFromTemp}).
 *
 * @module
 */

import { type FileHandle, rename, unlink } from "node:fs/promises";

/**
 * Runs `fill` (it writes the temporary file `tmp`, open as `fh`), then, when `sync`, flushes it to
 * disk, closes it and renames it to `path`. When any step fails, `tmp` is closed and removed and
 * the error is thrown on; `path` is untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { open, readFile } from "node:fs/promises";
 * import { join } from "node:path";
 * import { replaceFromTemp } from "./replace_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const fh = await open(join(dir, "a.tmp"), "wx");
 * await replaceFromTemp(fh, join(dir, "a.tmp"), join(dir, "a"), () => fh.write("new").then(() => {}));
 * assert.equal(await readFile(join(dir, "a"), "utf8"), "new");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function replaceFromTemp(
  fh: FileHandle,
  tmp: string,
  path: string,
  fill: () => Promise<void>,
  sync = false,
): Promise<void> {
  try {
    await fill();
    if (sync) await fh.sync();
    await fh.close();
    await rename(tmp, path);
  } catch (e) {
    await fh.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw e;
  }
}
