/**
 * Internal: the layout of an embedding cache file, `.memo/cache/embeddings/<slug>.vec` (one per
 * model; `cache.ts` reads and writes it), and the encoding and decoding of its bytes.
 *
 * Little-endian throughout. A header, then fixed-size records:
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
 * @module
 */

import { join } from "node:path";
import { createHash } from "node:crypto";
import * as zlib from "node:zlib";
import { MemoryValidationError } from "../errors.ts";
import { memoPaths } from "../store/paths.ts";

const MAX_MODEL_BYTES = 4096;

const MAGIC = new TextEncoder().encode("memo-vec");
const VERSION = 1;
const MARKER = 0x636576f0; // bytes F0 'v' 'e' 'c', read little-endian
const KEY_BYTES = 16;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * CRC-32 (IEEE) of `bytes`: `node:zlib`'s where it has one (Node ≥ 20.15, Deno), else a table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { crc32 } from "./cache_format.ts";
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
 * import { modelSlug } from "./cache_format.ts";
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
 * import { embeddingCachePath, modelSlug } from "./cache_format.ts";
 * assert.equal(embeddingCachePath("/p", "use-lite"), `/p/.memo/cache/embeddings/${modelSlug("use-lite")}.vec`);
 * ```
 */
export function embeddingCachePath(rootDir: string, model: string): string {
  return embeddingCacheFile(memoPaths(rootDir).cache, model);
}

/**
 * Path of a model's cache file in a scope's cache folder (`.memo/cache/` for the project,
 * `.memo/cache/local/` for local notes, `$MEMO_HOME/cache/` for the user's).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { embeddingCacheFile, modelSlug } from "./cache_format.ts";
 * assert.equal(embeddingCacheFile("/h/cache", "use-lite"), `/h/cache/embeddings/${modelSlug("use-lite")}.vec`);
 * ```
 */
export function embeddingCacheFile(cacheDir: string, model: string): string {
  return join(cacheDir, "embeddings", `${modelSlug(model)}.vec`);
}

/**
 * The header of a cache file for `model` and `dimensions`. Throws `MemoryValidationError` for
 * dimensions that are not an integer from 1 to 65536, or a model name over 4096 bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeHeader } from "./cache_format.ts";
 * const header = encodeHeader("use-lite", 512);
 * assert.equal(new TextDecoder().decode(header.subarray(0, 8)), "memo-vec");
 * assert.equal(header.length, 24 + "use-lite".length);
 * assert.throws(() => encodeHeader("use-lite", 0), { name: "MemoryValidationError" });
 * ```
 */
export function encodeHeader(model: string, dimensions: number): Uint8Array {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 1 << 16) {
    throw new MemoryValidationError(
      `Cannot open embedding cache: dimensions must be a positive integer up to 65536, got ${dimensions}`,
    );
  }
  const name = new TextEncoder().encode(model);
  if (name.length > MAX_MODEL_BYTES) {
    throw new MemoryValidationError(
      `Cannot open embedding cache: the model name is longer than ${MAX_MODEL_BYTES} bytes`,
    );
  }
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

/**
 * Bytes of one record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordBytes } from "./cache_format.ts";
 * assert.equal(recordBytes(512), 4 + 16 + 4 * 512 + 4);
 * ```
 */
export function recordBytes(dimensions: number): number {
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

/**
 * The key of the record at `at` of `bytes` (`at` is where its 16 key bytes start), as 32
 * lowercase hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyText } from "./cache_format.ts";
 * assert.equal(keyText(new Uint8Array(17).fill(0xab), 1), "ab".repeat(16));
 * ```
 */
export function keyText(bytes: Uint8Array, at: number): string {
  let key = "";
  for (let i = 0; i < KEY_BYTES; i++) key += HEX[bytes[at + i]];
  return key;
}

/**
 * A copy of the float32 vector at `at` of `bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { vectorAt } from "./cache_format.ts";
 * const bytes = new Uint8Array(new Float32Array([0, 0.5, 1]).buffer);
 * assert.deepEqual(vectorAt(bytes, 4, 2), new Float32Array([0.5, 1]));
 * ```
 */
export function vectorAt(bytes: Uint8Array, at: number, dimensions: number): Float32Array {
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

/**
 * Whether `bytes[at .. at + size)` is a whole record (marker and CRC).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRecords, validRecord } from "./cache_format.ts";
 * const { batch } = encodeRecords([{ key: "a".repeat(32), vector: new Float32Array([1]) }], 1);
 * const view = new DataView(batch.buffer);
 * assert.equal(validRecord(batch, view, 0, batch.length), true);
 * batch[10] ^= 1; // a flipped bit
 * assert.equal(validRecord(batch, view, 0, batch.length), false);
 * ```
 */
export function validRecord(bytes: Uint8Array, view: DataView, at: number, size: number): boolean {
  return view.getUint32(at, true) === MARKER &&
    crc32(bytes.subarray(at, at + size - 4)) === view.getUint32(at + size - 4, true);
}

/**
 * One vector to store under its key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { EmbeddingCacheEntry } from "./cache_format.ts";
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

/**
 * The records of `entries`, in order, each key once (its first entry), as one batch to append.
 * Throws `MemoryValidationError` for a vector that is not a `Float32Array` of `dimensions`, or a
 * key that is not 32 lowercase hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRecords, recordBytes } from "./cache_format.ts";
 * const key = "0123456789abcdef0123456789abcdef";
 * const vector = new Float32Array([0.6, 0.8]);
 * const { batch, keys } = encodeRecords([{ key, vector }, { key, vector }], 2);
 * assert.deepEqual(keys, [key]);
 * assert.equal(batch.length, 2 * recordBytes(2)); // sized for both; the first record is the batch
 * assert.throws(() => encodeRecords([{ key: "xyz", vector }], 2), /the key must be 32 lowercase hex digits/);
 * ```
 */
export function encodeRecords(
  entries: readonly EmbeddingCacheEntry[],
  dimensions: number,
): { batch: Uint8Array; keys: string[] } {
  const size = recordBytes(dimensions);
  const batch = new Uint8Array(entries.length * size);
  const view = new DataView(batch.buffer);
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const { key, vector } of entries) {
    if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
      const got = vector instanceof Float32Array ? vector.length : typeof vector;
      throw new MemoryValidationError(
        `Cannot cache embedding: expected ${dimensions} dimensions, got ${got}`,
      );
    }
    const at = keys.length * size;
    if (typeof key !== "string" || !keyBytes(key, batch, at + 4)) {
      throw new MemoryValidationError(
        "Cannot cache embedding: the key must be 32 lowercase hex digits",
      );
    }
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push(key);
    view.setUint32(at, MARKER, true);
    for (let i = 0; i < vector.length; i++) view.setFloat32(at + 20 + 4 * i, vector[i], true);
    view.setUint32(at + size - 4, crc32(batch.subarray(at, at + size - 4)), true);
  }
  return { batch, keys };
}

/**
 * Walks the records of `bytes[0 .. got)` (records of `size` bytes) and calls `onRecord` with the
 * offset of each whole one. A damaged record (a torn write, a flipped byte) is skipped: the walk
 * resyncs at the next marker. Returns how far it got; fewer bytes than a record at the end are a
 * write in progress and are left for the next walk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeRecords, keyText, scanRecords } from "./cache_format.ts";
 * const keys = ["a".repeat(32), "b".repeat(32)];
 * const { batch } = encodeRecords(keys.map((key) => ({ key, vector: new Float32Array([1]) })), 1);
 * const size = batch.length / 2;
 * batch[size - 1] ^= 1; // damage the first record's CRC
 * const seen: string[] = [];
 * const end = scanRecords(batch, new DataView(batch.buffer), batch.length, size, (at) => seen.push(keyText(batch, at + 4)));
 * assert.deepEqual(seen, [keys[1]]);
 * assert.equal(end, batch.length);
 * ```
 */
export function scanRecords(
  bytes: Uint8Array,
  view: DataView,
  got: number,
  size: number,
  onRecord: (at: number) => void,
): number {
  let i = 0;
  while (i + size <= got) {
    if (validRecord(bytes, view, i, size)) {
      onRecord(i);
      i += size;
      continue;
    }
    // Damaged bytes: resync at the next marker.
    let next = i + 1;
    while (next + 4 <= got && view.getUint32(next, true) !== MARKER) next++;
    i = next + 4 <= got ? next : got - 3;
  }
  return i;
}
