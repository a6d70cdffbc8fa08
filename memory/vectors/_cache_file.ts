/**
 * Internal: the file operations of the embedding cache (`cache.ts`) that do not depend
 * on what an instance knows: positional reads, putting a file that holds only the header at the
 * path (created whole, so that no process ever sees a file without its header), and the rewrite
 * of a compaction. Temporary files sit beside the cache file and are renamed or linked into place.
 *
 * @module
 */

import { constants } from "node:fs";
import { link, open, rename, unlink, writeFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { replaceFromTemp } from "../platform/replace_file.ts";
import { currentPid } from "../platform/system.ts";
import { validRecord } from "./cache_format.ts";

/**
 * Reads up to `length` bytes at `position` into `into`; returns how many were read (fewer at the
 * end of the file).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { open } from "node:fs/promises";
 * import { readAt } from "./_cache_file.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/f`, "abcdef");
 * const handle = await open(`${dir}/f`);
 * const into = new Uint8Array(8);
 * assert.equal(await readAt(handle, into, 8, 4), 2);
 * assert.equal(new TextDecoder().decode(into.subarray(0, 2)), "ef");
 * await handle.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readAt(
  handle: FileHandle,
  into: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(into, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** A fresh temporary file name beside `path`. */
function tempPath(path: string): string {
  return `${path}.${currentPid()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
}

/**
 * Puts a file holding only `header` at `path`: by hard link (only when none exists, so a file
 * another process just created is kept) or by rename (replacing what is there).
 */
async function installHeaderFile(
  path: string,
  header: Uint8Array,
  how: "link" | "rename",
): Promise<void> {
  const tmp = tempPath(path);
  await writeFile(tmp, header);
  try {
    if (how === "rename") await rename(tmp, path);
    else {
      await link(tmp, path).catch((error) => {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
      });
    }
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

const FILE_FLAGS = constants.O_RDWR | constants.O_APPEND;

/**
 * Opens the cache file at `path` for reading and appending, creating it whole when missing and
 * replacing it with a fresh one when it does not start with `header` (damaged, or another format
 * version, model or dimensions). Throws when the file cannot be created or opened, or keeps
 * changing under it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openCacheFile } from "./_cache_file.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/m.vec`;
 * const header = new TextEncoder().encode("memo-vec…");
 * await (await openCacheFile(path, header)).close(); // created
 * assert.deepEqual(await Deno.readFile(path), header);
 * await Deno.writeTextFile(path, "something else");
 * await (await openCacheFile(path, header)).close(); // replaced
 * assert.deepEqual(await Deno.readFile(path), header);
 * assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["m.vec"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openCacheFile(path: string, header: Uint8Array): Promise<FileHandle> {
  for (let attempt = 0;; attempt++) {
    let handle: FileHandle;
    try {
      handle = await open(path, FILE_FLAGS);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT" || attempt >= 5) throw error;
      await installHeaderFile(path, header, "link");
      continue;
    }
    const found = new Uint8Array(header.length + 1);
    const got = await readAt(handle, found, header.length, 0).catch(() => 0);
    if (got === header.length && found.subarray(0, got).every((b, i) => b === header[i])) {
      return handle;
    }
    await handle.close().catch(() => {});
    if (attempt >= 5) {
      throw new Error(`Cannot open embedding cache ${path}: it keeps changing`);
    }
    // Damaged, or another version, model or dimensions: start over with an empty file.
    await installHeaderFile(path, header, "rename");
  }
}

/**
 * Writes `header` and then each record of `records` (key → its offset in `from`, records of `size`
 * bytes) that still reads whole, to a temporary file renamed over `path`. Returns the new offset of
 * each record written. On failure the temporary file is removed and `path` is left as it was.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { open } from "node:fs/promises";
 * import { writeCompacted } from "./_cache_file.ts";
 * import { encodeHeader, encodeRecords } from "./cache_format.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/m.vec`;
 * const header = encodeHeader("m", 1);
 * const keys = ["a".repeat(32), "b".repeat(32)];
 * const { batch } = encodeRecords(keys.map((key) => ({ key, vector: new Float32Array([1]) })), 1);
 * const size = batch.length / 2;
 * await Deno.writeFile(path, new Uint8Array([...header, ...batch]));
 * const from = await open(path);
 * const offsets = await writeCompacted(path, header, from, size, [[keys[1], header.length + size]]);
 * await from.close();
 * assert.deepEqual(offsets, new Map([[keys[1], header.length]]));
 * assert.equal((await Deno.stat(path)).size, header.length + size);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeCompacted(
  path: string,
  header: Uint8Array,
  from: FileHandle,
  size: number,
  records: Iterable<[key: string, offset: number]>,
): Promise<Map<string, number>> {
  const tmp = tempPath(path);
  const out = await open(tmp, "w");
  const offsets = new Map<string, number>();
  await replaceFromTemp(out, tmp, path, async () => {
    await out.write(header);
    let at = header.length;
    const record = new Uint8Array(size);
    const view = new DataView(record.buffer);
    for (const [key, offset] of records) {
      const got = await readAt(from, record, size, offset);
      if (got < size || !validRecord(record, view, 0, size)) continue;
      await out.write(record);
      offsets.set(key, at);
      at += size;
    }
  });
  return offsets;
}
