/**
 * The options of {@linkcode FileMemoryStore}: where its notes file is, its clock and how long it
 * waits for and trusts another process's lock.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import type { LockSettings } from "./_lock.ts";
import { mergeCachePath } from "./_merge_cache.ts";
import { digestCachePath } from "./_digest_cache.ts";
import { type MemoPaths, memoPaths } from "./paths.ts";

/**
 * Options of {@linkcode FileMemoryStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type FileMemoryStoreOptions } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const options: FileMemoryStoreOptions = {
 *   rootDir: dir,
 *   lockTimeoutMs: 2_000,
 *   clock: () => new Date("2025-01-01T00:00:00.000Z"),
 * };
 * const store = new FileMemoryStore(options);
 * const { written } = await store.commit({ notes: [{ text: "hello" }] });
 * assert.equal(written[0].created, "2025-01-01T00:00:00.000Z");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface FileMemoryStoreOptions {
  /** Project root; notes live in `<rootDir>/.memo/memory/notes.md` unless `notesPath` is given. */
  rootDir: string;
  /**
   * The notes file to use instead of `<rootDir>/.memo/memory/notes.md` (its lock is
   * `<notesPath>.lock`). The cloud reference server's file store keeps one per project.
   * @default `<rootDir>/.memo/memory/notes.md`
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { join } from "node:path";
   * import { FileMemoryStore } from "@memo/memory";
   * const dir = await Deno.makeTempDir();
   * const notesPath = join(dir, "team", "notes.md");
   * const store = new FileMemoryStore({ rootDir: dir, notesPath });
   * await store.commit({ notes: [{ text: "hello" }] });
   * assert.equal(store.paths.lock, `${notesPath}.lock`);
   * assert.ok((await Deno.readTextFile(notesPath)).includes("hello"));
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  notesPath?: string;
  /**
   * Source of the current time for `created`, `updated` and new ids.
   * @default () => new Date()
   */
  clock?: () => Date;
  /**
   * How long a write waits for the lock held by another live process before it throws
   * `StoreLockError`.
   * @default 10000
   */
  lockTimeoutMs?: number;
  /**
   * Age after which an empty or unreadable lock file is stale (its writer died before filling it).
   * @default 5000
   */
  staleLockMs?: number;
  /**
   * Age after which a lock written by another host (a shared or network folder, another
   * container) is stale: whether its process lives cannot be checked from here.
   * @default 600000 (10 minutes)
   */
  foreignLockStaleMs?: number;
  /**
   * The base of a merge that left `notes.md` with conflict markers but no `|||||||` parts: read
   * only while the file is conflicted. When it answers `undefined`, the two sides merge without a
   * base.
   * @default git's index stage 1 (`git show :1:./notes.md` in the file's folder)
   */
  conflictBase?: () => Promise<string | undefined>;
}

/**
 * Checks a store's options and gives its paths, lock settings, merge cache and digest cache (the
 * defaults applied here).
 * Throws `MemoryValidationError` for an empty `rootDir` or `notesPath`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { storeSettings } from "./file_store_options.ts";
 *
 * const { paths, lock } = storeSettings({ rootDir: "/p", notesPath: "/p/other.md" });
 * assert.equal(paths.lock, "/p/other.md.lock");
 * assert.equal(lock.timeoutMs, 10_000);
 * assert.throws(() => storeSettings({ rootDir: "" }), /rootDir must be a non-empty path/);
 * ```
 */
export function storeSettings(
  options: FileMemoryStoreOptions,
): {
  paths: MemoPaths;
  lock: Omit<LockSettings, "create" | "signal">;
  mergeCache?: string;
  digestCache?: string;
} {
  if (!options || typeof options.rootDir !== "string" || options.rootDir === "") {
    throw new MemoryValidationError("Cannot open store: rootDir must be a non-empty path");
  }
  const { notesPath } = options;
  if (notesPath !== undefined && (typeof notesPath !== "string" || notesPath === "")) {
    throw new MemoryValidationError("Cannot open store: notesPath must be a non-empty path");
  }
  const base = memoPaths(options.rootDir);
  const paths = notesPath === undefined
    ? base
    : { ...base, notes: notesPath, lock: `${notesPath}.lock` };
  const lock = {
    lockPath: paths.lock,
    notesPath: paths.notes,
    timeoutMs: options.lockTimeoutMs ?? 10_000,
    staleMs: options.staleLockMs ?? 5_000,
    foreignStaleMs: options.foreignLockStaleMs ?? 600_000,
  };
  // A store with its own notesPath (one of many under a root) writes nothing under .memo.
  const mergeCache = notesPath === undefined ? mergeCachePath(paths.cache) : undefined;
  const digestCache = notesPath === undefined ? digestCachePath(paths.cache) : undefined;
  return { paths, lock, mergeCache, digestCache };
}
