/**
 * Internal: replacing a file's content whole, so that a reader sees the old
 * text or the new one, never a part (`memo init`'s files, `memo export --out`).
 *
 * @module
 */

import { chmod, open, realpath, rename, rm, stat, writeFile } from "node:fs/promises";

/**
 * Writes `text` to `path` through a temporary file beside it and a rename.
 * A symbolic link is followed (its target is replaced, the link stays) and an
 * existing file keeps its mode; a new one is 0644. The folder must exist.
 * `text` may be a list of pieces written one after the other (a large text
 * need not be one string: the pieces are encoded a few megabytes at a time).
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
 * // Pieces, batched across a megabyte boundary, with characters of 1 to 4 bytes:
 * const pieces = ["é", "x".repeat(1 << 20), "😀", "日本".repeat(600_000), "end\n"];
 * await writeFileAtomically(`${dir}/a.json`, pieces);
 * assert.equal(await readFile(`${dir}/a.json`, "utf8"), pieces.join(""));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeFileAtomically(
  path: string,
  text: string | readonly string[],
): Promise<void> {
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
    if (typeof text === "string") await writeFile(tmp, text, { mode: mode ?? 0o644 });
    else await writePieces(tmp, text, mode ?? 0o644);
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Characters encoded per write: at most 3 bytes each in UTF-8. */
const BATCH = 1 << 20;

/** Writes the pieces to a new file, joined and encoded a batch at a time into one buffer. */
async function writePieces(path: string, pieces: readonly string[], mode: number): Promise<void> {
  const file = await open(path, "w", mode);
  try {
    const buffer = new Uint8Array(BATCH * 3);
    const encoder = new TextEncoder();
    let from = 0;
    while (from < pieces.length) {
      let to = from, length = 0;
      while (to < pieces.length && (to === from || length + pieces[to].length <= BATCH)) {
        length += pieces[to++].length;
      }
      const batch = to === from + 1 ? pieces[from] : pieces.slice(from, to).join("");
      const bytes = batch.length <= BATCH
        ? buffer.subarray(0, encoder.encodeInto(batch, buffer).written)
        : encoder.encode(batch);
      for (let done = 0; done < bytes.length;) {
        done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
      }
      from = to;
    }
  } finally {
    await file.close();
  }
}
