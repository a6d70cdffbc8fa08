/**
 * Internal: what `FileMemoryStore.applyReplica` writes: the changes checked (whole notes with
 * matching hashes, each id once), the ids whose expected hash no longer holds, and the notes to
 * append, replace and drop. Pure: no file access.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import { contentHash, type Note, NOTE_ID_PATTERN, sameNote } from "../notes/note.ts";
import { prepareHistory } from "../history/validity.ts";
import type { ReplicaChanges } from "./store.ts";
import type { NotesSection } from "./parse.ts";
import type { NoteTable } from "./_note_table.ts";

/** Validates what `applyReplica` got: whole notes with matching hashes, each id once. */
export function checkReplicaChanges(changes: ReplicaChanges): { put: Note[]; remove: string[] } {
  const fail = (reason: string) =>
    new MemoryValidationError(`Cannot apply the replica changes: ${reason}`);
  if (!changes || !Array.isArray(changes.put) || !Array.isArray(changes.remove)) {
    throw fail("put and remove must be lists");
  }
  const seen = new Set<string>();
  for (const note of changes.put) {
    const ok = note && typeof note.id === "string" && NOTE_ID_PATTERN.test(note.id) &&
      typeof note.title === "string" && typeof note.body === "string" && note.body.trim() !== "" &&
      Array.isArray(note.labels) && note.labels.every((l: unknown) => typeof l === "string") &&
      (note.source === undefined || typeof note.source === "string") &&
      typeof note.created === "string" && typeof note.updated === "string";
    if (!ok) throw fail(`note ${JSON.stringify(String(note?.id).slice(0, 64))} is not a note`);
    try {
      prepareHistory(note, "apply the replica changes");
    } catch (e) {
      throw fail(`note ${note.id}: ${(e as Error).message.replace(/^Cannot [^:]*: /, "")}`);
    }
    if (note.hash !== contentHash(note)) {
      throw fail(`note ${note.id} has a hash that does not match its content`);
    }
    if (seen.has(note.id)) throw fail(`note ${note.id} is given twice`);
    seen.add(note.id);
  }
  for (const id of changes.remove) {
    if (typeof id !== "string") throw fail("remove must hold ids");
    if (seen.has(id)) throw fail(`note ${id} is both put and removed`);
  }
  // `supersededBy` is derived when notes are read: it is never stored.
  const put = changes.put.map((note) => {
    if (note.supersededBy === undefined) return note;
    const { supersededBy: _derived, ...stored } = note;
    return stored;
  });
  return { put, remove: [...new Set(changes.remove)] };
}

/** The ids of `expect` whose note's hash (null: no note) is not the one expected. */
export function staleIds(table: NoteTable, expect: ReplicaChanges["expect"]): string[] {
  return Object.entries(expect ?? {})
    .filter(([id, hash]) => (table.get(id)?.hash ?? null) !== hash)
    .map(([id]) => id);
}

/** The notes of `put` to append or to replace (unchanged ones left out), and the sections to drop. */
export function planReplica(
  table: NoteTable,
  put: readonly Note[],
  remove: readonly string[],
): { added: Note[]; replace: Map<NotesSection, Note>; drop: Set<NotesSection> } {
  const added: Note[] = [];
  const replace = new Map<NotesSection, Note>();
  const drop = new Set<NotesSection>();
  for (const note of put) {
    const section = table.section(note.id);
    if (!section?.note) added.push(note);
    else if (!sameNote(section.note, note)) replace.set(section, note);
  }
  for (const id of remove) {
    const section = table.section(id);
    if (section?.note) drop.add(section);
  }
  return { added, replace, drop };
}
