/**
 * The note model's types: a stored {@linkcode Note}, the {@linkcode NoteDraft} a write takes and
 * the {@linkcode NotePatch} an update applies. `note.ts` re-exports them.
 *
 * @module
 */

/**
 * One stored note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash, type Note, noteIdentity } from "@memo/memory";
 * const note: Note = {
 *   id: "01jq3v7k9x0000000000",
 *   title: "Deploys",
 *   body: "Run `make deploy` from main.",
 *   labels: ["ops"],
 *   source: "github:acme/app/discussions/42",
 *   hash: "",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * assert.equal(noteIdentity(note), "source:github:acme/app/discussions/42");
 * ```
 */
export interface Note {
  /** Stable id, unique within the store (lower-case, time-sortable). */
  id: string;
  /** One-line title (the `## title` line of the section). */
  title: string;
  /** Markdown body; any text, including lines that look like markers. */
  body: string;
  /** Labels, de-duplicated, in the order they were first given. */
  labels: string[];
  /** Source key, e.g. `github:owner/repo/discussions/42` or `notion:page/<id>`. */
  source?: string;
  /** Content hash of title, body and labels (see {@linkcode contentHash}). */
  hash: string;
  /** ISO 8601 time the note was created. */
  created: string;
  /** ISO 8601 time the note was last changed. */
  updated: string;
  /**
   * Ids of the notes this note replaces: a correction, or a merge of duplicates. Kept in this (the
   * newer) note's marker in `notes.md`, the one source of truth; absent when it replaces none.
   */
  supersedes?: string[];
  /**
   * When the fact starts to hold: an ISO date (`2026-03-01`, meaning 00:00 UTC) or date-time.
   * Absent: it has always held. `created` and `updated` stay when memo recorded the note.
   */
  validFrom?: string;
  /** When the fact stops holding (exclusive: the range is `[validFrom, validUntil)`). */
  validUntil?: string;
  /**
   * Ids of the stored notes that supersede this one, derived from their `supersedes` when the
   * notes are read (never stored). Set by the `Memo` client on the notes it answers with; absent
   * when no note supersedes it.
   */
  supersededBy?: string[];
  /**
   * The scope that holds the note, set by a store that serves scopes for every scope but
   * `project` (a note without it is the project's). Never written to `notes.md`: the file is the
   * scope.
   */
  scope?: "user" | "project" | "local";
}

/**
 * What a caller gives to create a note (or to update the note with the same identity).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NoteDraft, prepareDraft } from "@memo/memory";
 * const draft: NoteDraft = {
 *   text: "# Deploys\nRun `make deploy` from main.",
 *   labels: ["ops", "ops"],
 *   source: "github:acme/app/discussions/42",
 * };
 * const prepared = prepareDraft(draft);
 * assert.equal(prepared.title, "Deploys"); // derived from the first line
 * assert.deepEqual(prepared.labels, ["ops"]);
 * assert.equal(prepared.source, "github:acme/app/discussions/42");
 * ```
 */
export interface NoteDraft {
  /** The note's markdown text. Must not be empty. */
  text: string;
  /** Title; derived from the first line of `text` when missing or empty. */
  title?: string;
  /** Labels. */
  labels?: readonly string[];
  /** Source key; notes with the same key are the same note. */
  source?: string;
  /** Creation time to record (for example an upstream item's); defaults to now. */
  created?: string;
  /** Update time to record; defaults to now. */
  updated?: string;
  /**
   * Id of the note when the draft creates one (replicas keep ids across machines); must match
   * {@linkcode NOTE_ID_PATTERN}. Ignored when the draft's identity matches a stored note (that
   * note keeps its id); when another note already holds the id, the new note gets a fresh one.
   * @default a new id (see {@linkcode newNoteId})
   */
  id?: string;
  /**
   * Ids of stored notes this note replaces. An unknown id, the note's own id or a cycle is
   * refused (`MemoryValidationError`).
   * @default none
   */
  supersedes?: readonly string[];
  /**
   * When the fact starts to hold: an ISO date (00:00 UTC) or date-time.
   * @default none (it has always held)
   */
  validFrom?: string;
  /**
   * When the fact stops holding (exclusive); after `validFrom` when both are given.
   * @default none (it still holds)
   */
  validUntil?: string;
  /**
   * The scope to write into (`user`, `project` or `local`): only a store that serves scopes
   * (`ScopedMemoryStore`) takes it; its default is the store's `defaultScope`.
   */
  scope?: "user" | "project" | "local";
}

/**
 * A partial change to an existing note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type NotePatch, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "Deploys run on Fridays", title: "Deploys" });
 * const patch: NotePatch = { text: "Deploys run on Mondays", labels: ["ops"] };
 * const updated = await memo.update(note.id, patch);
 * assert.equal(updated.body, "Deploys run on Mondays");
 * assert.deepEqual(updated.labels, ["ops"]);
 * assert.equal(updated.title, "Deploys"); // given, not in the patch: kept
 * const { note: plain } = await memo.remember({ text: "Lunch at noon" });
 * const moved = await memo.update(plain.id, { text: "Lunch at one" });
 * assert.equal(moved.title, "Lunch at one"); // derived from the text: derived again
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface NotePatch {
  /** New body text. */
  text?: string;
  /** New title. Left out, a title derived from the old text is derived from the new `text`. */
  title?: string;
  /** New labels (replaces the old ones). */
  labels?: readonly string[];
  /**
   * Update time to record; defaults to now. An ISO 8601 time, kept canonical (`toISOString`), as
   * the `updated` of a {@linkcode NoteDraft}. A patch that changes nothing leaves the note as it
   * is, whatever this says.
   */
  updated?: string;
  /** New list of the notes this note replaces (`[]` removes every link). */
  supersedes?: readonly string[];
  /** New start of validity (ISO date or date-time); `null` removes it. */
  validFrom?: string | null;
  /** New end of validity (exclusive); `null` removes it. */
  validUntil?: string | null;
  /**
   * Moves the note to this scope (`memo update ID --scope S`), keeping its id: only a store that
   * serves scopes (`ScopedMemoryStore`) takes it.
   */
  scope?: "user" | "project" | "local";
}
