/**
 * Internal: the change journal of a file-store project, `changes.jsonl` beside its `notes.md`.
 * One JSON line per change, in `seq` order:
 *
 * - `{"seq":7,"op":"upsert","id":"…","hash":"…","digest":"…","created":"…","updated":"…",
 *   "source":"…"}`: the note as of that change is the one in `notes.md` with this marker hash,
 *   this digest of its title, body and labels (`contentHash`, computed from the text: a hand
 *   edit of the text keeps the marker's hash), these times and source (the text itself lives
 *   in `notes.md` only);
 * - `{"seq":8,"op":"delete","id":"…"}`: a tombstone.
 *
 * Appends are one write and one `datasync`. A torn last line (a crash mid-append) is cut when
 * the journal is read; a damaged line elsewhere is skipped. Compaction rewrites the file
 * atomically (temp file, fsync, rename) with only the latest entry of each id.
 *
 * @module
 */

import { mkdir, open, readFile, rename, truncate, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { contentHash, type Note } from "@memo/memory";

/**
 * One journal line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { JournalEntry } from "./_journal.ts";
 *
 * const entry: JournalEntry = { seq: 2, op: "delete", id: "n1" };
 * assert.equal(entry.op, "delete");
 * ```
 */
export type JournalEntry =
  | {
    seq: number;
    op: "upsert";
    id: string;
    hash: string;
    digest: string;
    created: string;
    updated: string;
    source?: string;
  }
  | { seq: number; op: "delete"; id: string };

/**
 * What a note looks like to the journal (marker hash, text digest, source, times): a note is
 * journaled again when this differs from its last entry's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteSignature } from "./_journal.ts";
 *
 * const note = { hash: "h", digest: "d", created: "c", updated: "u" };
 * assert.notEqual(noteSignature(note), noteSignature({ ...note, digest: "e" }));
 * ```
 */
export function noteSignature(
  note: { hash: string; digest: string; created: string; updated: string; source?: string },
): string {
  return `${note.hash}\n${note.digest}\n${note.source ?? ""}\n${note.created}\n${note.updated}`;
}

/**
 * The digest of a note's title, body and labels, as stored in its entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * import { noteDigest } from "./_journal.ts";
 *
 * const note = { id: "n1", title: "t", body: "b", labels: [], hash: "h", created: "c", updated: "u" };
 * assert.equal(noteDigest(note), contentHash(note));
 * ```
 */
export function noteDigest(note: Note): string {
  return contentHash(note);
}

/**
 * The journal entry recording `note` at `seq`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { upsertEntry } from "./_journal.ts";
 *
 * const note = { id: "n1", title: "t", body: "b", labels: [], hash: "h", created: "c", updated: "u" };
 * assert.deepEqual(upsertEntry(3, note, "d"), {
 *   seq: 3, op: "upsert", id: "n1", hash: "h", digest: "d", created: "c", updated: "u",
 * });
 * ```
 */
export function upsertEntry(seq: number, note: Note, digest: string): JournalEntry {
  const entry: JournalEntry = {
    seq,
    op: "upsert",
    id: note.id,
    hash: note.hash,
    digest,
    created: note.created,
    updated: note.updated,
  };
  if (note.source !== undefined) entry.source = note.source;
  return entry;
}

/**
 * Reads a journal; a missing file is empty. Cuts a torn last line off the file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { appendJournal, readJournal } from "./_journal.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "p", "changes.jsonl");
 * assert.deepEqual(await readJournal(path), []);
 * await appendJournal(path, [{ seq: 1, op: "delete", id: "n1" }]);
 * await Deno.writeTextFile(path, '{"seq":2,"op":"del', { append: true }); // a torn append
 * assert.deepEqual(await readJournal(path), [{ seq: 1, op: "delete", id: "n1" }]);
 * assert.equal(await Deno.readTextFile(path), '{"seq":1,"op":"delete","id":"n1"}\n');
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readJournal(path: string): Promise<JournalEntry[]> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  const end = bytes.lastIndexOf(10) + 1;
  if (end < bytes.length) await truncate(path, end);
  const text = new TextDecoder().decode(bytes.subarray(0, end));
  const entries: JournalEntry[] = [];
  let last = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const entry = parseEntry(line);
    // Entries only move forward; a damaged or out-of-order line is skipped.
    if (entry && entry.seq > last) {
      entries.push(entry);
      last = entry.seq;
    }
  }
  return entries;
}

/**
 * Appends entries (one write, one `datasync`), creating the folder and file when missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { appendJournal, readJournal } from "./_journal.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "changes.jsonl");
 * await appendJournal(path, [{ seq: 1, op: "delete", id: "a" }, { seq: 2, op: "delete", id: "b" }]);
 * assert.equal((await readJournal(path)).length, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function appendJournal(path: string, entries: readonly JournalEntry[]): Promise<void> {
  if (!entries.length) return;
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, "a");
  try {
    await file.write(encode(entries));
    await file.datasync();
  } finally {
    await file.close();
  }
}

/**
 * Replaces the journal with `entries`, atomically.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { appendJournal, readJournal, rewriteJournal } from "./_journal.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const path = join(dir, "changes.jsonl");
 * await appendJournal(path, [{ seq: 1, op: "delete", id: "a" }, { seq: 2, op: "delete", id: "a" }]);
 * await rewriteJournal(path, [{ seq: 2, op: "delete", id: "a" }]);
 * assert.deepEqual(await readJournal(path), [{ seq: 2, op: "delete", id: "a" }]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function rewriteJournal(
  path: string,
  entries: readonly JournalEntry[],
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = await open(temp, "w");
  try {
    await file.write(encode(entries));
    await file.sync();
  } catch (e) {
    await file.close();
    await unlink(temp).catch(() => {});
    throw e;
  }
  await file.close();
  try {
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => {});
    throw e;
  }
}

function encode(entries: readonly JournalEntry[]): Uint8Array {
  let text = "";
  for (const entry of entries) text += JSON.stringify(entry) + "\n";
  return new TextEncoder().encode(text);
}

function parseEntry(line: string): JournalEntry | undefined {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== "object") return undefined;
  const { seq, op, id } = v;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1 || typeof id !== "string" || !id) {
    return undefined;
  }
  if (op === "delete") return { seq: seq as number, op, id };
  if (
    op !== "upsert" || typeof v.hash !== "string" || typeof v.digest !== "string" ||
    typeof v.created !== "string" ||
    typeof v.updated !== "string" || (v.source !== undefined && typeof v.source !== "string")
  ) return undefined;
  const entry: JournalEntry = {
    seq: seq as number,
    op,
    id,
    hash: v.hash,
    digest: v.digest,
    created: v.created,
    updated: v.updated,
  };
  if (typeof v.source === "string") entry.source = v.source;
  return entry;
}
