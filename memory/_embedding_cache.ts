/**
 * Internal: the on-disk embedding cache, `.memo/cache/embeddings/<slug>.vec`, one file per model,
 * keyed by the content hash of the embedded text (`embeddingKey`). A restart, or a second
 * process, re-embeds nothing the file already holds.
 *
 * **File.** Little-endian throughout. A header, then fixed-size records:
 *
 * | bytes            | header                                   |
 * | ---------------- | ---------------------------------------- |
 * | 8                | magic `memo-vec`                         |
 * | 4                | format version (1)                       |
 * | 4                | dimensions                               |
 * | 4                | byte length L of the model name          |
 * | L                | model name, UTF-8                        |
 * | 4                | CRC-32 of the bytes above                |
 *
 * | bytes            | record                                   |
 * | ---------------- | ---------------------------------------- |
 * | 4                | marker `0xF0 v e c`                      |
 * | 16               | key (the 32 hex digits as bytes)         |
 * | 4 × dimensions   | the vector, float32                      |
 * | 4                | CRC-32 of the bytes above                |
 *
 * **Writers.** The file is opened with `O_APPEND` and each `put` appends its whole batch with one
 * write, so processes can append at the same time without interleaving records. The file is created
 * whole (header written to a temporary file, then hard-linked into place), so no process ever sees
 * a file without its header.
 *
 * **Readers.** Only key → record offset is held in memory; `read` fetches a vector with a
 * positional read. `refresh` parses what was appended since the last parse, from any process.
 * A record whose marker or CRC is wrong (a torn write, a flipped byte) is skipped: parsing resyncs
 * at the next marker whose record checks out. The file is never truncated: a torn tail left by a
 * process killed mid-write may already have another process's records after it, so it stays as
 * dead bytes (the next compaction drops it). Fewer bytes than a record at the end are a write in
 * progress and are parsed at the next `refresh`.
 *
 * **Recovery.** A header that is damaged, of another format version, or for other dimensions or
 * another model makes `open` replace the file with a fresh empty one (temporary file renamed over
 * it); nothing throws on a corrupt file. A process that still has the old file open notices the
 * replacement (its path points at another file) at its next `refresh` or `put` and reopens.
 *
 * **Compaction.** `compact(live)` rewrites the live records through a temporary file renamed into
 * place when dead records (other keys, duplicates, damaged bytes) outnumber them. Records another
 * process appends to the old file between the copy and the rename are lost; being a cache, they
 * are embedded again when needed.
 *
 * @module
 */

import { constants } from "node:fs";
import { link, mkdir, open, rename, stat, unlink, writeFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { createHash } from "node:crypto";
import * as zlib from "node:zlib";
import { MemoryError, MemoryValidationError } from "./errors.ts";
import { memoPaths } from "./paths.ts";
import { currentPid } from "./_system.ts";

const MAGIC = new TextEncoder().encode("memo-vec");
const VERSION = 1;
const MARKER = 0x636576f0; // bytes F0 'v' 'e' 'c', read little-endian
const KEY_BYTES = 16;
const MAX_MODEL_BYTES = 4096;
/** Bytes read per step while parsing. */
const CHUNK_BYTES = 4 << 20;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * CRC-32 (IEEE) of `bytes`: `node:zlib`'s where it has one (Node ≥ 20.15, Deno), else a table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crc32 } from "./_embedding_cache.ts";
 * assert.equal(crc32(new TextEncoder().encode("hello")), 907060870);
 * ```
 */
export const crc32: (bytes: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === "function"
    ? (bytes) => (zlib as unknown as { crc32(b: Uint8Array): number }).crc32(bytes) >>> 0
    : tableCrc32;

let crcTable: Int32Array | undefined;

function tableCrc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/**
 * File name stem of a model's cache: the model with every character outside `[A-Za-z0-9._-]`
 * replaced by `_`, then `-` and the first 8 hex digits of the SHA-256 of the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelSlug } from "./_embedding_cache.ts";
 * assert.match(modelSlug("Xenova/all-MiniLM-L6-v2"), /^Xenova_all-MiniLM-L6-v2-[0-9a-f]{8}$/);
 * assert.notEqual(modelSlug("a/b"), modelSlug("a_b")); // the hash tells them apart
 * ```
 */
export function modelSlug(model: string): string {
  const hash = createHash("sha256").update(model).digest("hex").slice(0, 8);
  return `${model.replace(/[^A-Za-z0-9._-]/g, "_")}-${hash}`;
}

/**
 * Path of a model's cache file in a project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddingCachePath, modelSlug } from "./_embedding_cache.ts";
 * assert.equal(embeddingCachePath("/p", "use-lite"), `/p/.memo/cache/embeddings/${modelSlug("use-lite")}.vec`);
 * ```
 */
export function embeddingCachePath(rootDir: string, model: string): string {
  return join(memoPaths(rootDir).cache, "embeddings", `${modelSlug(model)}.vec`);
}

/** The header of a cache file for `model` and `dimensions`. */
function encodeHeader(model: string, dimensions: number): Uint8Array {
  const name = new TextEncoder().encode(model);
  const bytes = new Uint8Array(24 + name.length);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  view.setUint32(8, VERSION, true);
  view.setUint32(12, dimensions, true);
  view.setUint32(16, name.length, true);
  bytes.set(name, 20);
  view.setUint32(20 + name.length, crc32(bytes.subarray(0, 20 + name.length)), true);
  return bytes;
}

/** Bytes of one record. */
function recordBytes(dimensions: number): number {
  return 4 + KEY_BYTES + 4 * dimensions + 4;
}

/** A hex key as 16 bytes, or undefined when it is not 32 hex digits. */
function keyBytes(key: string, into: Uint8Array, at: number): boolean {
  if (key.length !== 32) return false;
  for (let i = 0; i < KEY_BYTES; i++) {
    const byte = parseInt(key.slice(2 * i, 2 * i + 2), 16);
    if (!(byte >= 0) || !/^[0-9a-f]{2}$/.test(key.slice(2 * i, 2 * i + 2))) return false;
    into[at + i] = byte;
  }
  return true;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function keyText(bytes: Uint8Array, at: number): string {
  let key = "";
  for (let i = 0; i < KEY_BYTES; i++) key += HEX[bytes[at + i]];
  return key;
}

/** A copy of the float32 vector at `at` of `bytes`. */
function vectorAt(bytes: Uint8Array, at: number, dimensions: number): Float32Array {
  if (LITTLE_ENDIAN) {
    return new Float32Array(
      bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * dimensions),
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 4 * dimensions);
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = view.getFloat32(4 * i, true);
  return vector;
}

/** Whether `bytes[at .. at + size)` is a whole record (marker and CRC). */
function validRecord(bytes: Uint8Array, view: DataView, at: number, size: number): boolean {
  return view.getUint32(at, true) === MARKER &&
    crc32(bytes.subarray(at, at + size - 4)) === view.getUint32(at + size - 4, true);
}

/** Reads up to `length` bytes at `position`; returns how many were read. */
async function readAt(
  handle: FileHandle,
  into: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(into, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/**
 * One vector to store under its key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbeddingCacheEntry } from "./_embedding_cache.ts";
 * const entry: EmbeddingCacheEntry = { key: "0".repeat(32), vector: new Float32Array(512) };
 * assert.equal(entry.key.length, 32);
 * ```
 */
export interface EmbeddingCacheEntry {
  /** `embeddingKey` of the embedded text: 32 lowercase hex digits. */
  key: string;
  /** The vector, `dimensions` long. */
  vector: Float32Array;
}

const FILE_FLAGS = constants.O_RDWR | constants.O_APPEND;

/**
 * The embedding cache of one model in one project (see the module doc for the file and its
 * guarantees). Methods of one instance run one at a time, in call order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingCache } from "./_embedding_cache.ts";
 * const dir = await Deno.makeTempDir();
 * const cache = await EmbeddingCache.open(dir, "use-lite", 2);
 * await cache.put([{ key: "0123456789abcdef0123456789abcdef", vector: new Float32Array([0.6, 0.8]) }]);
 * await cache.close();
 *
 * const again = await EmbeddingCache.open(dir, "use-lite", 2); // a restart, or another process
 * const seen: string[] = [];
 * await again.refresh((key) => seen.push(key));
 * assert.deepEqual(seen, ["0123456789abcdef0123456789abcdef"]);
 * assert.deepEqual(await again.read(seen[0]), new Float32Array([0.6, 0.8]));
 * await again.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class EmbeddingCache {
  /** The model whose vectors the file holds. */
  readonly model: string;
  /** Components per vector. */
  readonly dimensions: number;
  /** The cache file. */
  readonly path: string;
  readonly #header: Uint8Array;
  readonly #recordSize: number;
  #handle: FileHandle | undefined;
  #ino = -1;
  /** Parsed up to here. */
  #parsed = 0;
  /** Key → offset of its (first valid) record. */
  #offsets = new Map<string, number>();
  /** Keys this instance put whose records it has not parsed yet. */
  #own = new Set<string>();
  /** Keys parsed by a `put` that `refresh` has not reported yet. */
  #unreported: string[] = [];
  /** Valid records parsed (duplicates included). */
  #records = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, model: string, dimensions: number) {
    this.path = path;
    this.model = model;
    this.dimensions = dimensions;
    this.#header = encodeHeader(model, dimensions);
    this.#recordSize = recordBytes(dimensions);
  }

  /**
   * Opens (creating or rebuilding when needed) the cache of `model` in the project at `rootDir`,
   * and makes sure `.memo/cache/.gitignore` keeps the cache out of git. Nothing is parsed until the
   * first `refresh`. Rejects only when the file cannot be created or opened (no permission, no
   * space), never because of what it holds.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { readFile } from "node:fs/promises";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "use-lite", 512);
   * assert.equal(cache.size, 0);
   * assert.equal(await readFile(`${dir}/.memo/cache/.gitignore`, "utf8"), "*\n");
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  static async open(rootDir: string, model: string, dimensions: number): Promise<EmbeddingCache> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 1 << 16) {
      throw new MemoryValidationError(
        `Cannot open embedding cache: dimensions must be a positive integer up to 65536, got ${dimensions}`,
      );
    }
    if (new TextEncoder().encode(model).length > MAX_MODEL_BYTES) {
      throw new MemoryValidationError(
        `Cannot open embedding cache: the model name is longer than ${MAX_MODEL_BYTES} bytes`,
      );
    }
    const cacheDir = memoPaths(rootDir).cache;
    await mkdir(join(cacheDir, "embeddings"), { recursive: true });
    await writeFile(join(cacheDir, ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
    const cache = new EmbeddingCache(embeddingCachePath(rootDir, model), model, dimensions);
    await cache.#open();
    return cache;
  }

  /**
   * Whether a cache file exists for `model` in the project at `rootDir` (it may still be empty or
   * be for other dimensions).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * assert.equal(await EmbeddingCache.exists(dir, "use-lite"), false);
   * await (await EmbeddingCache.open(dir, "use-lite", 2)).close();
   * assert.equal(await EmbeddingCache.exists(dir, "use-lite"), true);
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  static async exists(rootDir: string, model: string): Promise<boolean> {
    const info = await stat(embeddingCachePath(rootDir, model)).catch(() => undefined);
    return info?.isFile() ?? false;
  }

  /**
   * Number of distinct keys known: parsed from the file, or put by this instance.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 1);
   * const key = "ffffffffffffffffffffffffffffffff";
   * await cache.put([{ key, vector: new Float32Array([1]) }]);
   * await cache.put([{ key, vector: new Float32Array([1]) }]); // known: not written again
   * assert.equal(cache.size, 1);
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  get size(): number {
    return this.#offsets.size + this.#own.size;
  }

  /**
   * Whether the cache holds a vector for `key`, as far as this instance knows (call `refresh` to
   * learn what other processes appended).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 1);
   * const key = "00000000000000000000000000000001";
   * assert.equal(cache.has(key), false);
   * await cache.put([{ key, vector: new Float32Array([1]) }]);
   * assert.equal(cache.has(key), true);
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  has(key: string): boolean {
    return this.#offsets.has(key) || this.#own.has(key);
  }

  /**
   * Parses the records appended since the last parse (by this or another process) and calls
   * `onEntry` once for each key this instance did not know yet — not for keys it put itself.
   * Damaged records are skipped. When the file was replaced (rebuilt or compacted by another
   * process), it is reopened and parsed from its start, and every key it holds is reported again.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const a = await EmbeddingCache.open(dir, "m", 1);
   * const b = await EmbeddingCache.open(dir, "m", 1); // another process
   * await a.put([{ key: "0000000000000000000000000000000a", vector: new Float32Array([0.5]) }]);
   * const seen: [string, number][] = [];
   * await b.refresh((key, vector) => seen.push([key, vector[0]]));
   * assert.deepEqual(seen, [["0000000000000000000000000000000a", 0.5]]);
   * await b.refresh(() => assert.fail("nothing new"));
   * await a.close();
   * await b.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  refresh(onEntry: (key: string, vector: Float32Array) => void): Promise<void> {
    return this.#serial(async () => {
      await this.#reopenIfReplaced();
      const unreported = this.#unreported;
      this.#unreported = [];
      for (const key of unreported) {
        const vector = await this.#read(key);
        if (vector) onEntry(key, vector);
      }
      await this.#parse(onEntry);
    });
  }

  /**
   * The vector stored under `key` (read from the file), or undefined when this instance knows no
   * valid record for it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 2);
   * const key = "abcdefabcdefabcdefabcdefabcdefab";
   * await cache.put([{ key, vector: new Float32Array([1, 2]) }]);
   * assert.deepEqual(await cache.read(key), new Float32Array([1, 2]));
   * assert.equal(await cache.read("00000000000000000000000000000000"), undefined);
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  read(key: string): Promise<Float32Array | undefined> {
    return this.#serial(() => this.#read(key));
  }

  /**
   * Appends the entries whose keys are not known yet, in one write. Throws
   * `MemoryValidationError` for a key that is not 32 lowercase hex digits or a vector of another
   * length (and then writes nothing).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 512);
   * await assert.rejects(
   *   cache.put([{ key: "0123456789abcdef0123456789abcdef", vector: new Float32Array(3) }]),
   *   { name: "MemoryValidationError", message: "Cannot cache embedding: expected 512 dimensions, got 3" },
   * );
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  put(entries: readonly EmbeddingCacheEntry[]): Promise<void> {
    const size = this.#recordSize;
    const batch = new Uint8Array(entries.length * size);
    const view = new DataView(batch.buffer);
    const keys: string[] = [];
    const seen = new Set<string>();
    for (const { key, vector } of entries) {
      if (!(vector instanceof Float32Array) || vector.length !== this.dimensions) {
        const got = vector instanceof Float32Array ? vector.length : typeof vector;
        return Promise.reject(
          new MemoryValidationError(
            `Cannot cache embedding: expected ${this.dimensions} dimensions, got ${got}`,
          ),
        );
      }
      const at = keys.length * size;
      if (typeof key !== "string" || !keyBytes(key, batch, at + 4)) {
        return Promise.reject(
          new MemoryValidationError(
            "Cannot cache embedding: the key must be 32 lowercase hex digits",
          ),
        );
      }
      if (seen.has(key)) continue;
      seen.add(key);
      keys.push(key);
      view.setUint32(at, MARKER, true);
      for (let i = 0; i < vector.length; i++) view.setFloat32(at + 20 + 4 * i, vector[i], true);
      view.setUint32(at + size - 4, crc32(batch.subarray(at, at + size - 4)), true);
    }
    return this.#serial(async () => {
      await this.#reopenIfReplaced();
      // Keys learned since the batch was built are not written again.
      let n = 0;
      for (let i = 0; i < keys.length; i++) {
        if (this.has(keys[i])) continue;
        if (n !== i) batch.copyWithin(n * size, i * size, (i + 1) * size);
        keys[n++] = keys[i];
      }
      if (n === 0) return;
      let written = 0;
      const bytes = batch.subarray(0, n * size);
      while (written < bytes.length) {
        const { bytesWritten } = await this.#file().write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
      for (let i = 0; i < n; i++) this.#own.add(keys[i]);
      // Learn where they landed (and what other processes appended before them).
      await this.#parse(undefined);
    });
  }

  /**
   * Rewrites the file with only the records of `live` keys when the dead records (other keys,
   * duplicates, damaged bytes counted as records) outnumber the live ones; returns whether it did.
   * Call it after a `refresh`: keys not parsed yet count as dead.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 1);
   * const keys = ["a", "b", "c"].map((c) => c.repeat(32));
   * await cache.put(keys.map((key) => ({ key, vector: new Float32Array([1]) })));
   * assert.equal(await cache.compact(new Set(keys)), false); // nothing dead
   * assert.equal(await cache.compact(new Set([keys[0]])), true);
   * assert.equal(cache.size, 1);
   * assert.deepEqual(await cache.read(keys[0]), new Float32Array([1]));
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  compact(live: ReadonlySet<string>): Promise<boolean> {
    return this.#serial(async () => {
      await this.#reopenIfReplaced();
      await this.#parse(undefined);
      const size = this.#recordSize;
      const keep: string[] = [];
      for (const key of this.#offsets.keys()) if (live.has(key)) keep.push(key);
      const dead = Math.floor((this.#parsed - this.#header.length) / size) - keep.length;
      if (dead <= keep.length) return false;
      const tmp = `${this.path}.${currentPid()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
      const out = await open(tmp, "w");
      const offsets = new Map<string, number>();
      try {
        await out.write(this.#header);
        let at = this.#header.length;
        const record = new Uint8Array(size);
        const view = new DataView(record.buffer);
        for (const key of keep) {
          const got = await readAt(this.#file(), record, size, this.#offsets.get(key)!);
          if (got < size || !validRecord(record, view, 0, size)) continue;
          await out.write(record);
          offsets.set(key, at);
          at += size;
        }
        await out.close();
        await rename(tmp, this.path);
      } catch (error) {
        await out.close().catch(() => {});
        await unlink(tmp).catch(() => {});
        throw error;
      }
      const unreported = this.#unreported.filter((key) => offsets.has(key));
      await this.#handle?.close().catch(() => {});
      this.#handle = undefined;
      await this.#open();
      // The new file holds exactly these; only what was not reported yet is news to the caller.
      this.#offsets = offsets;
      this.#unreported = unreported;
      this.#records = offsets.size;
      this.#parsed = this.#header.length + offsets.size * size;
      return true;
    });
  }

  /**
   * Closes the file; later calls reject.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./_embedding_cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "m", 1);
   * await cache.close();
   * await cache.close(); // again: nothing
   * await assert.rejects(cache.read("0".repeat(32)), /Cannot use embedding cache: it is closed/);
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const done = this.#queue.then(async () => {
      await this.#handle?.close().catch(() => {});
      this.#handle = undefined;
    });
    this.#queue = done;
    return done;
  }

  /** Runs `task` after every earlier call of this instance. */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new MemoryError("Cannot use embedding cache: it is closed"));
    }
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => {});
    return run;
  }

  #file(): FileHandle {
    if (!this.#handle) throw new MemoryError("Cannot use embedding cache: it is closed");
    return this.#handle;
  }

  /**
   * Opens the file (creating it whole when missing, replacing it when its header is not ours)
   * and resets what this instance knows about it.
   */
  async #open(): Promise<void> {
    const header = this.#header;
    for (let attempt = 0;; attempt++) {
      let handle: FileHandle;
      try {
        handle = await open(this.path, FILE_FLAGS);
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOENT" || attempt >= 5) throw error;
        await this.#install("link");
        continue;
      }
      const found = new Uint8Array(header.length + 1);
      const got = await readAt(handle, found, header.length, 0).catch(() => 0);
      if (got === header.length && found.subarray(0, got).every((b, i) => b === header[i])) {
        this.#handle = handle;
        this.#ino = (await handle.stat()).ino;
        this.#parsed = header.length;
        this.#offsets = new Map();
        this.#own = new Set();
        this.#unreported = [];
        this.#records = 0;
        return;
      }
      await handle.close().catch(() => {});
      if (attempt >= 5) {
        throw new Error(`Cannot open embedding cache ${this.path}: it keeps changing`);
      }
      // Damaged, or another version, model or dimensions: start over with an empty file.
      await this.#install("rename");
    }
  }

  /**
   * Puts a file holding only the header at the path: by hard link (only when none exists, so a
   * file another process just created is kept) or by rename (replacing what is there).
   */
  async #install(how: "link" | "rename"): Promise<void> {
    const tmp = `${this.path}.${currentPid()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    await writeFile(tmp, this.#header);
    try {
      if (how === "rename") await rename(tmp, this.path);
      else {
        await link(tmp, this.path).catch((error) => {
          if ((error as { code?: string }).code !== "EEXIST") throw error;
        });
      }
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  /** Reopens when the path no longer names the open file (rebuilt, compacted or deleted). */
  async #reopenIfReplaced(): Promise<void> {
    const info = await stat(this.path).catch(() => undefined);
    if (info && info.ino === this.#ino && this.#handle) return;
    await this.#handle?.close().catch(() => {});
    this.#handle = undefined;
    await this.#open();
  }

  async #read(key: string): Promise<Float32Array | undefined> {
    const at = this.#offsets.get(key);
    if (at === undefined) return undefined;
    const size = this.#recordSize;
    const record = new Uint8Array(size);
    const got = await readAt(this.#file(), record, size, at);
    if (got < size || !validRecord(record, new DataView(record.buffer), 0, size)) return undefined;
    return vectorAt(record, 20, this.dimensions);
  }

  /**
   * Parses from #parsed to the end of the file. New keys go to `onEntry` when given, else (a
   * `put` parsing its own write) to #unreported, except the keys this instance put.
   */
  async #parse(onEntry: ((key: string, vector: Float32Array) => void) | undefined): Promise<void> {
    const size = this.#recordSize;
    const handle = this.#file();
    let buffer = new Uint8Array(0);
    let view = new DataView(buffer.buffer);
    for (;;) {
      // Sized to what is there (a put parses one batch), at most a chunk, at least two records.
      const remaining = (await handle.stat()).size - this.#parsed;
      if (remaining < size) return;
      const want = Math.max(Math.min(remaining, CHUNK_BYTES), 2 * size);
      if (buffer.length < want) {
        buffer = new Uint8Array(want);
        view = new DataView(buffer.buffer);
      }
      const got = await readAt(handle, buffer, want, this.#parsed);
      if (got < size) return;
      let i = 0;
      while (i + size <= got) {
        if (validRecord(buffer, view, i, size)) {
          const key = keyText(buffer, i + 4);
          const offset = this.#parsed + i;
          this.#records++;
          if (!this.#offsets.has(key)) {
            this.#offsets.set(key, offset);
            if (this.#own.delete(key)) {
              // Put by this instance: the caller has it already.
            } else if (onEntry) onEntry(key, vectorAt(buffer, i + 20, this.dimensions));
            else this.#unreported.push(key);
          }
          i += size;
          continue;
        }
        // Damaged bytes: resync at the next marker.
        let next = i + 1;
        while (next + 4 <= got && view.getUint32(next, true) !== MARKER) next++;
        i = next + 4 <= got ? next : got - 3;
      }
      this.#parsed += i;
      if (got < want || i === 0) return; // read to the end of the file (what is left: a write in progress)
    }
  }
}
