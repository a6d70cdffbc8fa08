/**
 * Internal: the merge of a conflicted `notes.md`, kept in `.memo/cache/merged-notes.md` so that
 * the next process that reads the same conflicted file reads the merge instead of computing it
 * again (issue 31: notes.md is never written while its markers remain; caches may be).
 *
 * The file is one header line (JSON: the SHA-256 of the conflicted text, of the base the merge
 * took from git's index when the file holds no diff3 base, and of the merged text that follows),
 * then the merged text, byte for byte what `memo resolve` writes. A read trusts it only when the
 * conflicted text's digest and the base's match and the merged bytes hash to the header's
 * digest: anything else (another conflict, another base, a damaged or foreign file) reads as no
 * cache, and the caller merges again.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeCacheFile } from "./_cache_file.ts";

/** The first bytes of a cache file, and the version of its layout. */
const MAGIC = "memo-merge-cache 1 ";

/**
 * One merge of a conflicted file, as cached.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { CachedMerge } from "./_merge_cache.ts";
 * const merge: CachedMerge = {
 *   conflicted: "0".repeat(64), from: "none", base: null, hunks: 1, conflicts: 0, twins: 0,
 *   text: "# Memory\n", bytes: 9, sha256: "1".repeat(64),
 * };
 * assert.equal(merge.from, "none");
 * ```
 */
export interface CachedMerge {
  /** SHA-256 (hex) of the conflicted text. */
  conflicted: string;
  /** Where the merge's base came from (see `UnresolvedMerge.base`). */
  from: "file" | "given" | "none";
  /** SHA-256 (hex) of the base given (git's index), or null when none was. */
  base: string | null;
  /** Conflict hunks in the file. */
  hunks: number;
  /** Conflict copies the merge made. */
  conflicts: number;
  /** Twins the merge kept once. */
  twins: number;
  /** The merged text. */
  text: string;
  /** Its size in UTF-8 bytes. */
  bytes: number;
  /** The SHA-256 (hex) of those bytes. */
  sha256: string;
}

/**
 * The SHA-256 (hex) of a text's UTF-8 bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "./_merge_cache.ts";
 * assert.equal(sha256Hex("").slice(0, 8), "e3b0c442");
 * ```
 */
export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * The path of the merge cache of a project's `.memo/cache/` folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeCachePath } from "./_merge_cache.ts";
 * assert.equal(mergeCachePath("/p/.memo/cache"), "/p/.memo/cache/merged-notes.md");
 * ```
 */
export function mergeCachePath(cacheDir: string): string {
  return join(cacheDir, "merged-notes.md");
}

/**
 * The cached merge of the conflicted text whose digest is `conflicted`; undefined when the file
 * is missing, holds another conflict's merge, or is damaged in any way (never rejects).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMergeCache } from "./_merge_cache.ts";
 * assert.equal(await readMergeCache("/nowhere/merged-notes.md", "0".repeat(64)), undefined);
 * ```
 */
export async function readMergeCache(
  path: string,
  conflicted: string,
): Promise<CachedMerge | undefined> {
  try {
    const file = await readFile(path);
    const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
    const newline = bytes.indexOf(10);
    if (newline < 0) return undefined;
    const line = new TextDecoder().decode(bytes.subarray(0, newline));
    if (!line.startsWith(MAGIC)) return undefined;
    const head = JSON.parse(line.slice(MAGIC.length)) as Omit<CachedMerge, "text">;
    if (head.conflicted !== conflicted) return undefined;
    const body = bytes.subarray(newline + 1);
    if (body.length !== head.bytes || sha256Hex(body) !== head.sha256) return undefined;
    const { from, base, hunks, conflicts, twins } = head;
    if (from !== "file" && from !== "given" && from !== "none") return undefined;
    if (base !== null && typeof base !== "string") return undefined;
    if (![hunks, conflicts, twins].every(Number.isSafeInteger)) return undefined;
    const text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    return {
      conflicted,
      from,
      base,
      hunks,
      conflicts,
      twins,
      text,
      bytes: head.bytes,
      sha256: head.sha256,
    };
  } catch {
    return undefined;
  }
}

/**
 * Encodes a merge for {@linkcode writeMergeCache}: its bytes and their digest, or undefined when
 * the text does not survive a round trip through UTF-8 (it then goes uncached).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeMerge } from "./_merge_cache.ts";
 * assert.equal(encodeMerge("# Memory\n")?.bytes.length, 9);
 * assert.equal(encodeMerge("\ud800"), undefined); // a lone surrogate
 * ```
 */
export function encodeMerge(text: string): { bytes: Uint8Array; sha256: string } | undefined {
  // A lone surrogate (what `isWellFormed`, an ES2024 API past Node 20's build target, finds).
  if (/\p{Surrogate}/u.test(text)) return undefined;
  const bytes = new TextEncoder().encode(text);
  return { bytes, sha256: sha256Hex(bytes) };
}

/**
 * Writes a merge over the cache file at `path`, atomically, with a `.gitignore` beside it as the
 * index snapshot's folder has; errors are swallowed (the next read merges again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { encodeMerge, readMergeCache, sha256Hex, writeMergeCache } from "./_merge_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "cache", "merged-notes.md");
 * const text = "# Memory\n";
 * const { bytes, sha256 } = encodeMerge(text)!;
 * const conflicted = sha256Hex("<<<<<<< HEAD\n");
 * const merge = { conflicted, from: "none", base: null, hunks: 1, conflicts: 0, twins: 0 } as const;
 * await writeMergeCache(path, merge, bytes, sha256);
 * assert.equal((await readMergeCache(path, conflicted))?.text, text);
 * assert.equal(await readMergeCache(path, sha256Hex("another conflict")), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeMergeCache(
  path: string,
  merge: Omit<CachedMerge, "text" | "bytes" | "sha256">,
  bytes: Uint8Array,
  sha256: string,
): Promise<void> {
  const { conflicted, from, base, hunks, conflicts, twins } = merge;
  const head = { conflicted, from, base, hunks, conflicts, twins, bytes: bytes.length, sha256 };
  const line = new TextEncoder().encode(MAGIC + JSON.stringify(head) + "\n");
  const all = new Uint8Array(line.length + bytes.length);
  all.set(line);
  all.set(bytes, line.length);
  await writeCacheFile(path, all).catch(() => {});
}

/**
 * Removes the cache file (once the file is resolved, nothing reads it); never rejects.
 *
 * @example
 * ```ts
 * import { dropMergeCache } from "./_merge_cache.ts";
 * await dropMergeCache("/nowhere/merged-notes.md");
 * ```
 */
export function dropMergeCache(path: string): Promise<void> {
  return unlink(path).catch(() => {});
}
