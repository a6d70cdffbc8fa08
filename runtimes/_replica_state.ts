/**
 * The hybrid runtime's state on disk, in `.memo/replica/`:
 *
 * - `state.json`: which cloud it follows, the change-feed token, and for
 *   every note in the cloud the content hash and revision last pushed or
 *   pulled (the "pushed map"). The outbox is not stored: it is every note of
 *   `notes.md` whose hash differs from its pushed hash, plus every pushed id
 *   that `notes.md` no longer holds. So a write needs no second fsync, and
 *   hand edits, `git pull`s and notes from before hybrid mode replicate too.
 *   The file is replaced atomically (temp file, rename); losing an update of
 *   it only makes the next push repeat work the cloud recognises (same
 *   identity, a 404, or a 409 with the same content).
 * - `lock`: held while a replication runs, so that two processes on one
 *   project (a `memo mcp` and a `memo remember`) take turns.
 * - `.gitignore`: `*`; the state is per machine.
 *
 * @module
 */

import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import process from "node:process";
import { join } from "node:path";

/** The content hash and revision of a note as the cloud last had it, from this machine's view. */
export type PushedEntry = [hash: string, revision: number];

/** What `state.json` holds. */
export interface ReplicaStateData {
  /** Format version. */
  version: 1;
  /** This replica's id (part of its idempotency keys). */
  replicaId: string;
  /** The cloud and project followed; another one starts over. */
  target: string;
  /** Change-feed token to read from next; undefined: from the start. */
  feed?: string;
  /** Note id → [hash, revision] last pushed or pulled. */
  pushed: Record<string, PushedEntry>;
  /** ISO time of the last successful push. */
  lastPush: string | null;
  /** ISO time of the last successful pull. */
  lastPull: string | null;
  /** Conflicts resolved here, ever. */
  conflicts: number;
  /** The last failure, one line. */
  error?: string;
}

/** A fresh state for `target`. */
export function freshState(target: string, replicaId?: string): ReplicaStateData {
  return {
    version: 1,
    replicaId: replicaId ?? crypto.randomUUID().replaceAll("-", "").slice(0, 16),
    target,
    pushed: {},
    lastPush: null,
    lastPull: null,
    conflicts: 0,
  };
}

function isState(value: unknown): value is ReplicaStateData {
  const v = value as ReplicaStateData | null;
  if (!v || typeof v !== "object" || v.version !== 1) return false;
  if (typeof v.replicaId !== "string" || typeof v.target !== "string") return false;
  if (v.feed !== undefined && typeof v.feed !== "string") return false;
  if (!v.pushed || typeof v.pushed !== "object" || Array.isArray(v.pushed)) return false;
  for (const entry of Object.values(v.pushed)) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || typeof entry[1] !== "number") {
      return false;
    }
  }
  return (v.lastPush === null || typeof v.lastPush === "string") &&
    (v.lastPull === null || typeof v.lastPull === "string") && typeof v.conflicts === "number";
}

/** Reads and writes `.memo/replica/state.json`; notices when another process wrote it. */
export class ReplicaStateFile {
  readonly dir: string;
  readonly #path: string;
  #stamp = "";

  constructor(rootDir: string) {
    this.dir = join(rootDir, ".memo", "replica");
    this.#path = join(this.dir, "state.json");
  }

  /** Whether the file changed since this object last read or wrote it. */
  async changed(): Promise<boolean> {
    return (await this.#stampNow()) !== this.#stamp;
  }

  /**
   * The state for `target`: the file's when it follows `target`, else a
   * fresh one (a missing or unreadable file, or another cloud or project).
   * Without `target`, the file's whatever it follows.
   */
  async load(target?: string): Promise<ReplicaStateData> {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(this.#path, "utf8"));
    } catch {
      data = undefined;
    }
    this.#stamp = await this.#stampNow();
    if (!isState(data)) return freshState(target ?? "");
    if (target !== undefined && data.target !== target) {
      return { ...freshState(target, data.replicaId), conflicts: data.conflicts };
    }
    return data;
  }

  /** Replaces the file atomically. */
  async save(state: ReplicaStateData): Promise<void> {
    await this.#ensureDir();
    const temp = `${this.#path}.${process.pid}.tmp`;
    await writeFile(temp, JSON.stringify(state));
    await rename(temp, this.#path);
    this.#stamp = await this.#stampNow();
  }

  async #ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const ignore = join(this.dir, ".gitignore");
    try {
      await writeFile(ignore, "# memo's replication state: per machine, never committed\n*\n", {
        flag: "wx",
      });
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw e;
    }
  }

  async #stampNow(): Promise<string> {
    try {
      const s = await stat(this.#path);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return "missing";
    }
  }

  /**
   * Takes `.memo/replica/lock` (created exclusively; one left by a process
   * of this host that is gone, or older than `staleMs`, is taken over).
   * Returns the release function, or undefined when another live process
   * holds it.
   */
  async tryLock(staleMs = 120_000): Promise<(() => Promise<void>) | undefined> {
    await this.#ensureDir();
    const path = join(this.dir, "lock");
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(path, "wx");
        const nonce = crypto.randomUUID();
        try {
          await handle.writeFile(
            JSON.stringify({ pid: process.pid, host: host(), created: Date.now(), nonce }),
          );
        } finally {
          await handle.close();
        }
        return async () => {
          // Only our own lock is removed (a stale takeover may have replaced it).
          const held = await readLock(path);
          if (held?.nonce === nonce) await rm(path, { force: true });
        };
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST") throw e;
      }
      const held = await readLock(path);
      const age = held ? Date.now() - held.created : await ageOf(path);
      const gone = held !== undefined && held.host === host() && held.pid !== process.pid &&
        !alive(held.pid);
      if (!gone && age < staleMs) return undefined;
      await rm(path, { force: true });
    }
    return undefined;
  }
}

interface LockInfo {
  pid: number;
  host: string;
  created: number;
  nonce: string;
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  try {
    const v = JSON.parse(await readFile(path, "utf8"));
    if (typeof v?.pid === "number" && typeof v.host === "string" && typeof v.created === "number") {
      return v;
    }
  } catch {
    // missing, being written, or damaged
  }
  return undefined;
}

async function ageOf(path: string): Promise<number> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return Infinity;
  }
}

function host(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
