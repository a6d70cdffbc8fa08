/**
 * Internal: reading the bytes of `notes.md` (writing them: `_notes_write.ts`).
 *
 * **Reading without the lock.** A reader opens the file (pinning its inode), stats it, reads the
 * lock, reads, and stats again. When a lock with a matching inode is in place, only the bytes
 * before the lock's recorded size are used: everything after it is a write in flight (or the torn
 * tail of a dead writer). Without a usable lock the read counts only if the two stats agree;
 * otherwise it is retried. So a reader never sees half a batch.
 *
 * **Decoding.** The file is read in pieces of about 1 MB cut before marker lines (any size can
 * be read, and only a few pieces of bytes are held at a time: the next piece is read by the
 * thread pool while this one is hashed and decoded). Each piece is decoded once: its
 * sections of pure ASCII into one one-byte string (each run of them a slice of it), and a section
 * holding other text on its own, so only it costs two bytes a character. One em dash per megabyte
 * would otherwise double the memory of the whole file.
 *
 * **Hashing.** On request a read also hashes the bytes it reads (SHA-256, natively: about 0.7 ms a
 * megabyte here), and can cut its pieces at one more place, a byte offset where a section starts,
 * taking the hash of everything before it there too. A `Memo` keys its index snapshot on these
 * digests (see `index_cache.ts`). A digest recorded for the file's exact status (see
 * `_digest_cache.ts`) is taken instead of hashing, when the read covers the whole file and the
 * file keeps that status from before the read to after it.
 *
 * @module
 */

import { isAscii } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { MemoryError } from "../errors.ts";
import { NOTE_MARKER_START } from "./codec.ts";
import { isCode, readLock, sleep } from "./_lock.ts";
import { statFileSync } from "../platform/stat_sync.ts";
import { type HashedStatus, type KnownDigest, sameStatus, statusOf } from "./_digest_cache.ts";

/** Identity and extent of notes.md as last loaded. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
  birthtimeMs: number;
  /** The inode's change time: an edit that puts `mtime` back (`touch -r`) still moves it. */
  ctimeMs: number;
}

/** Bytes of the file's end remembered to check that an append did not rewrite them. */
export const TAIL_BYTES = 64;
export const PIECE = 1 << 20;
const MARKER_SEARCH = "\n" + NOTE_MARKER_START;
const PATTERN = new TextEncoder().encode(MARKER_SEARCH);

/**
 * Stats notes.md; undefined when it does not exist. Synchronous on purpose: it runs before every
 * read of a loaded store, and one stat syscall costs a few microseconds where the thread-pool
 * round trip of an async stat costs about 50.
 */
export function statStamp(path: string): FileStamp | undefined {
  const status = statFileSync(path);
  return status === undefined ? undefined : toStamp(status);
}

export function toStamp(
  st: { size: number; mtimeMs: number; ino: number; birthtimeMs: number; ctimeMs?: number },
  size = st.size,
): FileStamp {
  return {
    size,
    mtimeMs: st.mtimeMs,
    ino: st.ino,
    birthtimeMs: st.birthtimeMs || 0,
    ctimeMs: st.ctimeMs || 0,
  };
}

/** Whether two stamps describe the same file content. */
export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs &&
    sameFile(a, b);
}

/** Whether two stamps describe the same inode (not replaced by a rename). */
export function sameFile(a: FileStamp, b: FileStamp): boolean {
  return a.ino === b.ino && a.birthtimeMs === b.birthtimeMs;
}

/** A consistent read of notes.md from `from` to `stamp.size`. */
export interface NotesRead {
  chunks: string[];
  stamp: FileStamp;
  /** The last bytes before `stamp.size` (up to {@linkcode TAIL_BYTES}). */
  tail: Uint8Array;
  /** With `hash`: the SHA-256 (hex) of the file's bytes up to `stamp.size`. */
  sha256?: string;
  /**
   * With `hash` and `mark`, when a section starts at `mark` (or the file ends there): the
   * SHA-256 (hex) of the file's first `mark` bytes, and how many of `chunks` hold them.
   */
  marked?: { bytes: number; sha256: string; chunks: number };
  /**
   * With `sha256`, when the read covered the whole file and the file kept one status (ctime
   * included) from before the read to after it: that status, which the digest can be recorded for.
   */
  status?: HashedStatus;
  /** Whether `sha256` is `known`'s, taken without hashing. */
  trusted?: boolean;
}

/** Settings of {@linkcode readNotes}. */
export interface ReadSettings {
  notesPath: string;
  lockPath: string;
  /** The caller holds the lock: nobody else writes. */
  locked: boolean;
  /** Read only what follows this offset (an incremental reload). */
  from?: number;
  /** The bytes the file must hold just before `from`. */
  expectTail?: Uint8Array;
  /** Hash the bytes read (a full read only: `from` must be 0). */
  hash?: boolean;
  /** With `hash`: also cut the pieces at this offset and hash the bytes before it, see `marked`. */
  mark?: number;
  /**
   * With `hash`: a digest recorded for a status of the file. When the file has exactly that
   * status before and after the read, and `mark` is unset or the file's size, its `sha256` is
   * taken instead of hashing.
   */
  known?: KnownDigest;
}

/**
 * Reads notes.md consistently. "missing" when it does not exist; "moved" when an incremental
 * read is not possible (the bytes before `from` changed, the file shrank, or the new bytes do not
 * start with a marker line): the caller reloads everything.
 */
export async function readNotes(s: ReadSettings): Promise<NotesRead | "missing" | "moved"> {
  let fh: FileHandle;
  try {
    fh = await open(s.notesPath, "r");
  } catch (e) {
    if (isCode(e, "ENOENT")) return "missing";
    throw e;
  }
  try {
    const from = s.from ?? 0;
    for (let attempt = 0;; attempt++) {
      const st1 = await fh.stat();
      let limit = st1.size;
      let safe = s.locked;
      if (!s.locked) {
        const info = (await readLock(s.lockPath))?.info;
        if (info && (info.ino === 0 || info.ino === st1.ino) && st1.size >= info.size) {
          limit = info.size;
          safe = true;
        }
      }
      if (from > limit) return "moved";
      if (from > 0) {
        const expect = s.expectTail ?? new Uint8Array(0);
        if (expect.length === 0 || expect[expect.length - 1] !== 10) return "moved";
        const got = await readRange(fh, from - expect.length, from);
        if (!got || !equalBytes(got, expect)) return "moved";
      }
      // The file's status when a read of it all is hashed (what a recorded digest is tied to).
      const before = s.hash && from === 0 && limit === st1.size ? statusOf(st1) : undefined;
      // A digest at a mark inside the file would still need hashing.
      const inside = s.mark !== undefined && s.mark > 0 && s.mark < limit;
      const trust = before !== undefined && !inside && s.known !== undefined &&
        sameStatus(before, s.known.status);
      const hash = s.hash && from === 0 && !trust ? createHash("sha256") : undefined;
      let mark = hash && s.mark !== undefined && s.mark > 0 && s.mark <= limit ? s.mark : undefined;
      if (mark !== undefined && mark < limit && !await sectionStartsAt(fh, mark)) mark = undefined;
      const read = await readChunks(fh, from, limit, hash, mark);
      const tail = read && await readRange(fh, Math.max(0, limit - TAIL_BYTES), limit);
      const st2 = await fh.stat();
      const settled = st2.size === st1.size && st2.mtimeMs === st1.mtimeMs;
      // The status the bytes were read under, when it held throughout.
      const status = before && sameStatus(before, statusOf(st2)) ? before : undefined;
      if (read && tail && st2.size >= limit && (safe || settled) && (!trust || status)) {
        const { chunks, marked } = read;
        if (from > 0 && chunks.length > 0 && !chunks[0].startsWith(NOTE_MARKER_START)) {
          return "moved";
        }
        const done: NotesRead = { chunks, stamp: toStamp(st1, limit), tail };
        if (hash) done.sha256 = hash.digest("hex");
        if (marked) done.marked = marked;
        if (trust) {
          done.sha256 = s.known!.sha256;
          done.trusted = true;
          if (s.mark === limit) {
            done.marked = { bytes: limit, sha256: done.sha256, chunks: chunks.length };
          }
        }
        if (status && done.sha256 !== undefined) done.status = status;
        return done;
      }
      if (attempt >= 100) {
        throw new MemoryError("Cannot read notes.md: it kept changing while being read");
      }
      await sleep(1 + Math.min(attempt, 20));
    }
  } finally {
    await fh.close();
  }
}

async function readRange(fh: FileHandle, start: number, end: number) {
  const buf = new Uint8Array(end - start);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
    if (bytesRead === 0) return undefined;
    got += bytesRead;
  }
  return buf;
}

/** Whether a marker line starts at `at` (a line start holding the marker's first bytes). */
async function sectionStartsAt(fh: FileHandle, at: number): Promise<boolean> {
  const got = await readRange(fh, at - 1, at - 1 + PATTERN.length);
  return got !== undefined && equalBytes(got, PATTERN);
}

/**
 * Reads [start, end) and decodes it in pieces cut before marker lines (and at `mark`, which the
 * caller checked to start a section); undefined on a short read. With `hash`, every byte read
 * goes through it, and its digest at `mark` is taken.
 */
async function readChunks(
  fh: FileHandle,
  start: number,
  end: number,
  hash?: Hash,
  mark?: number,
): Promise<{ chunks: string[]; marked?: NotesRead["marked"] } | undefined> {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const scratch = { buffer: new Uint8Array(0) };
  const chunks: string[] = [];
  let marked: NotesRead["marked"];
  let buf = new Uint8Array(Math.min(end - start, PIECE) + PATTERN.length);
  let len = 0;
  let pos = start;
  // A read never runs past the mark, so that the hash can be taken there.
  const wantAt = (at: number) =>
    Math.min(PIECE, end - at, mark !== undefined && at < mark ? mark - at : PIECE);
  // Two buffers: the next piece is read (by the thread pool) while this one is decoded.
  const spares = [0, 1].map(() => new Uint8Array(Math.min(end - start, PIECE)));
  let which = 0;
  let reading = pos < end ? fh.read(spares[0], 0, wantAt(pos), pos) : undefined;
  try {
    while (pos < end) {
      const { bytesRead } = await reading!;
      reading = undefined;
      if (bytesRead === 0) return undefined;
      const got = spares[which].subarray(0, bytesRead);
      pos += bytesRead;
      which ^= 1;
      if (pos < end) reading = fh.read(spares[which], 0, wantAt(pos), pos);
      if (buf.length - len < bytesRead) {
        const bigger = new Uint8Array(Math.max(buf.length * 2, len + bytesRead));
        bigger.set(buf.subarray(0, len));
        buf = bigger;
      }
      buf.set(got, len);
      hash?.update(got);
      const scanFrom = Math.max(0, len - PATTERN.length);
      len += bytesRead;
      const cut = pos === mark ? len : lastMarkerStart(buf, scanFrom, len);
      if (cut > 0) {
        decodeSections(buf.subarray(0, cut), decoder, chunks, scratch);
        buf.copyWithin(0, cut, len);
        len -= cut;
      }
      if (pos === mark) {
        marked = { bytes: pos, sha256: hash!.copy().digest("hex"), chunks: chunks.length };
      }
    }
  } finally {
    // Never leave a read in flight: the caller closes the file next.
    await reading?.catch(() => {});
  }
  if (len > 0) decodeSections(buf.subarray(0, len), decoder, chunks, scratch);
  return { chunks, marked };
}

/**
 * Decodes bytes that hold whole sections, keeping memory low and the collector's work small. A
 * section holding text that is not ASCII is decoded on its own, so only it can become a two-byte
 * string: decoding whole pieces instead would make every piece that holds one em dash a
 * two-byte string, twice the memory for most real files. The runs of pure ASCII sections between
 * them are gathered into `scratch` and decoded in one call: one large one-byte string, which the
 * engine allocates outside its young generation, and each run is a slice of it. (Decoded one by
 * one, runs of a few KB are young strings that every minor collection copies: about 100 ms more
 * at 100 MB.) Every byte is decoded once.
 */
function decodeSections(
  bytes: Uint8Array,
  decoder: TextDecoder,
  out: string[],
  scratch: { buffer: Uint8Array },
): void {
  const words = new Uint32Array(bytes.buffer, 0, (bytes.byteOffset + bytes.length) >> 2);
  const n = bytes.length;
  // Pieces in order: [start, end) of a run of ASCII sections, or of one other section (negated).
  const cuts: number[] = [];
  let ascii = 0;
  let start = 0;
  while (start < n) {
    const other = firstNonAscii(bytes, words, start, n);
    if (other < 0) {
      if (start === 0) {
        out.push(decoder.decode(bytes));
        return;
      }
      cuts.push(start, n);
      ascii += n - start;
      break;
    }
    // The section holding that byte: from the last marker line at or before it to the next one.
    const from = Math.max(start, lastMarkerStart(bytes, start, other + PATTERN.length));
    const to = nextMarkerStart(bytes, other, n);
    if (from > start) {
      cuts.push(start, from);
      ascii += from - start;
    }
    cuts.push(-from - 1, -to - 1);
    start = to;
  }
  if (scratch.buffer.length < ascii) scratch.buffer = new Uint8Array(Math.max(ascii, PIECE));
  let at = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    if (cuts[i] < 0) continue;
    scratch.buffer.set(bytes.subarray(cuts[i], cuts[i + 1]), at);
    at += cuts[i + 1] - cuts[i];
  }
  const runs = ascii > 0 ? decoder.decode(scratch.buffer.subarray(0, ascii)) : "";
  at = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    const a = cuts[i], b = cuts[i + 1];
    if (a < 0) out.push(decoder.decode(bytes.subarray(-a - 1, -b - 1)));
    else {
      out.push(runs.slice(at, at + b - a));
      at += b - a;
    }
  }
}

/** Bytes that `isAscii` checks at a time before the scan below looks for the byte itself. */
const ASCII_BLOCK = 4096;

/**
 * Index of the first byte of [a, b) that is not ASCII, or -1: whole blocks of ASCII are skipped
 * natively (`isAscii`), then the block that holds one is scanned four bytes at a time.
 */
function firstNonAscii(bytes: Uint8Array, words: Uint32Array, a: number, b: number): number {
  const base = bytes.byteOffset;
  let i = a;
  while (b - i >= ASCII_BLOCK && isAscii(bytes.subarray(i, i + ASCII_BLOCK))) i += ASCII_BLOCK;
  if (b - i < ASCII_BLOCK && isAscii(bytes.subarray(i, b))) return -1;
  for (; i < b && ((base + i) & 3) !== 0; i++) if (bytes[i] & 0x80) return i;
  const last = (base + b) >> 2;
  for (let w = (base + i) >> 2; w < last; w++) {
    if (words[w] & 0x80808080) {
      for (i = (w << 2) - base; !(bytes[i] & 0x80); i++);
      return i;
    }
  }
  for (i = Math.max(i, (last << 2) - base); i < b; i++) if (bytes[i] & 0x80) return i;
  return -1;
}

/** Index of the `<` of the first "\n<!-- memo:note" whose "\n" is at or after `from`; else `n`. */
function nextMarkerStart(b: Uint8Array, from: number, n: number): number {
  const last = n - PATTERN.length;
  // From line break to line break (a native search), not byte by byte.
  for (let p = b.indexOf(10, from); p >= 0 && p <= last; p = b.indexOf(10, p + 1)) {
    let k = 1;
    while (k < PATTERN.length && b[p + k] === PATTERN[k]) k++;
    if (k === PATTERN.length) return p + 1;
  }
  return n;
}

/** Index of the `<` of the last "\n<!-- memo:note" whose "\n" is at or after `lo`; -1 if none. */
function lastMarkerStart(b: Uint8Array, lo: number, len: number): number {
  let p = len > PATTERN.length ? b.lastIndexOf(10, len - PATTERN.length) : -1;
  while (p >= lo) {
    let k = 1;
    while (k < PATTERN.length && b[p + k] === PATTERN[k]) k++;
    if (k === PATTERN.length) return p + 1;
    p = p > 0 ? b.lastIndexOf(10, p - 1) : -1;
  }
  return -1;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
