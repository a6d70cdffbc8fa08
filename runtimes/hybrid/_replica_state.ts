/**
 * The hybrid runtime's state on disk, in `.memo/replica/`:
 *
 * - `state.jsonl`: which cloud it follows, the change-feed token, and for every note in the cloud
 *   the content hash and revision last pushed or pulled (the "pushed map"). The outbox is not
 *   stored: it is every note of `notes.md` whose hash differs from its pushed hash, plus every
 *   pushed id that `notes.md` no longer holds. So a write needs no second fsync, and hand edits,
 *   `git pull`s and notes from before hybrid mode replicate too. The first line is a whole state;
 *   each replication appends one line with what changed, and the file is rewritten (temp file,
 *   rename) as one line when the appended lines outgrow it. A torn last line is ignored. Losing a
 *   line only makes the next push repeat work the cloud recognises (same identity, a 404, or a 409
 *   with the same content).
 * - `lock`: held while a replication runs, so that two processes on one project (a `memo mcp` and a
 *   `memo remember`) take turns.
 * - `.gitignore`: `*`; the state is per machine.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { appendFile, link, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { isProcessAlive, processId } from "../../platform/mod.ts";

/** The content hash and revision of a note as the cloud last had it, from this machine's view. */
export type PushedEntry = [hash: string, revision: number];

/** A replica's state, as `state.jsonl` holds it. */
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
  pushed: Map<string, PushedEntry>;
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
    pushed: new Map(),
    lastPush: null,
    lastPull: null,
    conflicts: 0,
  };
}

/** The scalar fields of a state line, checked. */
function scalarsOf(v: Record<string, unknown>): Partial<ReplicaStateData> | undefined {
  const out: Partial<ReplicaStateData> = {};
  if ("feed" in v) {
    if (v.feed !== null && typeof v.feed !== "string") return undefined;
    out.feed = v.feed ?? undefined;
  }
  for (const key of ["lastPush", "lastPull"] as const) {
    if (!(key in v)) continue;
    if (v[key] !== null && typeof v[key] !== "string") return undefined;
    out[key] = v[key] as string | null;
  }
  if ("conflicts" in v) {
    if (typeof v.conflicts !== "number") return undefined;
    out.conflicts = v.conflicts;
  }
  if ("error" in v) {
    if (v.error !== null && typeof v.error !== "string") return undefined;
    out.error = (v.error as string | null) ?? undefined;
  }
  return out;
}

/** Applies a line's `pushed` changes; false when they are malformed. */
function applyPushed(map: Map<string, PushedEntry>, pushed: unknown): boolean {
  if (pushed === undefined) return true;
  if (!pushed || typeof pushed !== "object" || Array.isArray(pushed)) return false;
  for (const [id, entry] of Object.entries(pushed)) {
    if (entry === null) map.delete(id);
    else if (Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "number") {
      map.set(id, [entry[0], entry[1]]);
    } else return false;
  }
  return true;
}

/** Parses the file: the first line whole, then the changes; stops at a torn or bad line. */
function parseState(text: string): ReplicaStateData | undefined {
  const lines = text.split("\n");
  let state: ReplicaStateData | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line);
    } catch {
      break; // a torn last line
    }
    if (!v || typeof v !== "object") break;
    if (!state) {
      if (v.version !== 1 || typeof v.replicaId !== "string" || typeof v.target !== "string") {
        return undefined;
      }
      state = freshState(v.target, v.replicaId);
    }
    const scalars = scalarsOf(v);
    if (!scalars) break;
    const pushed = new Map(state.pushed);
    if (!applyPushed(pushed, v.pushed)) break;
    Object.assign(state, scalars);
    state.pushed = pushed;
  }
  return state;
}

/** The line of a whole state. */
function wholeLine(state: ReplicaStateData): string {
  const { pushed, ...rest } = state;
  return JSON.stringify({ ...rest, error: rest.error ?? null, pushed: Object.fromEntries(pushed) });
}

/** What changed since the last save, as `ReplicaStateFile.save` writes it. */
export interface StateChanges {
  /** Ids whose pushed entry changed (set or deleted). */
  ids: ReadonlySet<string>;
  /** The whole pushed map was replaced. */
  all: boolean;
}

/**
 * Reads and writes `.memo/replica/state.jsonl` (the user scope's: `$MEMO_HOME/replica/`); notices
 * when another process wrote it.
 */
export class ReplicaStateFile {
  readonly dir: string;
  readonly #path: string;
  #stamp = "";
  #size = 0;
  #base = 0;

  /** The state of the project at `rootDir`, or in `dir` when given. */
  constructor(rootDir: string, dir?: string) {
    this.dir = dir ?? join(rootDir, ".memo", "replica");
    this.#path = join(this.dir, "state.jsonl");
  }

  /** Whether the file changed since this object last read or wrote it. */
  async changed(): Promise<boolean> {
    return (await this.#stampNow()) !== this.#stamp;
  }

  /**
   * The state for `target`: the file's when it follows `target`, else a fresh one (a missing or
   * unreadable file, or another cloud or project). Without `target`, the file's whatever it
   * follows.
   */
  async load(target?: string): Promise<ReplicaStateData> {
    let text = "";
    try {
      text = await readFile(this.#path, "utf8");
    } catch {
      // No state yet (or unreadable): start fresh below.
    }
    this.#stamp = await this.#stampNow();
    this.#size = this.#base = 0; // the next save writes the whole state
    const data = parseState(text);
    if (!data) return freshState(target ?? "");
    if (target !== undefined && data.target !== target) {
      return { ...freshState(target, data.replicaId), conflicts: data.conflicts };
    }
    return data;
  }

  /**
   * Saves `state`: appends one line with what changed, or rewrites the file as one line (after a
   * load, when the whole map changed, or when the appended lines outgrow the whole state).
   */
  async save(state: ReplicaStateData, changes: StateChanges): Promise<void> {
    await this.#ensureDir();
    const rewrite = changes.all || this.#base === 0 || await this.changed() ||
      this.#size > 2 * this.#base + 65_536;
    if (rewrite) {
      const line = wholeLine(state) + "\n";
      const temp = `${this.#path}.${processId()}.tmp`;
      await writeFile(temp, line);
      await rename(temp, this.#path);
      this.#base = this.#size = Buffer.byteLength(line);
    } else {
      const pushed: Record<string, PushedEntry | null> = {};
      for (const id of changes.ids) pushed[id] = state.pushed.get(id) ?? null;
      const { pushed: _all, ...scalars } = state;
      const line = JSON.stringify({ ...scalars, error: scalars.error ?? null, pushed }) + "\n";
      await appendFile(this.#path, line);
      this.#size += Buffer.byteLength(line);
    }
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
   * Takes `.memo/replica/lock` (created exclusively; one left by a process of this host that is
   * gone, or older than `staleMs`, is taken over). Returns the release function, or undefined when
   * another live process holds it.
   */
  async tryLock(staleMs = 120_000): Promise<(() => Promise<void>) | undefined> {
    await this.#ensureDir();
    const path = join(this.dir, "lock");
    for (let attempt = 0; attempt < 2; attempt++) {
      // Written whole under another name, then linked into place (which fails when the lock
      // exists): a process killed meanwhile never leaves an empty lock that no one can read.
      const nonce = crypto.randomUUID();
      const temp = `${path}.${processId()}.${nonce}.tmp`;
      await writeFile(
        temp,
        JSON.stringify({ pid: processId(), host: host(), created: Date.now(), nonce }),
      );
      try {
        await link(temp, path);
        return async () => {
          // Only our own lock is removed (a stale takeover may have replaced it).
          const held = await readLock(path);
          if (held?.nonce === nonce) await rm(path, { force: true });
        };
      } catch (e) {
        if ((e as { code?: string }).code !== "EEXIST") throw e;
      } finally {
        await rm(temp, { force: true });
      }
      const held = await readLock(path);
      const age = held ? Date.now() - held.created : await ageOf(path);
      const gone = held !== undefined && held.host === host() && held.pid !== processId() &&
        !isProcessAlive(held.pid);
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
