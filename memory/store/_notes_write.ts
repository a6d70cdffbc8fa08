/**
 * Internal: writing the bytes of `notes.md`: appending new sections with one write and one fsync,
 * or replacing the file atomically.
 *
 * @module
 */

import { type FileHandle, open, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { MemoryError } from "../errors.ts";
import { replaceFromTemp } from "../platform/replace_file.ts";
import { tempPath } from "./_lock.ts";
import { type FileStamp, PIECE, TAIL_BYTES, toStamp } from "./_notes_file.ts";

const encoder = new TextEncoder();

/** The last {@linkcode TAIL_BYTES} of `before` followed by `added`. */
export function joinTail(before: Uint8Array, added: Uint8Array): Uint8Array {
  if (added.length >= TAIL_BYTES) return added.slice(added.length - TAIL_BYTES);
  const keep = Math.min(before.length, TAIL_BYTES - added.length);
  const out = new Uint8Array(keep + added.length);
  out.set(before.subarray(before.length - keep));
  out.set(added, keep);
  return out;
}

/**
 * Appends the concatenation of `pieces` with one write and one fsync. On failure the file is cut
 * back to `sizeBefore`; `cutBack` is false when even that failed (the lock must then not be
 * released as clean). `whileDurable` runs (once, its errors ignored) after the fsync has started
 * and before it is awaited, so that its work overlaps the disk's.
 */
export async function appendText(
  notesPath: string,
  pieces: readonly string[],
  sizeBefore: number,
  whileDurable?: () => void,
): Promise<{ stamp: FileStamp; bytes: Uint8Array }> {
  const bytes = encodePieces(pieces);
  const fh = await open(notesPath, "a");
  try {
    await writeAll(fh, bytes);
    const durable = fh.datasync();
    if (whileDurable) {
      try {
        whileDurable();
      } catch { /* the caller's work; the write goes on */ }
    }
    await durable;
    return { stamp: toStamp(await fh.stat()), bytes };
  } catch (e) {
    try {
      await fh.truncate(sizeBefore);
      await fh.sync();
    } catch (cause) {
      throw new MemoryError(`Cannot append to notes.md: ${(e as Error).message}`, {
        cause,
        details: { cutBack: false },
      });
    }
    throw e;
  } finally {
    await fh.close();
  }
}

/**
 * UTF-8 of the concatenation of `pieces`, encoded straight into one buffer sized for ASCII (no
 * joined string, no second copy); text that is not ASCII grows it. A piece must not end inside a
 * surrogate pair (sections never do).
 */
export function encodePieces(pieces: readonly string[]): Uint8Array {
  let chars = 0;
  for (const piece of pieces) chars += piece.length;
  let out = new Uint8Array(chars);
  let at = 0;
  for (const piece of pieces) {
    let read = 0;
    for (;;) {
      const r = encoder.encodeInto(read === 0 ? piece : piece.slice(read), out.subarray(at));
      read += r.read;
      at += r.written;
      if (read >= piece.length) break;
      const bigger = new Uint8Array(Math.max(out.length * 2, at + (piece.length - read) * 3));
      bigger.set(out.subarray(0, at));
      out = bigger;
    }
  }
  return at === out.length ? out : out.subarray(0, at);
}

/**
 * Replaces notes.md atomically with the concatenation of `pieces`: temp file in the same folder,
 * fsync, rename, fsync of the folder. Returns the new stamp, the byte count and the new tail.
 */
export async function rewriteFile(
  notesPath: string,
  pieces: Iterable<string>,
): Promise<{ stamp: FileStamp; size: number; tail: Uint8Array }> {
  // A notes.md that is a symbolic link (to a dotfiles repository, say) is written where it points:
  // a rename over the link would make it a file of its own, and the two would part.
  notesPath = await realpath(notesPath).catch(() => notesPath);
  const tmp = tempPath(notesPath);
  const mode = ((await stat(notesPath).catch(() => undefined))?.mode ?? 0o644) & 0o777;
  const fh = await open(tmp, "wx", mode);
  let size = 0;
  let tail: Uint8Array = new Uint8Array(0);
  let pending = "";
  const flush = async () => {
    const bytes = encoder.encode(pending);
    pending = "";
    await writeAll(fh, bytes);
    size += bytes.length;
    tail = joinTail(tail, bytes);
  };
  await replaceFromTemp(fh, tmp, notesPath, async () => {
    for (const piece of pieces) {
      pending += piece;
      if (pending.length >= PIECE) await flush();
    }
    await flush();
  }, true);
  await syncDir(dirname(notesPath));
  const st = await stat(notesPath);
  return { stamp: toStamp(st), size, tail };
}

async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // Not every platform can fsync a folder; the rename itself is still atomic.
  }
}
