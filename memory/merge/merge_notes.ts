/**
 * The merge of three versions of a project's notes (base, ours, theirs), note by note, by the
 * rule the hybrid runtime applies to a conflict (`conflict.ts`):
 *
 * - a note added on one side is kept; one note added on both sides (the same id, the same source
 *   key, or the same normalised text without a source key) is kept once: twins under two ids keep
 *   the smaller id and the content of the later `updated`, with no conflict copy;
 * - a note edited on one side takes the edit; edited on both sides, the later `updated` wins (tie:
 *   the larger content hash) and the loser becomes a conflict copy; two versions that differ only
 *   in `validUntil` keep the earlier, with no copy;
 * - an edit wins over a forget; a note forgotten on both sides is gone;
 * - the note is the unit: `supersedes`, validity and labels go with the winning version;
 * - a conflict copy of a note that either side superseded ends (it is no live note).
 *
 * The order is fixed: the base's notes that remain, in the base's order, then the new notes by
 * `created` and then id. So merging A into B and B into A give the same notes in the same order.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import { serializeNote } from "../store/codec.ts";
import { mergeEntries } from "./_merge_entries.ts";

/**
 * The three versions {@linkcode mergeNotes} merges.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotes, type NotesMergeSides } from "@memo/memory";
 * const sides: NotesMergeSides = { ours: [], theirs: [] }; // no base: a two-way merge
 * assert.deepEqual(mergeNotes(sides).notes, []);
 * ```
 */
export interface NotesMergeSides {
  /**
   * The common ancestor's notes, in file order.
   * @default [] (a two-way merge: a note on one side only is kept)
   */
  base?: readonly Note[];
  /** One side's notes, in file order. */
  ours: readonly Note[];
  /** The other side's notes, in file order. */
  theirs: readonly Note[];
}

/**
 * What {@linkcode mergeNotes} returns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotes, type NotesMergeResult } from "@memo/memory";
 * const result: NotesMergeResult = mergeNotes({ ours: [], theirs: [] });
 * assert.equal(result.conflicts, 0);
 * ```
 */
export interface NotesMergeResult {
  /** The merged notes, in the merged file's order. */
  notes: Note[];
  /** Conflict copies made (notes labelled `conflict`). */
  conflicts: number;
  /** Notes added on both sides under two ids and kept once. */
  twins: number;
}

/**
 * Merges three versions of a list of notes by the shared conflict rule (see the module doc).
 * Pure: the same sides give the same notes, and swapping `ours` and `theirs` gives the same
 * result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotes, type Note } from "@memo/memory";
 * const note = (id: string, body: string, updated = "2026-01-01T00:00:00.000Z"): Note => ({
 *   id, title: body, body, labels: [], hash: "", created: "2026-01-01T00:00:00.000Z", updated,
 * });
 * const base = [note("n1", "Deploys run on Fridays")];
 * const ours = [note("n1", "Deploys run on Mondays", "2026-01-02T00:00:00.000Z"), note("n2", "a")];
 * const theirs = [...base, note("n3", "b")];
 * const merged = mergeNotes({ base, ours, theirs });
 * assert.deepEqual(merged.notes.map((n) => [n.id, n.body]), [
 *   ["n1", "Deploys run on Mondays"], // edited on one side: the edit
 *   ["n2", "a"], // added on either side: kept
 *   ["n3", "b"],
 * ]);
 * assert.deepEqual(mergeNotes({ base, ours: theirs, theirs: ours }), merged);
 * ```
 */
export function mergeNotes(sides: NotesMergeSides): NotesMergeResult {
  const entries = (notes: readonly Note[]) =>
    notes.map((note) => ({ note, raw: serializeNote(note) }));
  const merged = mergeEntries(
    entries(sides.base ?? []),
    entries(sides.ours),
    entries(sides.theirs),
  );
  return {
    notes: merged.entries.map((e) => e.note),
    conflicts: merged.conflicts,
    twins: merged.twins,
  };
}
