/**
 * What a `notes.md` that git's text merge left with conflict markers holds: the merge of its two
 * sides by {@linkcode mergeNotesFiles}, three-way when a base is known (the file's own `|||||||`
 * parts, else the base given, such as git's index stage 1), two-way otherwise. Reads of a
 * conflicted file return this, computed in memory, and `memo resolve` writes it.
 *
 * @module
 */

import { type ConflictScanOptions, splitConflict } from "../store/conflict_markers.ts";
import { mergeNotesFiles, type NotesFileMerge } from "./merge_file.ts";

/**
 * What {@linkcode mergeConflictedNotes} returns: the merge, how many hunks the file held, and
 * where the base came from.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConflictedNotesMerge, mergeConflictedNotes } from "@memo/memory";
 * const merged: ConflictedNotesMerge | undefined = mergeConflictedNotes("# Memory\n");
 * assert.equal(merged, undefined); // no markers
 * ```
 */
export type ConflictedNotesMerge = NotesFileMerge & {
  /** The conflict hunks the file held. */
  hunks: number;
  /** `file` (diff3 markers), `given` (the caller's base) or `none` (a two-way merge). */
  base: "file" | "given" | "none";
};

/**
 * Merges the sides of a conflicted `notes.md` text; `undefined` when it holds no full run of
 * conflict markers. Pure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeConflictedNotes, NOTES_PREAMBLE, serializeNote } from "@memo/memory";
 * const note = (id: string, body: string) => serializeNote({
 *   id, title: body, body, labels: [], hash: "0123abcd",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * });
 * const text = NOTES_PREAMBLE + "<<<<<<< HEAD\n" + note("n2", "bob says kafka") + "=======\n" +
 *   note("n3", "alice says redis") + ">>>>>>> alice\n";
 * const merged = mergeConflictedNotes(text);
 * assert.ok(merged?.ok);
 * assert.equal(merged.text, NOTES_PREAMBLE + note("n2", "bob says kafka") + note("n3", "alice says redis"));
 * assert.equal(merged.base, "none");
 * ```
 */
export function mergeConflictedNotes(
  text: string,
  base?: string,
  scan?: ConflictScanOptions,
): ConflictedNotesMerge | undefined {
  const sides = splitConflict(text, scan);
  if (!sides) return undefined;
  const from = sides.base !== undefined ? "file" : base !== undefined ? "given" : "none";
  const merged = mergeNotesFiles({
    base: sides.base ?? base ?? "",
    ours: sides.ours,
    theirs: sides.theirs,
  });
  return { ...merged, hunks: sides.hunks, base: from };
}
