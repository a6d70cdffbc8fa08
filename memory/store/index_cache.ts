/**
 * Internal: the lexical index snapshot kept in `.memo/cache/lexical-index.bin`, so that a `Memo`
 * reopened on an unchanged (or only appended to) notes.md loads its index instead of building it.
 *
 * A snapshot of N notes is used only when its key equals the key of the first N notes loaded: the
 * snapshot version, the index options and a digest of those notes ({@linkcode SnapshotKeying}):
 * the SHA-256 of the bytes of notes.md that hold them for a `FileMemoryStore` (about 70 ms for
 * 103 MB, against 450 ms for hashing the notes' text in script), else a digest of their content.
 * The content is hashed, not the stored `hash` (a hand edit need not change that). Any mismatch
 * loads nothing and the caller builds the index as usual. Layout in
 * `recall/lexical/snapshot_format.ts`.
 *
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";
import { readdir, readFile, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Note } from "../notes/note.ts";
import { memoPaths } from "./paths.ts";
import type { Bm25Index, LexicalSnapshot } from "../recall/lexical/lexical.ts";
import { writeCacheFile } from "./_cache_file.ts";
import type { ContentDigest } from "./load_digest.ts";
import {
  decodeSnapshot,
  encodeSnapshot,
  LITTLE_ENDIAN,
  notesDigest,
  snapshotHeader,
  snapshotKey,
  snapshotNoteCount,
} from "../recall/lexical/snapshot_format.ts";

/**
 * What a snapshot is keyed on: the bytes of notes.md that hold its notes, as the store's load
 * hashed them (`digest`; undefined when the load has no digest that fits: nothing is restored or
 * written), or the notes' content, hashed here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotKeying } from "./index_cache.ts";
 * const keying: SnapshotKeying = { by: "notes" };
 * assert.equal(keying.by, "notes");
 * ```
 */
export type SnapshotKeying = { by: "notes" } | { by: "file"; digest: ContentDigest | undefined };

/**
 * The version of the file digest's scheme in a key: bump it when `parseNotes` reads the
 * same bytes differently, so that older snapshots are rebuilt.
 */
const FILE_DIGEST = "file1";
const FILE_KEY = /^\d+:file1-(\d+)-[0-9a-f]{64}:/;

/**
 * The digest part of a snapshot key made from the bytes of notes.md.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileDigestKey } from "./index_cache.ts";
 * const sha256 = "0".repeat(64);
 * assert.equal(fileDigestKey({ bytes: 12, sha256, notes: 1, last: undefined }), `file1-12-${sha256}`);
 * ```
 */
export function fileDigestKey(digest: ContentDigest): string {
  return `${FILE_DIGEST}-${digest.bytes}-${digest.sha256}`;
}

/**
 * How many bytes of notes.md a snapshot's key says it was taken of; undefined for a key of
 * another kind.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "../recall/lexical/lexical.ts";
 * import { fileDigestKey, snapshotExtent } from "./index_cache.ts";
 * import { snapshotKey } from "../recall/lexical/snapshot_format.ts";
 * const digest = { bytes: 1234, sha256: "ab".repeat(32), notes: 3, last: undefined };
 * const key = snapshotKey(createLexicalIndex().options, fileDigestKey(digest));
 * assert.equal(snapshotExtent(key), 1234);
 * assert.equal(snapshotExtent("1:0123456789abcdef:options"), undefined);
 * ```
 */
export function snapshotExtent(key: string | undefined): number | undefined {
  const match = key === undefined ? null : FILE_KEY.exec(key);
  return match ? Number(match[1]) : undefined;
}

/**
 * The note count and key of the snapshot file at `path`, from its first 4 KB; undefined when it
 * cannot be read or is not a snapshot (never throws). Synchronous on purpose: three system calls of
 * a few microseconds each, where each round trip of an asynchronous read through the thread pool
 * costs about 50, and much more on a loaded machine; the load waits for it before reading notes.md.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSnapshotHead } from "./index_cache.ts";
 * assert.equal(readSnapshotHead("/nowhere.bin"), undefined);
 * ```
 */
export function readSnapshotHead(path: string): { noteCount: number; key: string } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = new Uint8Array(4096);
    const got = readSync(fd, head, 0, head.length, 0);
    return snapshotHeader(head.subarray(0, got));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Path of the snapshot file of a project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { indexCachePath } from "./index_cache.ts";
 * assert.equal(indexCachePath("/p"), "/p/.memo/cache/lexical-index.bin");
 * ```
 */
export function indexCachePath(rootDir: string): string {
  return join(memoPaths(rootDir).cache, "lexical-index.bin");
}

/**
 * The bytes of the file at `path`, or undefined when it cannot be read (never rejects). A `Memo`
 * starts this read before parsing notes.md, so that the two overlap.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSnapshotFile } from "./index_cache.ts";
 * assert.equal(await readSnapshotFile("/nowhere.bin"), undefined);
 * ```
 */
export function readSnapshotFile(path: string): Promise<Uint8Array | undefined> {
  if (!LITTLE_ENDIAN) return Promise.resolve(undefined);
  return readFile(path).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength), () => {
    return undefined;
  });
}

/**
 * Loads the snapshot file `bytes` into `index` when it was taken, with the same options, of
 * exactly the first N notes of `notes` (same order, same content); returns N, the number of
 * notes now in the index (all of `notes` when none was appended since), or 0 when it loaded
 * nothing. The caller adds `notes[N..]` itself. Never throws: missing, damaged or stale bytes
 * give 0 and leave the index as it was. `keying` says what the snapshot's key was made of (by
 * default the notes' content).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Bm25Index } from "../recall/lexical/lexical.ts";
 * import { restoreIndex } from "./index_cache.ts";
 * const note = { id: "a", title: "t", body: "b", labels: [], hash: "", created: "", updated: "" };
 * assert.equal(restoreIndex(undefined, new Bm25Index(), [note]), 0); // no snapshot: nothing loaded
 * assert.equal(restoreIndex(new Uint8Array(10), new Bm25Index(), [note]), 0); // damaged: nothing
 * ```
 */
export function restoreIndex(
  bytes: Uint8Array | undefined,
  index: Bm25Index,
  notes: readonly Note[],
  keying: SnapshotKeying = { by: "notes" },
): number {
  if (!bytes || notes.length === 0) return 0;
  try {
    const count = snapshotNoteCount(bytes);
    if (count === undefined || count === 0 || count > notes.length) return 0;
    const digest = digestOf(keying, notes, count);
    if (digest === undefined) return 0;
    const key = snapshotKey(index.options, digest);
    const snapshot = decodeSnapshot(bytes, key);
    if (snapshot === undefined) return 0;
    const prefix = count === notes.length ? notes : notes.slice(0, count);
    return index.importSnapshot(snapshot, prefix) ? count : 0;
  } catch {
    return 0;
  }
}

/**
 * Writes a snapshot of `index` (built from its notes, in doc order) to `path`, atomically, when
 * the project's `.memo/memory/` folder exists and `keying` can key it (a file digest must cover
 * exactly the index's notes); errors are swallowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir } from "node:fs/promises";
 * import { dirname } from "node:path";
 * import { memoPaths } from "./paths.ts";
 * import { Bm25Index } from "../recall/lexical/lexical.ts";
 * import { indexCachePath, readSnapshotFile, restoreIndex, writeIndexCache } from "./index_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const path = indexCachePath(dir);
 * const memoryDir = dirname(memoPaths(dir).notes);
 * const notes = [{ id: "a", title: "Deploys", body: "make deploy", labels: [], hash: "", created: "", updated: "" }];
 * const index = new Bm25Index();
 * for (const note of notes) index.add(note);
 *
 * await writeIndexCache(path, memoryDir, index); // not a project yet: writes nothing
 * assert.equal(await readSnapshotFile(path), undefined);
 *
 * await mkdir(memoryDir, { recursive: true });
 * await writeIndexCache(path, memoryDir, index);
 * const restored = new Bm25Index();
 * assert.equal(restoreIndex(await readSnapshotFile(path), restored, notes), 1);
 * assert.equal(restored.search("deploy", { limit: 1 })[0].id, "a");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function writeIndexCache(
  path: string,
  memoryDir: string,
  index: Bm25Index,
  keying: SnapshotKeying = { by: "notes" },
): Promise<void> {
  let snapshot: LexicalSnapshot | undefined;
  let notes: Note[];
  let fileDigest: string | undefined;
  try {
    // Taken now, synchronously: a later change to the index does not reach the snapshot.
    snapshot = index.exportSnapshot();
    notes = index.notes.slice(0, index.docCount) as Note[];
    if (keying.by === "file") {
      fileDigest = digestOf(keying, notes, notes.length);
      if (fileDigest === undefined) return Promise.resolve();
    }
  } catch {
    return Promise.resolve();
  }
  if (!snapshot || notes.length === 0) return Promise.resolve();
  const taken = snapshot;
  return (async () => {
    const dir = await stat(memoryDir).catch(() => undefined);
    if (!dir?.isDirectory()) return; // not an initialised project: write nothing
    const key = snapshotKey(index.options, fileDigest ?? notesDigest(notes));
    const bytes = encodeSnapshot(key, taken, notes.length);
    await removeAbandonedTemps(path);
    await writeCacheFile(path, bytes);
  })().catch(() => {});
}

/**
 * The digest part of the key of the first `count` notes of `notes`; undefined when a file digest
 * is missing or holds other notes (another count, or another last note: the notes are the
 * store's own objects).
 */
function digestOf(keying: SnapshotKeying, notes: readonly Note[], count: number) {
  if (keying.by === "notes") return notesDigest(notes, count);
  const digest = keying.digest;
  if (!digest || digest.notes !== count || count > notes.length) return undefined;
  return notes[count - 1] === digest.last ? fileDigestKey(digest) : undefined;
}

/** Temp files older than this were left by a process killed while writing a snapshot. */
const ABANDONED_TEMP_MS = 10 * 60_000;

/** Deletes `<snapshot>.*.tmp` files that a killed writer left behind; never throws. */
async function removeAbandonedTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = basename(path) + ".";
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const file = join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > ABANDONED_TEMP_MS) await unlink(file).catch(() => {});
  }
}
