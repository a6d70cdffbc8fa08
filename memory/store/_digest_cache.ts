/**
 * Internal: the digest of `notes.md` kept in `.memo/cache/notes-digest.json`, so that a load of an
 * unchanged file takes its SHA-256 from there instead of hashing 100 MB again (about 60 ms of the
 * 100k open). It is what git's index does for a file it hashed once: the digest is tied to the
 * file's status (device, inode, size, modification and change times, birth time), and a load
 * trusts it only while the file's status is still exactly that.
 *
 * **Why the status is enough.** Every write to a file, and every rename onto its path, sets its
 * change time (ctime) to the time of the write, and no program can set it back (`touch` and
 * `utimes` set the modification time, and move ctime to now). So a file whose status is the
 * one recorded has not been written since, provided that no write could have landed in the same
 * tick of the file system's clock as the write it records (some file systems keep whole seconds
 * or two). That is git's "racily clean" case, and the rule here is stricter than git's:
 *
 * - a digest is recorded only when the file's ctime is at least {@linkcode SETTLED_MS} older than
 *   the clock when its read began: a later write then falls in a later tick and changes the ctime;
 * - the read must have settled: the same status before and after it (no lock of a live writer
 *   shortening it);
 * - after the record is written, its own ctime (the file system's clock) must not lag the
 *   process's clock by more than 2 s, else the record is dropped (a network file system whose
 *   server's clock lags could otherwise pass the first rule wrongly). So a write after the read
 *   gets a ctime at least 3 s past the recorded one: different on any file system whose clock
 *   ticks at least every 3 s (FAT's 2 s included; Deno's `node:fs` gives ctime in whole seconds);
 * - a status without an inode or a change time (0) is never recorded.
 *
 * Anything else (no record, a damaged one, another status) reads as no record: the load hashes
 * what it reads as before, and records the digest when the rules allow. A record never changes
 * what is read: the bytes are read and parsed in full every time, only their hash is taken from
 * the record.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "./_cache_file.ts";

/** How much older than the read the file's last change must be for its digest to be recorded. */
export const SETTLED_MS = 5_000;

/** How far the file system's clock may lag this process's for a record to be kept. */
const LAG_MS = 2_000;

/** The first key of a record, and the version of its layout. */
const FORMAT = "memo-notes-digest 1";

/**
 * The status of notes.md that a digest was taken of.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HashedStatus, sameStatus } from "./_digest_cache.ts";
 * const s: HashedStatus = { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5, birthtimeMs: 6 };
 * assert.ok(sameStatus(s, { ...s }));
 * assert.ok(!sameStatus(s, { ...s, ctimeMs: 5.5 }));
 * ```
 */
export interface HashedStatus {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
}

/** A recorded digest: the SHA-256 (hex) of notes.md's bytes while it had `status`. */
export interface KnownDigest {
  status: HashedStatus;
  sha256: string;
}

/**
 * The status fields of a `stat` result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusOf } from "./_digest_cache.ts";
 * const st = { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5, birthtimeMs: 0, mode: 0o644 };
 * assert.deepEqual(statusOf(st), { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5, birthtimeMs: 0 });
 * ```
 */
export function statusOf(st: HashedStatus): HashedStatus {
  return {
    dev: st.dev,
    ino: st.ino,
    size: st.size,
    mtimeMs: st.mtimeMs,
    ctimeMs: st.ctimeMs,
    birthtimeMs: st.birthtimeMs || 0,
  };
}

/** Whether two statuses are the same (see {@linkcode HashedStatus}). */
export function sameStatus(a: HashedStatus, b: HashedStatus): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs && (a.birthtimeMs || 0) === (b.birthtimeMs || 0);
}

/**
 * Path of the record in a project's cache folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { digestCachePath } from "./_digest_cache.ts";
 * assert.equal(digestCachePath("/p/.memo/cache"), "/p/.memo/cache/notes-digest.json");
 * ```
 */
export function digestCachePath(cacheDir: string): string {
  return join(cacheDir, "notes-digest.json");
}

/**
 * The record at `path`; undefined when there is none or it cannot be read as one (never throws).
 * Synchronous on purpose, like the snapshot's header: one small read before notes.md is read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDigestCache } from "./_digest_cache.ts";
 * assert.equal(readDigestCache("/nowhere/notes-digest.json"), undefined);
 * ```
 */
export function readDigestCache(path: string): KnownDigest | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8"));
    if (v?.format !== FORMAT || typeof v.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(v.sha256)) {
      return undefined;
    }
    const s = v.status;
    const fields = ["dev", "ino", "size", "mtimeMs", "ctimeMs", "birthtimeMs"] as const;
    if (!s || !fields.every((k) => typeof s[k] === "number" && Number.isFinite(s[k]))) {
      return undefined;
    }
    if (!recordable(s)) return undefined;
    return { status: statusOf(s), sha256: v.sha256 };
  } catch {
    return undefined;
  }
}

/** Whether a status can be recorded at all: an inode and a change time. */
function recordable(s: HashedStatus): boolean {
  return s.ino > 0 && s.ctimeMs > 0 && s.size >= 0;
}

/**
 * Records `digest` at `path` when the rules of the module allow it: `readStart` is the clock
 * (milliseconds) when the read that hashed the file began. Atomic; never rejects (a record that
 * cannot be written is no record: the next load hashes again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { readDigestCache, writeDigestCache } from "./_digest_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "cache", "notes-digest.json");
 * const status = { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 5, birthtimeMs: 6 };
 * const digest = { status, sha256: "ab".repeat(32) };
 * await writeDigestCache(path, digest, 4); // changed 1 ms before the read began: not recorded
 * assert.equal(readDigestCache(path), undefined);
 * await writeDigestCache(path, digest, Date.now());
 * assert.deepEqual(readDigestCache(path), digest);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeDigestCache(
  path: string,
  digest: KnownDigest,
  readStart: number,
  now: () => number = Date.now,
): Promise<void> {
  const { status, sha256 } = digest;
  if (!recordable(status) || !(status.ctimeMs <= readStart - SETTLED_MS)) return;
  try {
    await writeCacheFile(
      path,
      JSON.stringify({ format: FORMAT, status: statusOf(status), sha256 }),
    );
    // The file system's clock must not lag this process's by more than LAG_MS: the rule above
    // read the file's ctime against this process's clock. (Taken after the stat, the clock can
    // only make the lag look larger.)
    const written = await stat(path);
    if (written.ctimeMs < now() - LAG_MS) await unlink(path);
  } catch {
    // no record: the next load hashes again
  }
}
