/**
 * Internal: {@linkcode FileIdempotencyStore}, the file store's idempotency keys. Each workspace
 * keeps `<dataDir>/<ws>/idempotency.jsonl`, one JSON line per completed write:
 * `{"k":key,"f":fingerprint,"s":status,"b":body,"t":ms}` (`t`: when it completed). Answers are read
 * back from the file on replay, not held in memory. Pending claims live in memory only (one process
 * per data folder). Entries expire 24 h after they completed; the file is rewritten without the
 * expired and superseded lines once those are more than half of it.
 *
 * @module
 */

import { mkdir, open, readdir, readFile, rename, stat, truncate, unlink } from "node:fs/promises";
import { join } from "node:path";
import { MemoryValidationError } from "@memo/memory";
import type { IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from "../store.ts";

/** How long a completed key is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Age after which a pending claim may be claimed again (its holder is taken for dead). */
export const PENDING_CLAIM_MS = 60 * 1000;

const ID_PATTERN = /^[0-9a-z][0-9a-z_-]{0,63}$/;
/** Fewest lines a file holds before it may be compacted. */
const COMPACT_MIN_LINES = 64;

/**
 * Options of {@linkcode FileIdempotencyStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { FileIdempotencyStoreOptions } from "./_idempotency.ts";
 *
 * const options: FileIdempotencyStoreOptions = { dataDir: "./memo-cloud-data" };
 * assert.equal(options.dataDir, "./memo-cloud-data");
 * ```
 */
export interface FileIdempotencyStoreOptions {
  /** The data folder; each workspace's keys are in `<dataDir>/<ws>/idempotency.jsonl`. */
  dataDir: string;
  /**
   * Source of the current time (expiry of keys and of pending claims).
   * @default () => new Date()
   */
  clock?: () => Date;
}

interface Done {
  fingerprint: string;
  status: number;
  at: number;
  /** Where its line is in the file. */
  pos?: number;
  len?: number;
  /** The body, when the line could not be written. */
  body?: string;
}

interface Workspace {
  path: string;
  done: Map<string, Done>;
  pending: Map<string, { fingerprint: string; at: number }>;
  /** Lines and bytes in the file. */
  lines: number;
  size: number;
  compactAt: number;
  queue: Promise<unknown>;
}

/**
 * Idempotency keys kept in files, per workspace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileIdempotencyStore } from "./_idempotency.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const keys = new FileIdempotencyStore({ dataDir });
 * assert.deepEqual(await keys.claim("team", "k1", "fp"), { kind: "claimed" });
 * assert.deepEqual(await keys.claim("team", "k1", "fp"), { kind: "pending" });
 * await keys.complete("team", "k1", { status: 201, body: '{"ok":true}' }, "fp");
 * const again = new FileIdempotencyStore({ dataDir }); // another start of the server
 * assert.deepEqual(await again.claim("team", "k1", "fp"), {
 *   kind: "replay",
 *   answer: { status: 201, body: '{"ok":true}' },
 * });
 * assert.deepEqual(await again.claim("team", "k1", "other"), { kind: "mismatch" });
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export class FileIdempotencyStore implements IdempotencyStore {
  readonly #dataDir: string;
  readonly #clock: () => Date;
  readonly #workspaces = new Map<string, Promise<Workspace>>();

  /** Creates the store; nothing is read until a workspace's first call. */
  constructor(options: FileIdempotencyStoreOptions) {
    if (!options || typeof options.dataDir !== "string" || options.dataDir === "") {
      throw new MemoryValidationError("Cannot open idempotency keys: dataDir must be a path");
    }
    this.#dataDir = options.dataDir;
    this.#clock = options.clock ?? (() => new Date());
  }

  /** {@linkcode IdempotencyStore.claim}. */
  claim(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    return this.#run(workspaceId, async (ws) => {
      const now = this.#now();
      const done = ws.done.get(key);
      if (done && now - done.at < IDEMPOTENCY_TTL_MS) {
        if (done.fingerprint !== fingerprint) return { kind: "mismatch" };
        return { kind: "replay", answer: await readAnswer(ws, done) };
      }
      if (done) ws.done.delete(key);
      const pending = ws.pending.get(key);
      if (pending && now - pending.at < PENDING_CLAIM_MS) {
        return { kind: pending.fingerprint === fingerprint ? "pending" : "mismatch" };
      }
      ws.pending.set(key, { fingerprint, at: now });
      return { kind: "claimed" };
    });
  }

  /**
   * {@linkcode IdempotencyStore.complete}: appends the answer to the workspace's file. When the
   * file cannot be written the answer is still kept (in memory, for this process) and the error is
   * thrown. A key with no pending claim (released, or claimed again by another request since)
   * records nothing.
   */
  complete(
    workspaceId: string,
    key: string,
    answer: IdempotentAnswer,
    fingerprint: string,
  ): Promise<void> {
    return this.#run(workspaceId, async (ws) => {
      const pending = ws.pending.get(key);
      if (!pending || pending.fingerprint !== fingerprint) return;
      ws.pending.delete(key);
      const at = this.#now();
      const line = JSON.stringify({
        k: key,
        f: pending.fingerprint,
        s: answer.status,
        b: answer.body,
        t: at,
      }) + "\n";
      const bytes = new TextEncoder().encode(line);
      const done: Done = { fingerprint: pending.fingerprint, status: answer.status, at };
      try {
        await mkdir(join(this.#dataDir, workspaceId), { recursive: true });
        const file = await open(ws.path, "a");
        try {
          await file.write(bytes);
          await file.datasync();
        } finally {
          await file.close();
        }
      } catch (e) {
        done.body = answer.body;
        ws.done.set(key, done);
        // Cut what may have reached the file, so that the next line starts on a line of its own.
        await truncate(ws.path, ws.size).catch(() => {});
        throw e;
      }
      done.pos = ws.size;
      done.len = bytes.length;
      ws.size += bytes.length;
      ws.lines++;
      ws.done.set(key, done);
      if (ws.lines >= ws.compactAt) await this.#compact(ws);
    });
  }

  /** {@linkcode IdempotencyStore.release}: forgets a pending claim. */
  release(workspaceId: string, key: string, fingerprint: string): Promise<void> {
    return this.#run(workspaceId, (ws) => {
      if (ws.pending.get(key)?.fingerprint === fingerprint) ws.pending.delete(key);
      return Promise.resolve();
    });
  }

  /** Waits for pending file writes and forgets everything held in memory. */
  async close(): Promise<void> {
    const all = [...this.#workspaces.values()];
    this.#workspaces.clear();
    for (const ws of all) await ws.then((w) => w.queue).catch(() => {});
  }

  #now(): number {
    return this.#clock().getTime();
  }

  #run<T>(workspaceId: string, fn: (ws: Workspace) => Promise<T>): Promise<T> {
    if (typeof workspaceId !== "string" || !ID_PATTERN.test(workspaceId)) {
      return Promise.reject(
        new MemoryValidationError("Cannot keep an idempotency key: the workspace id is invalid"),
      );
    }
    let opened = this.#workspaces.get(workspaceId);
    if (!opened) {
      opened = this.#load(workspaceId);
      this.#workspaces.set(workspaceId, opened);
      opened.catch(() => {
        if (this.#workspaces.get(workspaceId) === opened) this.#workspaces.delete(workspaceId);
      });
    }
    return opened.then((ws) => {
      const run = ws.queue.then(() => fn(ws));
      ws.queue = run.catch(() => {});
      return run;
    });
  }

  async #load(workspaceId: string): Promise<Workspace> {
    const path = join(this.#dataDir, workspaceId, "idempotency.jsonl");
    const ws: Workspace = {
      path,
      done: new Map(),
      pending: new Map(),
      lines: 0,
      size: 0,
      compactAt: COMPACT_MIN_LINES,
      queue: Promise.resolve(),
    };
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return ws;
      throw e;
    }
    const now = this.#now();
    for (const line of splitLines(bytes)) {
      ws.lines++;
      const entry = parseLine(line.text);
      if (!entry || now - entry.t >= IDEMPOTENCY_TTL_MS) continue;
      ws.done.set(entry.k, {
        fingerprint: entry.f,
        status: entry.s,
        at: entry.t,
        pos: line.pos,
        len: line.len,
      });
    }
    ws.size = bytes.lastIndexOf(10) + 1;
    // A torn last line (a crash mid-append) is cut, so that the next line starts on its own.
    if (ws.size < bytes.length) await truncate(path, ws.size);
    if (ws.lines >= ws.compactAt) await this.#compact(ws);
    return ws;
  }

  /**
   * {@linkcode IdempotencyStore.purge}: in every workspace folder of `dataDir` that holds keys,
   * drops the answers older than `before` and rewrites the file.
   */
  async purge(before: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.#dataDir);
    } catch {
      return 0;
    }
    let purged = 0;
    for (const id of names.filter((n) => ID_PATTERN.test(n))) {
      try {
        await stat(join(this.#dataDir, id, "idempotency.jsonl"));
      } catch {
        continue;
      }
      purged += await this.#run(id, async (ws) => {
        let n = 0;
        for (const [key, done] of ws.done) {
          if (done.at < before.getTime()) {
            ws.done.delete(key);
            n++;
          }
        }
        if (n) await this.#compact(ws, true);
        return n;
      });
    }
    return purged;
  }

  /**
   * Drops expired keys; rewrites the file when they and superseded lines are most of it (or,
   * `force`, always).
   */
  async #compact(ws: Workspace, force = false): Promise<void> {
    const now = this.#now();
    for (const [key, done] of ws.done) {
      if (now - done.at >= IDEMPOTENCY_TTL_MS) ws.done.delete(key);
    }
    if (force || ws.lines > 2 * ws.done.size) {
      let bytes: Uint8Array;
      try {
        bytes = await readFile(ws.path);
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") throw e;
        bytes = new Uint8Array(0);
      }
      const kept: Uint8Array[] = [];
      const places = new Map<string, { pos: number; len: number }>();
      let size = 0;
      for (const line of splitLines(bytes)) {
        const entry = parseLine(line.text);
        const done = entry && ws.done.get(entry.k);
        // Only the line of each live key's current answer is kept.
        if (!entry || !done || done.pos !== line.pos) continue;
        kept.push(bytes.subarray(line.pos, line.pos + line.len));
        places.set(entry.k, { pos: size, len: line.len });
        size += line.len;
      }
      const temp = `${ws.path}.${crypto.randomUUID()}.tmp`;
      const file = await open(temp, "w");
      try {
        for (const chunk of kept) await file.write(chunk);
        await file.sync();
        await file.close();
        await rename(temp, ws.path);
      } catch (e) {
        await file.close().catch(() => {});
        await unlink(temp).catch(() => {});
        throw e;
      }
      for (const [key, place] of places) Object.assign(ws.done.get(key)!, place);
      ws.lines = kept.length;
      ws.size = size;
    }
    ws.compactAt = Math.max(COMPACT_MIN_LINES, 2 * ws.lines);
  }
}

async function readAnswer(ws: Workspace, done: Done): Promise<IdempotentAnswer> {
  if (done.body !== undefined) return { status: done.status, body: done.body };
  const file = await open(ws.path, "r");
  try {
    const buffer = new Uint8Array(done.len!);
    const { bytesRead } = await file.read(buffer, 0, done.len!, done.pos!);
    const entry = parseLine(new TextDecoder().decode(buffer.subarray(0, bytesRead)));
    if (!entry) throw new Error("Cannot replay an idempotent answer: its line is damaged");
    return { status: entry.s, body: entry.b };
  } finally {
    await file.close();
  }
}

function* splitLines(bytes: Uint8Array): Generator<{ text: string; pos: number; len: number }> {
  const decoder = new TextDecoder();
  let pos = 0;
  while (pos < bytes.length) {
    const end = bytes.indexOf(10, pos);
    if (end < 0) return; // a torn last line: not an answer
    yield { text: decoder.decode(bytes.subarray(pos, end)), pos, len: end + 1 - pos };
    pos = end + 1;
  }
}

function parseLine(
  text: string,
): { k: string; f: string; s: number; b: string; t: number } | undefined {
  try {
    const v = JSON.parse(text);
    if (
      v && typeof v.k === "string" && typeof v.f === "string" && Number.isInteger(v.s) &&
      typeof v.b === "string" && Number.isFinite(v.t)
    ) return v;
  } catch {
    // a damaged line is no answer
  }
  return undefined;
}
