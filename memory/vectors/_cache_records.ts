/**
 * Internal: what one `EmbeddingCache` instance knows of its file, and the parse that teaches it.
 *
 * Only key → record offset is held in memory; `read` fetches a vector with a positional read.
 * A parse reads what was appended since the last parse, from any process. A record whose marker
 * or CRC is wrong (a torn write, a flipped byte) is skipped: parsing resyncs at the next marker
 * whose record checks out. The file is never truncated: a torn tail left by a process killed
 * mid-write may already have another process's records after it, so it stays as dead bytes (the
 * next compaction drops it). Fewer bytes than a record at the end are a write in progress and are
 * parsed next time.
 *
 * @module
 */

import type { FileHandle } from "node:fs/promises";
import { keyText, scanRecords, vectorAt } from "./cache_format.ts";
import { readAt } from "./_cache_file.ts";

/** Bytes read per step while parsing. */
const CHUNK_BYTES = 4 << 20;

/**
 * The records one instance knows: parsed from the file, or put by the instance itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { open } from "node:fs/promises";
 * import { encodeHeader, encodeRecords, recordBytes } from "./cache_format.ts";
 * import { CacheRecords } from "./_cache_records.ts";
 * const dir = await Deno.makeTempDir();
 * const header = encodeHeader("m", 1);
 * const key = "a".repeat(32);
 * const { batch } = encodeRecords([{ key, vector: new Float32Array([0.5]) }], 1);
 * await Deno.writeFile(`${dir}/m.vec`, new Uint8Array([...header, ...batch]));
 * const handle = await open(`${dir}/m.vec`);
 * const known = new CacheRecords(header.length);
 * const seen: [string, number][] = [];
 * await known.parse(handle, recordBytes(1), 1, (k, vector) => seen.push([k, vector[0]]));
 * assert.deepEqual(seen, [[key, 0.5]]);
 * assert.equal(known.has(key), true);
 * assert.equal(known.offsets.get(key), header.length);
 * await handle.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class CacheRecords {
  /** Parsed up to here. */
  parsed: number;
  /** Key → offset of its (first valid) record. */
  offsets: Map<string, number>;
  /** Keys this instance put whose records it has not parsed yet. */
  own: Set<string> = new Set();
  /** Keys parsed by a `put` that `refresh` has not reported yet. */
  unreported: string[];
  /** Valid records parsed (duplicates included). */
  records: number;

  /** Knows the records of `offsets`, parsed up to `parsed`; `unreported` are not reported yet. */
  constructor(parsed: number, offsets = new Map<string, number>(), unreported: string[] = []) {
    this.parsed = parsed;
    this.offsets = offsets;
    this.unreported = unreported;
    this.records = offsets.size;
  }

  /** Number of distinct keys known. */
  get size(): number {
    return this.offsets.size + this.own.size;
  }

  /** Whether a record of `key` is known. */
  has(key: string): boolean {
    return this.offsets.has(key) || this.own.has(key);
  }

  /**
   * Parses `handle` (records of `size` bytes, vectors of `dimensions`) from `parsed` to the end
   * of the file. New keys go to `onEntry` when given, else (a `put` parsing its own write) to
   * `unreported`, except the keys this instance put.
   */
  async parse(
    handle: FileHandle,
    size: number,
    dimensions: number,
    onEntry: ((key: string, vector: Float32Array) => void) | undefined,
  ): Promise<void> {
    let buffer = new Uint8Array(0);
    let view = new DataView(buffer.buffer);
    for (;;) {
      // Sized to what is there (a put parses one batch), at most a chunk, at least two records.
      const remaining = (await handle.stat()).size - this.parsed;
      if (remaining < size) return;
      const want = Math.max(Math.min(remaining, CHUNK_BYTES), 2 * size);
      if (buffer.length < want) {
        buffer = new Uint8Array(want);
        view = new DataView(buffer.buffer);
      }
      const got = await readAt(handle, buffer, want, this.parsed);
      if (got < size) return;
      const bytes = buffer;
      const i = scanRecords(bytes, view, got, size, (at) => {
        const key = keyText(bytes, at + 4);
        const offset = this.parsed + at;
        this.records++;
        if (!this.offsets.has(key)) {
          this.offsets.set(key, offset);
          if (this.own.delete(key)) {
            // Put by this instance: the caller has it already.
          } else if (onEntry) onEntry(key, vectorAt(bytes, at + 20, dimensions));
          else this.unreported.push(key);
        }
      });
      this.parsed += i;
      if (got < want || i === 0) return; // read to the end of the file (what is left: a write in progress)
    }
  }
}
