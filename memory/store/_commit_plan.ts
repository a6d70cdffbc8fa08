/**
 * Internal: turning a batch of drafts into what a commit writes (new notes, notes updated in
 * place, notes left unchanged), and applying a patch to a note. Pure: no file access.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import {
  contentHash,
  deriveTitle,
  newNoteId,
  normalizeNoteText,
  type Note,
  NOTE_ID_PATTERN,
  type NotePatch,
  type PreparedNoteContent,
  prepareDraft,
} from "../notes/note.ts";
import { checkValidRange } from "../history/validity.ts";
import type { CommitBatch, CommitResult } from "./store.ts";

/**
 * A validated, normalised draft: what `prepareNoteDrafts` returns and a commit stores.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PreparedDraft, prepareNoteDrafts } from "@memo/memory";
 *
 * const [draft]: PreparedDraft[] = prepareNoteDrafts([
 *   { text: "Deploys run with make deploy", labels: ["ops", " ops "], source: " wiki:deploys " },
 * ]);
 * assert.equal(draft.title, "Deploys run with make deploy");
 * assert.deepEqual(draft.labels, ["ops"]);
 * assert.equal(draft.source, "wiki:deploys");
 * assert.match(draft.hash, /^[0-9a-f]+$/);
 * ```
 */
export interface PreparedDraft extends PreparedNoteContent {
  /** Canonical ISO creation time, when given. */
  created?: string;
  /** Canonical ISO update time, when given. */
  updated?: string;
  /** The id asked for, should the draft create a note. */
  id?: string;
}

/** What the store needs to know about the notes it holds. */
export interface NoteLookup {
  has(id: string): boolean;
  get(id: string): Note | undefined;
  findIdentity(draft: { source?: string; body: string }): Note | undefined;
}

/** The outcome of a batch before it is written. */
export interface CommitPlan {
  written: Note[];
  updated: Note[];
  unchanged: Note[];
  result(bytesWritten: number): CommitResult;
}

/** Validates every draft of a batch; throws `MemoryValidationError` before anything is touched. */
export function prepareDrafts(batch: CommitBatch): PreparedDraft[] {
  const drafts = (batch as { notes?: unknown } | null | undefined)?.notes;
  if (!Array.isArray(drafts)) {
    throw new MemoryValidationError("Cannot store notes: the batch's notes must be a list");
  }
  return drafts.map((draft, index) => {
    try {
      const prepared: PreparedDraft = prepareDraft(draft);
      const created = checkTime(draft.created, "created");
      const updated = checkTime(draft.updated, "updated");
      if (created) prepared.created = created;
      if (updated) prepared.updated = updated;
      if (draft.id !== undefined) prepared.id = checkId(draft.id);
      return prepared;
    } catch (e) {
      if (!(e instanceof MemoryValidationError) || drafts.length === 1) throw e;
      throw new MemoryValidationError(`${e.message} (note ${index + 1} of the batch)`, {
        cause: e,
        details: { index },
      });
    }
  });
}

function checkId(value: unknown): string {
  if (typeof value === "string" && NOTE_ID_PATTERN.test(value)) return value;
  throw new MemoryValidationError(
    "Cannot store note: id must be 1 to 64 lower-case letters, digits, _ or - (starting with a letter or digit)",
  );
}

function checkTime(value: unknown, name: string, action = "store note"): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && isCanonicalTime(value)) return value;
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new MemoryValidationError(`Cannot ${action}: ${name} must be an ISO 8601 time`);
  }
  return new Date(ms).toISOString();
}

/** Digit positions of `YYYY-MM-DDTHH:MM:SS.sssZ`. */
const TIME_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

/**
 * Whether `s` is already what `new Date(Date.parse(s)).toISOString()` gives back (the common
 * case, checked without building a date). Days past the 28th go the slow way.
 */
function isCanonicalTime(s: string): boolean {
  if (s.length !== 24 || s.charCodeAt(23) !== 90 /* Z */) return false;
  if (s[4] !== "-" || s[7] !== "-" || s[10] !== "T" || s[13] !== ":" || s[16] !== ":") return false;
  if (s[19] !== ".") return false;
  for (const i of TIME_DIGITS) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  const two = (i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
  const month = two(5), day = two(8);
  return month >= 1 && month <= 12 && day >= 1 && day <= 28 && two(11) <= 23 && two(14) <= 59 &&
    two(17) <= 59;
}

/**
 * Deduplicates a batch against the store and within itself (the same identity twice: once, the
 * last draft wins; a draft that names its id is its own identity in the batch, and is the stored
 * note of that id when that one has its text): same identity and nothing new is unchanged; the same source key with new
 * content is an update in place (id and `created` kept; history fields the draft leaves out are
 * kept); the same text without a source key keeps the stored note and only adds the draft's
 * `supersedes` and validity to it; anything else is a new note. Whether the ids of `supersedes`
 * exist is not checked here: a replica may push a link before the note it names (the `Memo`
 * client checks what its callers add).
 */
export function planCommit(store: NoteLookup, drafts: PreparedDraft[], now: Date): CommitPlan {
  const nowIso = now.toISOString();
  // One draft per identity, at the place of its first draft; the last draft wins.
  const unique: PreparedDraft[] = [];
  const bySource = new Map<string, number>();
  const byText = new Map<string, number>();
  const byId = new Map<string, number>();
  for (const draft of drafts) {
    // A draft that names its id (an export read back) is its own note even when another has its
    // text: a fact that changed and changed back is two notes of one history.
    const slots = draft.source !== undefined ? bySource : draft.id !== undefined ? byId : byText;
    const text = draft.source === undefined ? normalizeNoteText(draft.body) : "";
    const key = draft.source ?? (draft.id !== undefined ? `${draft.id}\n${text}` : text);
    const at = slots.get(key);
    if (at === undefined) {
      slots.set(key, unique.length);
      unique.push(draft);
    } else unique[at] = draft;
  }
  const written: Note[] = [];
  const updated: Note[] = [];
  const unchanged: Note[] = [];
  const ids = new Set<string>();
  for (const draft of unique) {
    // A draft naming a stored note's id, with its text, is that note (another note of the same
    // text is an older or later fact); else the note of its identity, if any.
    const own = draft.source === undefined && draft.id !== undefined
      ? store.get(draft.id)
      : undefined;
    const existing = own && normalizeNoteText(own.body) === normalizeNoteText(draft.body)
      ? own
      : store.findIdentity(draft);
    if (existing) {
      const next = draft.source !== undefined
        ? withHistory(draft, existing, draft)
        : sameText(existing, draft);
      if (next === existing || next.hash === existing.hash) unchanged.push(existing);
      else updated.push(makeNote(existing.id, next, existing.created, draft.updated ?? nowIso));
    } else {
      // The id asked for, unless another note holds it; else a fresh one.
      let id = draft.id ?? newNoteId(now);
      while (store.has(id) || ids.has(id)) id = newNoteId(now);
      ids.add(id);
      const created = draft.created ?? nowIso;
      written.push(makeNote(id, draft, created, draft.updated ?? draft.created ?? nowIso));
    }
  }
  return {
    written,
    updated,
    unchanged,
    result: (bytesWritten) => ({ written, updated, unchanged, bytesWritten }),
  };
}

/**
 * The content of `base` with the history fields of `draft` where it gives them, else those of
 * `existing`, and its hash. Throws `MemoryValidationError` for an empty validity range.
 */
function withHistory(
  base: PreparedNoteContent,
  existing: Note,
  draft: PreparedNoteContent,
): PreparedNoteContent {
  const next: PreparedNoteContent = base.source === undefined
    ? { title: base.title, body: base.body, labels: base.labels, hash: "" }
    : { title: base.title, body: base.body, labels: base.labels, source: base.source, hash: "" };
  const supersedes = draft.supersedes ?? existing.supersedes;
  const validFrom = draft.validFrom ?? existing.validFrom;
  const validUntil = draft.validUntil ?? existing.validUntil;
  if (supersedes?.length) next.supersedes = supersedes;
  if (validFrom !== undefined) next.validFrom = validFrom;
  if (validUntil !== undefined) next.validUntil = validUntil;
  checkValidRange(validFrom, validUntil);
  next.hash = contentHash(next);
  return next;
}

/**
 * A draft whose text a stored note (without a source key) already holds: the stored note, with
 * the draft's `supersedes` added to its own and the draft's validity where given; the note itself
 * when that changes nothing.
 */
function sameText(existing: Note, draft: PreparedDraft): Note | PreparedNoteContent {
  const had = existing.supersedes ?? [];
  const adds = (draft.supersedes ?? []).filter((id) => !had.includes(id));
  const same = (a: string | undefined, b: string | undefined) => a === undefined || a === b;
  if (
    !adds.length && same(draft.validFrom, existing.validFrom) &&
    same(draft.validUntil, existing.validUntil)
  ) {
    return existing;
  }
  return withHistory(existing, existing, {
    ...draft,
    supersedes: adds.length ? [...had, ...adds] : undefined,
  });
}

/**
 * Applies a patch; returns the same object when nothing changes (whatever the patch's `updated`
 * says). The changed note's `updated` is the patch's (checked and made canonical as a draft's),
 * else `now`. Throws `MemoryValidationError` on bad input (empty text, labels that are not a
 * list, a malformed `updated`).
 */
export function patchNote(note: Note, patch: NotePatch, now: Date): Note {
  if (!patch || typeof patch !== "object") {
    throw new MemoryValidationError("Cannot update note: the patch must be an object");
  }
  if (patch.title !== undefined && typeof patch.title !== "string") {
    throw new MemoryValidationError("Cannot update note: title must be a string");
  }
  if (patch.labels !== undefined && !Array.isArray(patch.labels)) {
    throw new MemoryValidationError("Cannot update note: labels must be a list of strings");
  }
  if (patch.text !== undefined && (typeof patch.text !== "string" || patch.text.trim() === "")) {
    throw new MemoryValidationError("Cannot update note: text is empty");
  }
  const updated = checkTime(patch.updated, "updated", "update note");
  const pick = <T>(given: T | null | undefined, kept: T | undefined) =>
    given === null ? undefined : given === undefined ? kept : given;
  let next: PreparedNoteContent;
  try {
    next = prepareDraft({
      text: patch.text ?? note.body,
      // A title derived from the old text is derived again from the new one; a given title stays.
      title: patch.title ??
        (patch.text !== undefined && note.title === deriveTitle(note.body)
          ? undefined
          : note.title),
      labels: patch.labels ?? note.labels,
      supersedes: pick(patch.supersedes, note.supersedes),
      validFrom: pick(patch.validFrom, note.validFrom),
      validUntil: pick(patch.validUntil, note.validUntil),
    });
  } catch (e) {
    if (!(e instanceof MemoryValidationError)) throw e;
    throw new MemoryValidationError(e.message.replace(/^Cannot store note/, "Cannot update note"), {
      cause: e,
      details: e.details,
    });
  }
  if (next.hash === note.hash && next.title === note.title) return note;
  return makeNote(
    note.id,
    { ...next, source: note.source },
    note.created,
    updated ?? now.toISOString(),
  );
}

function makeNote(
  id: string,
  d: PreparedNoteContent,
  created: string,
  updated: string,
): Note {
  const note: Note = d.source === undefined
    ? { id, title: d.title, body: d.body, labels: d.labels, hash: d.hash, created, updated }
    : {
      id,
      title: d.title,
      body: d.body,
      labels: d.labels,
      source: d.source,
      hash: d.hash,
      created,
      updated,
    };
  if (d.supersedes?.length) note.supersedes = d.supersedes;
  if (d.validFrom !== undefined) note.validFrom = d.validFrom;
  if (d.validUntil !== undefined) note.validUntil = d.validUntil;
  return note;
}
