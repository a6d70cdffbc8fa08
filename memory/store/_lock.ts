/**
 * Internal: the exclusive lock file `notes.md.lock` and the recovery of stale locks.
 *
 * - **Taking it.** The lock is created with O_EXCL (`open(path, "wx")`) and then filled with
 *   `{pid, host, created, size, ino, nonce}`, where `size` and `ino` are those of `notes.md`
 *   stat'ed after the lock was taken: every byte past `size` on that inode is a write in flight.
 *   A contended lock is retried with short randomized backoff until the timeout.
 * - **Stale locks.** A lock is stale when its process is dead on this host (signal 0); when it
 *   names this process, was not taken by this module and is older than `staleMs` (a pid reused
 *   after a restart); when it is empty or unreadable and older than `staleMs`; or when it comes
 *   from another host and is older than `foreignStaleMs` (liveness cannot be checked across
 *   hosts). A live pid that was reused by an unrelated process keeps the lock until that process
 *   ends: writers then fail with `StoreLockError` after their timeout.
 * - **Recovery** runs under a second O_EXCL file, `notes.md.lock.break`, so that two processes
 *   never both recover (a late truncation would cut a newer commit). Under it the lock is read
 *   again and must be byte-identical to the one judged stale. If `notes.md` still has the
 *   recorded inode and another size, the dead writer's bytes are cut: from the recorded size when
 *   the bytes before it are still the recorded `tail`, else from where those bytes now stand if
 *   they stand once (a hand edit above them moved them); when they cannot be found, nothing is cut
 *   and the issue says so (the dead writer's batch is discarded, never a committed note). A
 *   different inode means an atomic rename completed: the file is kept. Temp files left by the
 *   dead process are removed, then the lock.
 *
 * @module
 */

import { mkdir, open, readdir, readFile, stat, unlink } from "node:fs/promises";
import { Buffer } from "node:buffer";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { StoreLockError } from "../errors.ts";
import type { StoreIssue } from "./store.ts";
import { currentHost, currentPid, isProcessAlive } from "../platform/system.ts";
import { NOTE_MARKER_START, NOTES_PREAMBLE } from "./codec.ts";

export interface LockInfo {
  pid: number;
  host: string;
  created: string;
  /** Size of notes.md when the lock was taken (0 when it did not exist). */
  size: number;
  /** Inode of notes.md when the lock was taken (0 when it did not exist). */
  ino: number;
  nonce: string;
  /**
   * The last bytes of notes.md before `size` (up to {@linkcode TAIL_BYTES}, base64), so that a
   * recovery finds where the dead writer's bytes begin even when the file changed above them.
   * Absent in a lock of an older memo.
   */
  tail?: string;
}

/** How many bytes before `size` a lock records. */
export const TAIL_BYTES = 64;

/** A lock file as read from disk. */
export interface LockFile {
  text: string;
  info?: LockInfo;
  mtimeMs: number;
}

/** Settings of {@linkcode acquireLock}. */
export interface LockSettings {
  lockPath: string;
  notesPath: string;
  timeoutMs: number;
  staleMs: number;
  foreignStaleMs: number;
  /** Create the lock's folder when missing. */
  create: boolean;
  signal?: AbortSignal;
}

/** A lock this process holds. */
export interface HeldLock {
  info: LockInfo;
  /** Stale locks recovered while taking this one. */
  issues: StoreIssue[];
  /** Forgets the lock without removing it (it will be recovered as stale). */
  abandon(): void;
  release(): Promise<void>;
}

/** Nonces of the locks this process holds (to tell them from a dead process with our pid). */
const held = new Set<string>();

/** Reads a lock file; undefined when there is none. */
export async function readLock(path: string): Promise<LockFile | undefined> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch (e) {
    if (isCode(e, "ENOENT")) return undefined;
    throw e;
  }
  try {
    const st = await fh.stat();
    const text = await fh.readFile("utf8");
    return { text, info: parseLock(text), mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const v = JSON.parse(text);
    if (
      v && typeof v.pid === "number" && typeof v.host === "string" &&
      Number.isInteger(v.size) && v.size >= 0 && typeof v.ino === "number"
    ) {
      return {
        pid: v.pid,
        host: v.host,
        created: String(v.created ?? ""),
        size: v.size,
        ino: v.ino,
        nonce: String(v.nonce ?? ""),
        ...(typeof v.tail === "string" ? { tail: v.tail } : {}),
      };
    }
  } catch {
    // unreadable: judged by age
  }
  return undefined;
}

/** Why a lock is stale, or undefined when it must be respected. */
export function staleReason(lock: LockFile, s: LockSettings, now = Date.now()): string | undefined {
  const age = Math.max(0, now - lock.mtimeMs);
  const info = lock.info;
  if (!info) {
    return age > s.staleMs ? `an empty or unreadable lock ${Math.round(age)} ms old` : undefined;
  }
  if (info.host === currentHost()) {
    if (info.pid === currentPid()) {
      // Our pid but not our lock: an earlier process that had the same pid (a restarted
      // container), or a worker of this process (its own module copy). Only age tells them apart.
      return held.has(info.nonce) || age <= s.staleMs
        ? undefined
        : `a lock of an earlier process with pid ${info.pid}`;
    }
    return isProcessAlive(info.pid) ? undefined : `a lock of process ${info.pid}, which is gone`;
  }
  return age > s.foreignStaleMs
    ? `a lock of host ${info.host} ${Math.round(age)} ms old`
    : undefined;
}

/** Takes the lock, recovering stale locks; throws StoreLockError after `timeoutMs`. */
export async function acquireLock(s: LockSettings): Promise<HeldLock> {
  const start = Date.now();
  const issues: StoreIssue[] = [];
  let delay = 1;
  for (;;) {
    s.signal?.throwIfAborted();
    let fh;
    try {
      fh = await open(s.lockPath, "wx");
    } catch (e) {
      if (isCode(e, "ENOENT") && s.create) {
        await mkdir(dirname(s.lockPath), { recursive: true });
        continue;
      }
      if (!isCode(e, "EEXIST")) throw e;
      const lock = await readLock(s.lockPath);
      if (!lock) continue;
      if (staleReason(lock, s) !== undefined) {
        const r = await recoverStaleLock(s, lock);
        issues.push(...r.issues);
        if (!r.busy) continue;
      }
      const waited = Date.now() - start;
      if (waited >= s.timeoutMs) {
        const who = lock.info ? `pid ${lock.info.pid} on ${lock.info.host}` : "an unknown process";
        throw new StoreLockError(`Cannot lock notes.md: held by ${who} for ${waited} ms`, {
          details: { pid: lock.info?.pid, host: lock.info?.host, waitedMs: waited },
        });
      }
      await sleep(Math.min(delay * (0.5 + Math.random()), s.timeoutMs - waited + 1));
      delay = Math.min(delay * 2, 40);
      continue;
    }
    // Known as ours before anyone can read it, or another store of this process would take it
    // for a lock left by an earlier process with the same pid.
    const nonce = randomBytes(8).toString("hex");
    held.add(nonce);
    let lockInfo: LockInfo;
    try {
      const st = await statOrUndefined(s.notesPath);
      const size = st?.size ?? 0;
      lockInfo = {
        pid: currentPid(),
        host: currentHost(),
        created: new Date().toISOString(),
        size,
        ino: st?.ino ?? 0,
        nonce,
      };
      const tail = size > 0 ? await readTail(s.notesPath, size) : undefined;
      if (tail !== undefined) lockInfo.tail = tail.toString("base64");
      await fh.writeFile(JSON.stringify(lockInfo));
      await fh.close();
    } catch (e) {
      held.delete(nonce);
      await fh.close().catch(() => {});
      await unlink(s.lockPath).catch(() => {});
      throw e;
    }
    return {
      info: lockInfo,
      issues,
      abandon: () => void held.delete(lockInfo.nonce),
      release: async () => {
        if (!held.has(lockInfo.nonce)) return;
        try {
          const now = await readLock(s.lockPath).catch(() => undefined);
          if (now?.info?.nonce === lockInfo.nonce) await unlink(s.lockPath).catch(() => {});
        } finally {
          // Only once the file is gone: until then it must not look like an earlier process's.
          held.delete(lockInfo.nonce);
        }
      },
    };
  }
}

/**
 * Recovers `observed` if it is still the lock in place: cuts the torn tail it guards, removes
 * the dead process's temp files and the lock. `busy` when another process is recovering.
 */
export async function recoverStaleLock(
  s: LockSettings,
  observed: LockFile,
): Promise<{ issues: StoreIssue[]; busy: boolean }> {
  const breakPath = `${s.lockPath}.break`;
  let fh;
  try {
    fh = await open(breakPath, "wx");
  } catch (e) {
    if (!isCode(e, "EEXIST")) throw e;
    const other = await readLock(breakPath).catch(() => undefined);
    if (other && breakIsStale(other, s)) await unlink(breakPath).catch(() => {});
    return { issues: [], busy: true };
  }
  const issues: StoreIssue[] = [];
  try {
    await fh.writeFile(JSON.stringify({ pid: currentPid(), host: currentHost() }));
    await fh.close();
    fh = undefined;
    const current = await readLock(s.lockPath);
    if (!current || current.text !== observed.text) return { issues, busy: false };
    const reason = staleReason(current, s) ?? "a stale lock";
    const info = current.info;
    if (info) {
      const st = await statOrUndefined(s.notesPath);
      // A lock taken before notes.md existed (ino 0) names no file: the one there now may have come
      // from anywhere since (a checkout, a copy), and is never cut. (A first write torn by a kill
      // then stays, as a damaged note that `memo doctor` names.)
      if (st && info.ino !== 0 && st.ino === info.ino && st.size !== info.size) {
        const issue = await cutTornTail(s.notesPath, info, st.size);
        if (issue) issues.push(issue);
      }
      if (info.host === currentHost()) await removeTempFiles(s.notesPath, info.pid);
    }
    await unlink(s.lockPath).catch((e) => {
      if (!isCode(e, "ENOENT")) throw e;
    });
    issues.push({ kind: "stale-lock", message: `Recovered ${reason}` });
    return { issues, busy: false };
  } finally {
    await fh?.close().catch(() => {});
    await unlink(breakPath).catch(() => {});
  }
}

/**
 * Cuts what a dead writer appended to notes.md (same inode): everything past the end of the file
 * as it was when the lock was taken. That end is `info.size` when the bytes before it are still
 * the recorded `tail`; when the file changed above them since (a hand edit), it is found again by
 * those bytes, if they stand exactly once in the file. Otherwise nothing is cut, and the issue
 * says so: a guess could cut a note that was committed.
 */
async function cutTornTail(
  notesPath: string,
  info: LockInfo,
  size: number,
): Promise<StoreIssue | undefined> {
  let end: number | undefined = size > info.size ? info.size : undefined;
  if (info.tail !== undefined) {
    const tail = Buffer.from(info.tail, "base64");
    const here = size >= info.size ? await readTail(notesPath, info.size, tail.length) : undefined;
    if (here === undefined || !here.equals(tail)) {
      const whole = await readFile(notesPath);
      const at = whole.indexOf(tail);
      const found = at >= 0 && whole.indexOf(tail, at + 1) < 0;
      if (found && at + tail.length === size) return undefined; // nothing of its write is left
      end = found ? at + tail.length : undefined;
      if (end === undefined) {
        return {
          kind: "torn-tail",
          message: `Left the end of notes.md as it is: process ${info.pid} died while writing ` +
            "to it, and notes.md has changed since, so where its write began is not known " +
            "(check the last notes)",
        };
      }
    }
  }
  if (end === undefined) return undefined;
  // What memo appends starts with a marker line (after a line break, when the file had none at its
  // end) or, in a new file, the preamble. Anything else past the lock's end was not this writer's
  // (it may have died before writing at all, say during a rewrite): text added by hand since.
  const head = (await readTail(notesPath, Math.min(size, end + 64), Math.min(64, size - end)))
    ?.toString("utf8") ?? "";
  const memoWrite = [`\n${NOTE_MARKER_START}`, NOTE_MARKER_START, NOTES_PREAMBLE].some((start) =>
    head.startsWith(start) || start.startsWith(head)
  );
  if (!memoWrite) {
    return {
      kind: "torn-tail",
      message: `Left the end of notes.md as it is: the bytes past process ${info.pid}'s lock are ` +
        "not a write of memo's (check the last notes)",
    };
  }
  const file = await open(notesPath, "r+");
  try {
    await file.truncate(end);
    await file.sync();
  } finally {
    await file.close();
  }
  return {
    kind: "torn-tail",
    message: `Cut ${size - end} bytes from the end of notes.md: ` +
      `the unfinished write of process ${info.pid} (its batch is discarded)`,
  };
}

/** The `length` bytes of a file before `end` (fewer at its start); undefined when it is shorter. */
async function readTail(
  path: string,
  end: number,
  length = TAIL_BYTES,
): Promise<Buffer | undefined> {
  const n = Math.min(length, end);
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(n);
    const { bytesRead } = await file.read(buffer, 0, n, end - n);
    return bytesRead === n ? buffer : undefined;
  } finally {
    await file.close();
  }
}

function breakIsStale(lock: LockFile, s: LockSettings): boolean {
  const info = lock.text ? safeJson(lock.text) : undefined;
  if (info?.host === currentHost() && typeof info.pid === "number" && info.pid !== currentPid()) {
    if (!isProcessAlive(info.pid)) return true;
  }
  return Date.now() - lock.mtimeMs > s.staleMs;
}

function safeJson(text: string): { pid?: unknown; host?: unknown } | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Temp files of a rewrite are named `notes.md.<pid>.<random>.tmp`. */
export function tempPath(notesPath: string): string {
  return `${notesPath}.${currentPid()}.${randomBytes(6).toString("hex")}.tmp`;
}

async function removeTempFiles(notesPath: string, pid: number): Promise<void> {
  const dir = dirname(notesPath);
  const prefix = `${basename(notesPath)}.${pid}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) {
      await unlink(join(dir, name)).catch(() => {});
    }
  }
}

async function statOrUndefined(path: string) {
  try {
    return await stat(path);
  } catch (e) {
    if (isCode(e, "ENOENT")) return undefined;
    throw e;
  }
}

/** Whether an error is a Node-style system error with this code. */
export function isCode(e: unknown, code: string): boolean {
  return (e as { code?: unknown } | null)?.code === code;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
