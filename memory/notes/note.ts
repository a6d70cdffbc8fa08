/**
 * The note model: what one section of `.memo/memory/notes.md` holds, and the
 * helpers that normalise input, derive titles and compute content hashes.
 *
 * @module
 */

export type { Note, NoteDraft, NotePatch } from "./_types.ts";
export { contentHash, normalizeNoteText, noteIdentity, sameNote } from "./_identity.ts";
export { newNoteId, NOTE_ID_PATTERN } from "./_id.ts";
export {
  deriveTitle,
  MAX_DERIVED_TITLE_LENGTH,
  normalizeLabels,
  normalizeSource,
  normalizeTitle,
  noteFilter,
  type PreparedNoteContent,
  prepareDraft,
} from "./_prepare.ts";
