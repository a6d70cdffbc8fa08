/**
 * Internal: the on-disk embedding cache, `.memo/cache/embeddings/<slug>.vec`, one file per model
 * (layout: `cache_format.ts`), keyed by the content hash of the embedded text (`embeddingKey`), so
 * that a restart or a second process re-embeds nothing the file holds.
 *
 * - **Writers.** The file is opened with `O_APPEND`; each `put` appends its batch with one write,
 *   so processes append at once without interleaving. It is created whole (header written to a
 *   temporary file, hard-linked into place): no process sees a file without its header.
 * - **Recovery.** A damaged header, or one of another version, dimensions or model, makes `open`
 *   replace the file with an empty one; nothing throws on a corrupt file. A process that has the
 *   old file open notices the replacement at its next `refresh` or `put` and reopens.
 * - **Compaction** rewrites the live records when dead ones outnumber them. Records another
 *   process appends between the copy and the rename are lost (embedded again when needed).
 *
 * @module
 */

import { mkdir, stat, writeFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { MemoryError, MemoryValidationError } from "../errors.ts";
import { memoPaths } from "../store/paths.ts";
import {
  type EmbeddingCacheEntry,
  embeddingCacheFile,
  embeddingCachePath,
  encodeHeader,
  encodeRecords,
  recordBytes,
  validRecord,
  vectorAt,
} from "./cache_format.ts";
import { openCacheFile, readAt, writeCompacted } from "./_cache_file.ts";
import { CacheRecords } from "./_cache_records.ts";

/**
 * The embedding cache of one model in one project (see the module doc for the file and its
 * guarantees). Methods of one instance run one at a time, in call order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EmbeddingCache } from "./cache.ts";
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
  readonly path: string;
  readonly #header: Uint8Array;
  readonly #recordSize: number;
  #handle: FileHandle | undefined;
  #ino = -1;
  /** What this instance knows of the file. */
  #known = new CacheRecords(0);
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(path: string, model: string, dimensions: number, header: Uint8Array) {
    this.path = path;
    this.model = model;
    this.dimensions = dimensions;
    this.#header = header;
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
   * import { EmbeddingCache } from "./cache.ts";
   * const dir = await Deno.makeTempDir();
   * const cache = await EmbeddingCache.open(dir, "use-lite", 512);
   * assert.equal(cache.size, 0);
   * assert.equal(await readFile(`${dir}/.memo/cache/.gitignore`, "utf8"), "*\n");
   * await cache.close();
   * await Deno.remove(dir, { recursive: true });
   * ```
   */
  static open(rootDir: string, model: string, dimensions: number): Promise<EmbeddingCache> {
    return EmbeddingCache.openIn(memoPaths(rootDir).cache, model, dimensions);
  }

  /**
   * Opens the cache of `model` in a scope's cache folder `cacheDir` (`<cacheDir>/embeddings/`),
   * as {@linkcode EmbeddingCache.open} does in a project's, with a `.gitignore` of `*` in
   * `cacheDir` when it has none.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./cache.ts";
   * const home = await Deno.makeTempDir(); // $MEMO_HOME
   * const cache = await EmbeddingCache.openIn(`${home}/cache`, "use-lite", 2);
   * assert.ok(cache.path.startsWith(`${home}/cache/embeddings/`));
   * assert.equal(await Deno.readTextFile(`${home}/cache/.gitignore`), "*\n");
   * await cache.close();
   * await Deno.remove(home, { recursive: true });
   * ```
   */
  static async openIn(
    cacheDir: string,
    model: string,
    dimensions: number,
  ): Promise<EmbeddingCache> {
    const header = encodeHeader(model, dimensions);
    await mkdir(join(cacheDir, "embeddings"), { recursive: true });
    await writeFile(join(cacheDir, ".gitignore"), "*\n", { flag: "wx" }).catch(() => {});
    const path = embeddingCacheFile(cacheDir, model);
    const cache = new EmbeddingCache(path, model, dimensions, header);
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
   * import { EmbeddingCache } from "./cache.ts";
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
   * import { EmbeddingCache } from "./cache.ts";
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
    return this.#known.size;
  }

  /**
   * Whether the cache holds a vector for `key`, as far as this instance knows (call `refresh` to
   * learn what other processes appended).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./cache.ts";
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
    return this.#known.has(key);
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
   * import { EmbeddingCache } from "./cache.ts";
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
      const unreported = this.#known.unreported;
      this.#known.unreported = [];
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
   * import { EmbeddingCache } from "./cache.ts";
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
   * import { EmbeddingCache } from "./cache.ts";
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
    let encoded: { batch: Uint8Array; keys: string[] };
    try {
      encoded = encodeRecords(entries, this.dimensions);
    } catch (e) {
      if (e instanceof MemoryValidationError) return Promise.reject(e);
      throw e;
    }
    const { batch, keys } = encoded;
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
      for (let i = 0; i < n; i++) this.#known.own.add(keys[i]);
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
   * import { EmbeddingCache } from "./cache.ts";
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
      for (const key of this.#known.offsets.keys()) if (live.has(key)) keep.push(key);
      const dead = Math.floor((this.#known.parsed - this.#header.length) / size) - keep.length;
      if (dead <= keep.length) return false;
      const offsets = await writeCompacted(
        this.path,
        this.#header,
        this.#file(),
        size,
        keep.map((key): [string, number] => [key, this.#known.offsets.get(key)!]),
      );
      const unreported = this.#known.unreported.filter((key) => offsets.has(key));
      await this.#open();
      // The new file holds exactly these; only what was not reported yet is news to the caller.
      const parsed = this.#header.length + offsets.size * size;
      this.#known = new CacheRecords(parsed, offsets, unreported);
      return true;
    });
  }

  /**
   * Closes the file; later calls reject.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { EmbeddingCache } from "./cache.ts";
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
    return this.#queue = done;
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

  /** (Re)opens the file (created whole, or replaced when its header is not ours); forgets all. */
  async #open(): Promise<void> {
    await this.#handle?.close().catch(() => {});
    this.#handle = undefined;
    const handle = await openCacheFile(this.path, this.#header);
    this.#handle = handle;
    this.#ino = (await handle.stat()).ino;
    this.#known = new CacheRecords(this.#header.length);
  }

  /** Reopens when the path no longer names the open file (rebuilt, compacted or deleted). */
  async #reopenIfReplaced(): Promise<void> {
    const info = await stat(this.path).catch(() => undefined);
    if (info && info.ino === this.#ino && this.#handle) return;
    await this.#open();
  }

  async #read(key: string): Promise<Float32Array | undefined> {
    const at = this.#known.offsets.get(key);
    if (at === undefined) return undefined;
    const size = this.#recordSize;
    const record = new Uint8Array(size);
    const got = await readAt(this.#file(), record, size, at);
    if (got < size || !validRecord(record, new DataView(record.buffer), 0, size)) return undefined;
    return vectorAt(record, 20, this.dimensions);
  }

  /** Parses what was appended since the last parse (see {@linkcode CacheRecords.parse}). */
  async #parse(onEntry: ((key: string, vector: Float32Array) => void) | undefined): Promise<void> {
    await this.#known.parse(this.#file(), this.#recordSize, this.dimensions, onEntry);
  }
}
