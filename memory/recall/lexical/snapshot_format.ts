/**
 * Internal: the binary layout of the lexical index snapshot (see `store/index_cache.ts` for when it
 * is read and written), and the digest that keys it to the notes it was taken of.
 *
 * **File** (little-endian, every section padded to 4 bytes):
 *
 * ```
 * "MEMOLEX\0"  u32 format  u32 total bytes  u32 note count (N)
 * u32 key length, key (UTF-8)
 * u32 number count, per number: u32 name length, name, f64 value (as two u32)
 * u32 array count, per array: u32 name length, name, u32 kind (1: Int32, 2: Uint16), u32 length, data
 * u32 checksum of everything before it
 * ```
 *
 * Any mismatch (magic, format, length, checksum, key, shape) makes the decoder return undefined.
 *
 * @module
 */

import type { Note } from "../../notes/note.ts";
import {
  type Bm25Index,
  LEXICAL_SNAPSHOT_VERSION,
  lexicalOptionsKey,
  type LexicalSnapshot,
} from "./lexical.ts";

/** Version of the file layout (the index layout has its own, in the key). */
const FORMAT = 2;
const MAGIC = [0x4d, 0x45, 0x4d, 0x4f, 0x4c, 0x45, 0x58, 0x00]; // "MEMOLEX\0"
/** Whether this machine is little-endian (the snapshot arrays are used in place only then). */
export const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * A 64-bit digest (16 hex digits) of the ids, titles, bodies and labels of the first `count`
 * notes (all of them by default), in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notesDigest } from "./snapshot_format.ts";
 * const note = { id: "a", title: "t", body: "b", labels: [], hash: "", created: "", updated: "" };
 * assert.notEqual(notesDigest([note]), notesDigest([{ ...note, body: "c" }]));
 * ```
 */
export function notesDigest(notes: readonly Note[], count: number = notes.length): string {
  let a = 0x811c9dc5 | 0;
  let b = 0x2545f491 | 0;
  const mix = (s: string) => {
    const n = s.length;
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const x = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
      a = Math.imul(a ^ x, 0x01000193);
      a = (a << 13) | (a >>> 19);
      b = Math.imul(b ^ x, 0x5bd1e995);
      b = (b << 17) | (b >>> 15);
    }
    const x = (i < n ? s.charCodeAt(i) : 0) ^ (n << 16) ^ (n >>> 16) ^ 0x5a5a;
    a = Math.imul(a ^ x, 0x01000193);
    a = (a << 13) | (a >>> 19);
    b = Math.imul(b ^ x, 0x5bd1e995);
    b = (b << 17) | (b >>> 15);
  };
  count = Math.max(0, Math.min(count, notes.length));
  for (let i = 0; i < count; i++) {
    const note = notes[i];
    mix(note.id);
    mix(note.title);
    mix(note.body);
    mix(String(note.labels.length));
    for (const label of note.labels) mix(label);
  }
  a = Math.imul(a ^ count, 0x01000193);
  b = Math.imul(b ^ count, 0x5bd1e995);
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The key a snapshot of an index with these options, built from notes with this digest, is
 * stored under.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "./lexical.ts";
 * import { snapshotKey } from "./snapshot_format.ts";
 * assert.ok(snapshotKey(createLexicalIndex().options, "00").startsWith("1:"));
 * ```
 */
export function snapshotKey(options: Bm25Index["options"], digest: string): string {
  return `${LEXICAL_SNAPSHOT_VERSION}:${digest}:${lexicalOptionsKey(options)}`;
}

/** Checksum of `words` (four 32-bit lanes folded into one). */
function checksum(words: Int32Array): number {
  let a = 0x9e3779b9 | 0;
  let b = 0x7f4a7c15 | 0;
  let c = 0x85ebca6b | 0;
  let d = 0x27d4eb2f | 0;
  const n = words.length;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a = Math.imul(a ^ words[i], 0x01000193);
    b = Math.imul(b ^ words[i + 1], 0x5bd1e995);
    c = Math.imul(c ^ words[i + 2], 0x01000193);
    d = Math.imul(d ^ words[i + 3], 0x5bd1e995);
  }
  for (; i < n; i++) a = Math.imul(a ^ words[i], 0x01000193);
  a = Math.imul(a ^ (b >>> 15), 0x85ebca6b);
  a = Math.imul(a ^ (c >>> 13), 0xc2b2ae35);
  return (Math.imul(a ^ (d >>> 16), 0x85ebca6b) ^ n) | 0;
}

/** Appends little-endian words and padded byte runs. */
class Writer {
  parts: Uint8Array[] = [];
  length = 0;
  #head: number[] = [];

  u32(v: number): void {
    this.#head.push(v);
  }

  bytes(data: Uint8Array): void {
    this.flushHead();
    this.parts.push(data);
    this.length += data.byteLength;
    const pad = (4 - (data.byteLength & 3)) & 3;
    if (pad) {
      this.parts.push(new Uint8Array(pad));
      this.length += pad;
    }
  }

  text(s: string): void {
    const data = new TextEncoder().encode(s);
    this.u32(data.byteLength);
    this.bytes(data);
  }

  finish(): Uint8Array {
    this.flushHead();
    const out = new Uint8Array(this.length + 4);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.byteLength;
    }
    const words = new Int32Array(out.buffer, 0, this.length >> 2);
    new Int32Array(out.buffer, this.length, 1)[0] = checksum(words);
    return out;
  }

  flushHead(): void {
    if (!this.#head.length) return;
    const words = new Uint32Array(this.#head);
    this.#head = [];
    this.parts.push(new Uint8Array(words.buffer));
    this.length += words.byteLength;
  }
}

/**
 * The bytes of a snapshot file (see the module doc) of an index of `noteCount` notes (by
 * default the snapshot's `docs` number).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeSnapshot, encodeSnapshot } from "./snapshot_format.ts";
 * const snap = { version: 1, options: "", numbers: { n: 3 }, arrays: { a: new Int32Array([7]) } };
 * const decoded = decodeSnapshot(encodeSnapshot("k", snap), "k");
 * assert.equal(decoded?.numbers.n, 3);
 * assert.deepEqual(decoded?.arrays.a, new Int32Array([7]));
 * ```
 */
export function encodeSnapshot(
  key: string,
  snapshot: LexicalSnapshot,
  noteCount: number = snapshot.numbers.docs ?? 0,
): Uint8Array {
  const w = new Writer();
  w.bytes(new Uint8Array(MAGIC));
  w.u32(FORMAT);
  w.u32(0); // total bytes, set below
  w.u32(noteCount);
  w.text(key);
  w.u32(snapshot.version);
  w.text(snapshot.options);
  const numbers = Object.entries(snapshot.numbers);
  w.u32(numbers.length);
  for (const [name, value] of numbers) {
    w.text(name);
    w.bytes(new Uint8Array(new Float64Array([value]).buffer));
  }
  const arrays = Object.entries(snapshot.arrays);
  w.u32(arrays.length);
  for (const [name, data] of arrays) {
    w.text(name);
    w.u32(data instanceof Int32Array ? 1 : 2);
    w.u32(data.length);
    w.bytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  }
  // The total goes into the header before the checksum is taken.
  w.flushHead();
  const total = w.length + 4;
  const header = w.parts[1];
  new Uint32Array(header.buffer, header.byteOffset, 2)[1] = total;
  return w.finish();
}

/**
 * The snapshot in `bytes` when they are a whole, undamaged snapshot file stored under `key`;
 * otherwise undefined. The arrays are views of `bytes` (not copies).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeSnapshot, encodeSnapshot } from "./snapshot_format.ts";
 * assert.equal(decodeSnapshot(new Uint8Array(10), "k"), undefined);
 * const snap = { version: 1, options: "", numbers: { n: 3 }, arrays: {} };
 * assert.equal(decodeSnapshot(encodeSnapshot("k", snap), "other key"), undefined);
 * ```
 */
export function decodeSnapshot(bytes: Uint8Array, key: string): LexicalSnapshot | undefined {
  if (!LITTLE_ENDIAN) return undefined;
  // A plain view (a Node Buffer's slice() and subarray() differ from Uint8Array's), aligned.
  bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteOffset & 3) bytes = bytes.slice();
  const size = bytes.byteLength;
  if (size < 24 || size & 3) return undefined;
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return undefined;
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, size >> 2);
  if (words[2] !== FORMAT || words[3] !== size) return undefined;
  if (checksum(words.subarray(0, words.length - 1)) !== words[words.length - 1]) return undefined;
  const end = words.length - 1; // in words
  let at = 5; // in words (after the note count)
  const u32 = (): number => {
    if (at >= end) throw new RangeError("truncated");
    return words[at++] >>> 0;
  };
  const take = (byteLength: number): Uint8Array => {
    const from = at * 4;
    const padded = (byteLength + 3) & ~3;
    if (from + padded > end * 4) throw new RangeError("truncated");
    at += padded >> 2;
    return bytes.subarray(from, from + byteLength);
  };
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const text = () => decoder.decode(take(u32()));
  try {
    if (text() !== key) return undefined;
    const version = u32();
    const options = text();
    const numbers: Record<string, number> = {};
    for (let i = 0, n = u32(); i < n; i++) {
      const name = text();
      const data = take(8);
      numbers[name] = new DataView(data.buffer, data.byteOffset, 8).getFloat64(0, true);
    }
    const arrays: Record<string, Int32Array | Uint16Array> = {};
    for (let i = 0, n = u32(); i < n; i++) {
      const name = text();
      const kind = u32();
      const length = u32();
      if (kind === 1) {
        const data = take(length * 4);
        arrays[name] = new Int32Array(data.buffer, data.byteOffset, length);
      } else if (kind === 2) {
        const data = take(length * 2);
        arrays[name] = new Uint16Array(data.buffer, data.byteOffset, length);
      } else return undefined;
    }
    if (at !== end) return undefined;
    return { version, options, numbers, arrays };
  } catch {
    return undefined;
  }
}

/**
 * The number of notes (N) the snapshot file `bytes` was taken of, read from its header; undefined
 * when the bytes are not a snapshot file of this format. Nothing past the header is checked
 * (see {@linkcode decodeSnapshot}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeSnapshot, snapshotNoteCount } from "./snapshot_format.ts";
 * assert.equal(snapshotNoteCount(new Uint8Array(10)), undefined);
 * const snap = { version: 1, options: "", numbers: {}, arrays: {} };
 * assert.equal(snapshotNoteCount(encodeSnapshot("k", snap, 4)), 4);
 * ```
 */
export function snapshotNoteCount(bytes: Uint8Array): number | undefined {
  if (!LITTLE_ENDIAN || bytes.byteLength < 24) return undefined;
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 20);
  if (view.getUint32(8, true) !== FORMAT || view.getUint32(12, true) !== bytes.byteLength) {
    return undefined;
  }
  return view.getUint32(16, true);
}

/**
 * The note count (N) and key a snapshot file was written with, read from its first bytes
 * (`head`: at least the header and the key, a few hundred bytes; 4 KB is plenty); undefined when
 * they are not the start of a snapshot file of this format, or too short to hold the key.
 * Nothing past the key is checked (see {@linkcode decodeSnapshot}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeSnapshot, snapshotHeader } from "./snapshot_format.ts";
 * const snap = { version: 1, options: "", numbers: {}, arrays: {} };
 * const bytes = encodeSnapshot("the key", snap, 4);
 * assert.deepEqual(snapshotHeader(bytes.subarray(0, 64)), { noteCount: 4, key: "the key" });
 * assert.equal(snapshotHeader(bytes.subarray(0, 26)), undefined); // the key is cut
 * ```
 */
export function snapshotHeader(head: Uint8Array): { noteCount: number; key: string } | undefined {
  if (!LITTLE_ENDIAN || head.byteLength < 24) return undefined;
  for (let i = 0; i < MAGIC.length; i++) if (head[i] !== MAGIC[i]) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, 24);
  if (view.getUint32(8, true) !== FORMAT) return undefined;
  const keyLength = view.getUint32(20, true);
  if (24 + keyLength > head.byteLength) return undefined;
  try {
    const key = new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(24, 24 + keyLength));
    return { noteCount: view.getUint32(16, true), key };
  } catch {
    return undefined;
  }
}
