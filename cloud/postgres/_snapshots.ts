/**
 * Internal: index snapshots in PostgreSQL (`memo_index_snapshots` and its parts, schema version 3).
 * A snapshot is a project's recall index as of a change sequence, in one format (`snapshotFormat`
 * in `../projects/index_snapshot.ts`), split into parts of 4 MiB.
 *
 * - **Transfer.** The parts move with `COPY … (FORMAT binary)`, raw bytes both ways: a bytea read
 *   as a value comes back hex-encoded, and decoding 100 MB of hex took seconds. Each copy runs on a
 *   connection of its own, opened for it and closed after it, so that a copy left half-read can
 *   never stall the pool's connections.
 * - **One writer at a time.** A write runs in one transaction that first takes the project's
 *   advisory lock without waiting (`pg_try_advisory_xact_lock`): an instance that does not get it
 *   leaves the write to the one that has it. Inside, a snapshot is written only when none of the
 *   same format covers as many changes; the older ones of the format (and those of other formats
 *   older than a day: another build's, during a rolling upgrade) are deleted in the same
 *   transaction, so one valid snapshot per format is left.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Sql } from "postgres";

/** Bytes per part row. */
export const SNAPSHOT_PART_BYTES = 4 * 1024 * 1024;

/**
 * The advisory lock namespace of snapshot writes ("mems"); the second key is the pid (modulo 2³¹ −
 * 1: two projects that share a key only take turns).
 */
export const SNAPSHOT_LOCK = 0x6d656d73;

/** How long one copy may take before its connection is closed, in ms. */
const COPY_TIMEOUT_MS = 120_000;

const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];

/**
 * Reads the stream of `COPY (SELECT data …) TO STDOUT (FORMAT binary)`, one bytea column, into one
 * buffer of the expected size, part after part, without a copy of the whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CopyBinaryReader, copyBinaryRows } from "./_snapshots.ts";
 *
 * const stream = copyBinaryRows([[new Uint8Array([1, 2])], [new Uint8Array([3])]]);
 * const reader = new CopyBinaryReader(3);
 * for (let i = 0; i < stream.length; i += 5) reader.push(stream.subarray(i, i + 5)); // any cut
 * assert.deepEqual(reader.finish(), new Uint8Array([1, 2, 3]));
 * ```
 */
export class CopyBinaryReader {
  readonly #out: Uint8Array;
  #at = 0;
  /** Bytes of a header or a field prefix cut by a chunk boundary. */
  #pending = new Uint8Array(0);
  /** What the next bytes are. */
  #state: "header" | "extension" | "fields" | "length" | "data" | "done" = "header";
  #left = 0;

  /** A reader for a column of `expected` bytes in all. */
  constructor(expected: number) {
    this.#out = new Uint8Array(expected);
  }

  /** Takes the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.#state === "data") {
        const n = Math.min(this.#left, chunk.length - i);
        if (this.#at + n > this.#out.length) throw new Error("more bytes than expected");
        this.#out.set(chunk.subarray(i, i + n), this.#at);
        this.#at += n;
        i += n;
        this.#left -= n;
        if (this.#left === 0) this.#state = "fields";
        continue;
      }
      if (this.#state === "done") throw new Error("bytes after the trailer");
      const need = this.#state === "header"
        ? 19
        : this.#state === "extension"
        ? this.#left
        : this.#state === "fields"
        ? 2
        : 4;
      const take = Math.min(need - this.#pending.length, chunk.length - i);
      const joined = new Uint8Array(this.#pending.length + take);
      joined.set(this.#pending);
      joined.set(chunk.subarray(i, i + take), this.#pending.length);
      i += take;
      if (joined.length < need) {
        this.#pending = joined;
        continue;
      }
      this.#pending = new Uint8Array(0);
      const view = new DataView(joined.buffer);
      if (this.#state === "header") {
        if (!SIGNATURE.every((b, k) => joined[k] === b)) throw new Error("not a binary copy");
        this.#left = view.getInt32(15);
        this.#state = this.#left > 0 ? "extension" : "fields";
      } else if (this.#state === "extension") {
        this.#state = "fields";
      } else if (this.#state === "fields") {
        const fields = view.getInt16(0);
        if (fields === -1) this.#state = "done";
        else if (fields !== 1) throw new Error(`${fields} columns, not 1`);
        else this.#state = "length";
      } else {
        const length = view.getInt32(0);
        if (length < 0) throw new Error("a null part");
        this.#left = length;
        this.#state = length > 0 ? "data" : "fields";
      }
    }
  }

  /** The bytes read; throws unless the stream ended, with exactly the expected bytes. */
  finish(): Uint8Array {
    if (this.#state !== "done" || this.#at !== this.#out.length) {
      throw new Error(`the copy ended at ${this.#at} of ${this.#out.length} bytes`);
    }
    return this.#out;
  }
}

/**
 * The stream of a binary `COPY … FROM STDIN` of `rows` (each a list of fields, already in
 * PostgreSQL's binary form), as one buffer. For tests and examples; {@linkcode writeSnapshot}
 * streams its rows instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { copyBinaryRows } from "./_snapshots.ts";
 *
 * const bytes = copyBinaryRows([]);
 * assert.equal(bytes.length, 19 + 2); // header and trailer only
 * ```
 */
export function copyBinaryRows(rows: readonly (readonly Uint8Array[])[]): Uint8Array {
  const parts: Uint8Array[] = [copyHeader()];
  for (const row of rows) parts.push(...copyTuple(row));
  parts.push(new Uint8Array([0xff, 0xff]));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function copyHeader(): Uint8Array {
  const header = new Uint8Array(19);
  header.set(SIGNATURE);
  return header; // flags 0, no extension
}

/** A tuple of a binary copy: field count, then each field's length and bytes. */
function copyTuple(fields: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  const head = new DataView(new ArrayBuffer(2));
  head.setInt16(0, fields.length);
  out.push(new Uint8Array(head.buffer));
  for (const field of fields) {
    const length = new DataView(new ArrayBuffer(4));
    length.setInt32(0, field.length);
    out.push(new Uint8Array(length.buffer), field);
  }
  return out;
}

function int8(value: number): Uint8Array {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigInt64(0, BigInt(value));
  return new Uint8Array(view.buffer);
}

function int4(value: number): Uint8Array {
  const view = new DataView(new ArrayBuffer(4));
  view.setInt32(0, value);
  return new Uint8Array(view.buffer);
}

/** A quoted SQL string literal (COPY takes no parameters). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The header of the newest snapshot of a project in a format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotHeader } from "./_snapshots.ts";
 *
 * const header: SnapshotHeader = { seq: 42, notes: 3, bytes: 1024, parts: 1 };
 * assert.equal(header.parts, 1);
 * ```
 */
export interface SnapshotHeader {
  /** The change sequence it covers. */
  seq: number;
  /** Notes in it. */
  notes: number;
  /** Its size. */
  bytes: number;
  /** Its part rows. */
  parts: number;
}

/**
 * The newest snapshot of project `pid` in `format`, or undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { latestSnapshot } from "./_snapshots.ts";
 *
 * assert.equal(typeof latestSnapshot, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function latestSnapshot(
  sql: Sql,
  pid: number,
  format: string,
): Promise<SnapshotHeader | undefined> {
  const [row] = await sql<{ seq: string; notes: number; bytes: string; parts: number }[]>`
    SELECT seq, notes, bytes, parts FROM memo_index_snapshots
    WHERE pid = ${pid} AND format = ${format}
    ORDER BY seq DESC LIMIT 1`;
  return row
    ? { seq: Number(row.seq), notes: row.notes, bytes: Number(row.bytes), parts: row.parts }
    : undefined;
}

/** Settles with `work`, or closes `connection` and rejects after `ms`. */
async function bounded<T>(connection: Sql, work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      connection.end({ timeout: 0 }).catch(() => {});
      reject(new Error(`Cannot copy the index snapshot: it took more than ${ms / 1000} s`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The bytes of snapshot `header` of project `pid` in `format`, read with a binary copy on the
 * connection `open()` gives (closed afterwards).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readSnapshot } from "./_snapshots.ts";
 *
 * assert.equal(typeof readSnapshot, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function readSnapshot(
  open: () => Sql,
  pid: number,
  format: string,
  header: SnapshotHeader,
): Promise<Uint8Array> {
  const connection = open();
  try {
    return await bounded(
      connection,
      (async () => {
        const stream = await connection.unsafe(
          `COPY (SELECT data FROM memo_index_snapshot_parts WHERE pid = ${pid} AND format = ${
            literal(format)
          } AND seq = ${header.seq} ORDER BY part) TO STDOUT (FORMAT binary)`,
        ).readable();
        const reader = new CopyBinaryReader(header.bytes);
        for await (const chunk of stream) reader.push(chunk as Uint8Array);
        return reader.finish();
      })(),
      COPY_TIMEOUT_MS,
    );
  } finally {
    connection.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * What {@linkcode writeSnapshot} did: `written`, `busy` (another instance holds the project's lock)
 * or `stale` (a snapshot covering as many changes is there already).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SnapshotWrite } from "./_snapshots.ts";
 *
 * const outcome: SnapshotWrite = "busy";
 * assert.equal(outcome, "busy");
 * ```
 */
export type SnapshotWrite = "written" | "busy" | "stale";

/**
 * Writes a snapshot of project `pid` covering `seq` (see the module doc), on the connection
 * `open()` gives (closed afterwards).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeSnapshot } from "./_snapshots.ts";
 *
 * assert.equal(typeof writeSnapshot, "function"); // see tests/cloud_scale_test.ts
 * ```
 */
export async function writeSnapshot(
  open: () => Sql,
  snapshot: {
    pid: number;
    format: string;
    seq: number;
    notes: number;
    bytes: Uint8Array;
    /** The seq of a snapshot of the format found damaged: replaced even at the same seq. */
    damaged?: number;
  },
): Promise<SnapshotWrite> {
  const { pid, format, seq, notes, bytes, damaged } = snapshot;
  const connection = open();
  try {
    return await bounded(
      connection,
      connection.begin(async (tx): Promise<SnapshotWrite> => {
        const [{ locked }] = await tx<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${SNAPSHOT_LOCK}::int4, (${pid} % 2147483647)::int4)
            AS locked`;
        if (!locked) return "busy";
        const [{ newest }] = await tx<{ newest: string | null }[]>`
          SELECT max(seq) AS newest FROM memo_index_snapshots
          WHERE pid = ${pid} AND format = ${format}`;
        const covered = newest === null ? -1 : Number(newest);
        if (covered > seq || (covered === seq && covered !== damaged)) return "stale";
        await tx`
          DELETE FROM memo_index_snapshots
          WHERE pid = ${pid} AND (format = ${format} OR created_at < now() - interval '1 day')`;
        const parts = Math.max(1, Math.ceil(bytes.length / SNAPSHOT_PART_BYTES));
        await tx`
          INSERT INTO memo_index_snapshots (pid, format, seq, notes, bytes, parts)
          VALUES (${pid}, ${format}, ${seq}, ${notes}, ${bytes.length}, ${parts})`;
        const sink = await tx.unsafe(
          "COPY memo_index_snapshot_parts (pid, format, seq, part, data) FROM STDIN (FORMAT binary)",
        ).writable();
        await new Promise<void>((resolve, reject) => {
          sink.on("error", reject);
          sink.on("finish", resolve);
          const write = (b: Uint8Array) =>
            sink.write(Buffer.from(b.buffer, b.byteOffset, b.length));
          write(copyHeader());
          const fixed = [int8(pid), new TextEncoder().encode(format), int8(seq)];
          for (let part = 0; part < parts; part++) {
            const data = bytes.subarray(
              part * SNAPSHOT_PART_BYTES,
              (part + 1) * SNAPSHOT_PART_BYTES,
            );
            for (const piece of copyTuple([...fixed, int4(part), data])) write(piece);
          }
          sink.end(Buffer.from([0xff, 0xff]));
        });
        return "written";
      }),
      COPY_TIMEOUT_MS,
    );
  } finally {
    connection.end({ timeout: 1 }).catch(() => {});
  }
}
