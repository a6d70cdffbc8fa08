/**
 * Merging notes: the conflict rule that the hybrid runtime's replicator and the git merge driver
 * share (`conflict.ts`), the note-by-note merge of three versions (`merge_notes.ts`) and the merge
 * of three `notes.md` texts (`merge_file.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeNotesFiles } from "./mod.ts";
 * assert.deepEqual(mergeNotesFiles({ base: "", ours: "", theirs: "" }), {
 *   ok: true, text: "", conflicts: 0, twins: 0,
 * });
 * ```
 *
 * @module
 */

export * from "./conflict.ts";
export * from "./merge_notes.ts";
export * from "./merge_file.ts";
export * from "./merge_conflicted.ts";
