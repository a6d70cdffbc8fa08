/**
 * Internal: turning a batch of drafts into what a commit writes (new notes, notes updated in
 * place, notes left unchanged), and applying a patch to a note. Pure: no file access.
 *
 * @module
 */

import { MemoryValidationError } from "./errors.ts";
import { newNoteId, type Note, noteIdentity, type NotePatch, prepareDraft } from "./note.ts";
import type { CommitBatch, CommitResult } from "./store.ts";

/** A validated, normalised draft. */
export interface PreparedDraft {
  title: string;
  body: string;
  labels: string[];
  source?: string;
  hash: string;
  created?: string;
  updated?: string;
}

/** What the store needs to know about the notes it holds. */
export interface NoteLookup {
  has(id: string): boolean;
  findIdentity(draft: { source?: string; hash: string }): Note | undefined;
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

function checkTime(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    throw new MemoryValidationError(`Cannot store note: ${name} must be an ISO 8601 time`);
  }
  return new Date(ms).toISOString();
}

/**
 * Deduplicates a batch against the store and within itself (the same identity twice: once, the
 * last draft wins): same identity and hash is unchanged, same source key with a new hash is an
 * update in place (id and `created` kept), anything else is a new note.
 */
export function planCommit(store: NoteLookup, drafts: PreparedDraft[], now: Date): CommitPlan {
  const nowIso = now.toISOString();
  const byIdentity = new Map<string, PreparedDraft>();
  for (const draft of drafts) byIdentity.set(noteIdentity(draft), draft);
  const written: Note[] = [];
  const updated: Note[] = [];
  const unchanged: Note[] = [];
  const ids = new Set<string>();
  for (const draft of byIdentity.values()) {
    const existing = store.findIdentity(draft);
    if (existing && existing.hash === draft.hash) {
      unchanged.push(existing);
    } else if (existing) {
      updated.push(makeNote(existing.id, draft, existing.created, draft.updated ?? nowIso));
    } else {
      let id = newNoteId(now);
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
 * Applies a patch; returns the same object when nothing changes. Throws
 * `MemoryValidationError` on bad input (empty text, labels that are not a list).
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
  const next = prepareDraft({
    text: patch.text ?? note.body,
    title: patch.title ?? note.title,
    labels: patch.labels ?? note.labels,
  });
  if (next.hash === note.hash && next.title === note.title) return note;
  return makeNote(note.id, { ...next, source: note.source }, note.created, now.toISOString());
}

function makeNote(
  id: string,
  d: { title: string; body: string; labels: string[]; source?: string; hash: string },
  created: string,
  updated: string,
): Note {
  return d.source === undefined
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
}
