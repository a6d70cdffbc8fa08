/**
 * Checking drafts and applying patches the way the file store does, for other stores (the cloud
 * server's PostgreSQL store) that must keep the same rules: the same validation, messages, time
 * canonicalisation and "a patch that changes nothing returns the note itself".
 *
 * @module
 */

import { patchNote, type PreparedDraft, prepareDrafts } from "./_commit_plan.ts";
import type { Note, NoteDraft, NotePatch } from "../notes/note.ts";

export type { PreparedDraft };

/**
 * Validates and normalises every draft of a batch, as `FileMemoryStore.commit` does, before
 * anything is stored: title derived, labels normalised, source checked, content hash computed,
 * `created`/`updated` made canonical ISO times, `id` checked against the note id pattern. Throws
 * `MemoryValidationError` for the first bad draft, with `details.index` (and "(note i of the
 * batch)" in the message) when the batch has several.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, prepareNoteDrafts } from "@memo/memory";
 *
 * const [draft] = prepareNoteDrafts([{ text: "# Deploys\nmake deploy", created: "2026-01-01" }]);
 * assert.equal(draft.title, "Deploys");
 * assert.equal(draft.created, "2026-01-01T00:00:00.000Z");
 * assert.throws(
 *   () => prepareNoteDrafts([{ text: "ok" }, { text: " " }]),
 *   (e) => e instanceof MemoryValidationError && e.details?.index === 1,
 * );
 * ```
 */
export function prepareNoteDrafts(drafts: readonly NoteDraft[]): PreparedDraft[] {
  return prepareDrafts({ notes: drafts });
}

/**
 * Applies a patch to a note as `FileMemoryStore.update` does: returns the same
 * object when nothing changes (whatever the patch's `updated` says), else a new
 * note with the same id, source and `created`, and `updated` set to the patch's
 * `updated` (made canonical) or else `now`. Throws `MemoryValidationError` on
 * bad input (empty text, labels that are not a list, a malformed `updated`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyNotePatch, contentHash, type Note } from "@memo/memory";
 *
 * const note: Note = {
 *   id: "n1", title: "Deploys", body: "make deploy", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * assert.equal(applyNotePatch(note, { text: "make deploy" }, new Date()), note); // no change
 * const next = applyNotePatch(note, { labels: ["ops"] }, new Date("2026-02-01T00:00:00Z"));
 * assert.deepEqual(next.labels, ["ops"]);
 * assert.equal(next.updated, "2026-02-01T00:00:00.000Z");
 * const edited = applyNotePatch(note, { title: "Deploying", updated: "2026-01-15T10:00:00+01:00" }, new Date());
 * assert.equal(edited.updated, "2026-01-15T09:00:00.000Z"); // the edit time given, canonical
 * ```
 */
export function applyNotePatch(note: Note, patch: NotePatch, now: Date): Note {
  return patchNote(note, patch, now);
}
