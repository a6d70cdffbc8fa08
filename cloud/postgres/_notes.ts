/**
 * Internal: the pure parts of the PostgreSQL store: planning what a batch (checked by
 * `../projects/drafts.ts`) writes against the notes found by identity, applying a patch, and
 * turning rows back into notes. Hashing, titles, labels and ids come from `@memo/memory`; the rules
 * are those of the file store (`planCommit`).
 *
 * @module
 */

import {
  applyNotePatch,
  contentHash,
  MemoryValidationError,
  newNoteId,
  type Note,
  NOTE_ID_PATTERN,
  type NotePatch,
  prepareHistory,
  type ReplicaChanges,
} from "@memo/memory";
import type { PreparedCloudDraft } from "../projects/drafts.ts";
import type { CloudNote } from "../store.ts";

/**
 * What one unique draft does: `unchanged` (the stored note), `updated` (same identity, new content
 * or history: id and `created` kept) or `written` (a new note).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlannedNote } from "./_notes.ts";
 *
 * const planned: PlannedNote = {
 *   status: "written",
 *   note: {
 *     id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 0,
 *   },
 *   identity: "text:h",
 * };
 * assert.equal(planned.status, "written");
 * ```
 */
export interface PlannedNote {
  /** What happens. */
  status: "written" | "updated" | "unchanged";
  /** The note after the write (its `revision` is set when the seq is known). */
  note: CloudNote;
  /** Its identity. */
  identity: string;
}

/**
 * What a draft makes of the stored note of its identity, by the file store's rules: with a source
 * key, the draft's content and the history fields it gives (the stored ones where it gives none);
 * without one (the same text), the stored note with the draft's `supersedes` added to its own and
 * the draft's validity where given. The stored note itself when nothing changes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * import { prepareCloudDrafts } from "../projects/drafts.ts";
 * import { mergeDraft } from "./_notes.ts";
 *
 * const stored = {
 *   id: "n1", title: "Deploys run on Fridays", body: "Deploys run on Fridays", labels: [],
 *   hash: "", created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 *   revision: 4,
 * };
 * stored.hash = contentHash(stored);
 * const [same] = prepareCloudDrafts([{ text: "deploys run on fridays" }]);
 * assert.equal(mergeDraft(stored, same, new Date()), stored); // the same text: unchanged
 * const [dated] = prepareCloudDrafts([{ text: "Deploys run on Fridays", validUntil: "2027-01-01" }]);
 * const next = mergeDraft(stored, dated, new Date("2026-02-01T00:00:00Z"));
 * assert.equal(next.validUntil, "2027-01-01");
 * assert.equal(next.id, "n1");
 * ```
 */
export function mergeDraft(found: CloudNote, draft: PreparedCloudDraft, now: Date): CloudNote {
  let patch: NotePatch;
  if (draft.source !== undefined) {
    patch = {
      text: draft.body,
      title: draft.title,
      labels: draft.labels,
      supersedes: draft.supersedes,
      validFrom: draft.validFrom,
      validUntil: draft.validUntil,
    };
  } else {
    const had = found.supersedes ?? [];
    const adds = (draft.supersedes ?? []).filter((id) => !had.includes(id));
    patch = {
      supersedes: adds.length ? [...had, ...adds] : undefined,
      validFrom: draft.validFrom,
      validUntil: draft.validUntil,
    };
  }
  if (draft.updated !== undefined) patch.updated = draft.updated;
  const plain = plainNote(found);
  const next = applyNotePatch(plain, patch, now);
  return next === plain ? found : { ...next, revision: found.revision };
}

/**
 * Plans the unique drafts of a batch against the stored notes with their identities (`existing`)
 * and the ids taken among the drafts' asked ids (`takenIds`). A new note keeps its asked id when
 * that id is free, else it gets a fresh one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prepareCloudDrafts } from "../projects/drafts.ts";
 * import { planDrafts } from "./_notes.ts";
 *
 * const drafts = prepareCloudDrafts([{ id: "mine", text: "a" }, { id: "taken", text: "b" }]);
 * const plan = planDrafts(drafts, new Map(), new Set(["taken"]), new Date(0));
 * assert.equal(plan[0].note.id, "mine");
 * assert.notEqual(plan[1].note.id, "taken");
 * assert.deepEqual(plan.map((p) => p.status), ["written", "written"]);
 * ```
 */
export function planDrafts(
  unique: readonly PreparedCloudDraft[],
  existing: ReadonlyMap<string, CloudNote>,
  takenIds: ReadonlySet<string>,
  now: Date,
): PlannedNote[] {
  const nowIso = now.toISOString();
  const used = new Set<string>();
  return unique.map((draft) => {
    const found = existing.get(draft.identity);
    if (found) {
      const note = mergeDraft(found, draft, now);
      return { status: note === found ? "unchanged" : "updated", note, identity: draft.identity };
    }
    let id = draft.id;
    if (id === undefined || takenIds.has(id) || used.has(id)) {
      do id = newNoteId(now); while (takenIds.has(id) || used.has(id));
    }
    used.add(id);
    const created = draft.created ?? nowIso;
    const note = makeNote(id, draft, created, draft.updated ?? draft.created ?? nowIso);
    return { status: "written", note, identity: draft.identity };
  });
}

/**
 * Applies a patch as the file store does; returns the same object when nothing changes. Throws
 * `MemoryValidationError` on bad input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { patchCloudNote } from "./_notes.ts";
 *
 * const note = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "", revision: 3,
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * const next = patchCloudNote(note, { text: "c" }, new Date(0));
 * assert.equal(next.body, "c");
 * assert.equal(next.created, note.created);
 * ```
 */
export function patchCloudNote(note: CloudNote, patch: NotePatch, now: Date): CloudNote {
  const plain = plainNote(note);
  const next = applyNotePatch(plain, patch, now);
  return next === plain ? note : { ...next, revision: note.revision };
}

/** The history fields a note or draft carries. */
type History = { supersedes?: readonly string[]; validFrom?: string; validUntil?: string };

function makeNote(
  id: string,
  d: { title: string; body: string; labels: string[]; source?: string; hash: string } & History,
  created: string,
  updated: string,
): CloudNote {
  return ordered({ ...d, id, created, updated, revision: 0 });
}

/**
 * A note's fields in the API's order (`source` after `labels`, the history fields after `updated`,
 * then `revision`), absent ones left out: a stable JSON field order whatever built it.
 */
function ordered(
  n: Omit<NoteRow, "revision" | "supersedes"> & {
    revision: number;
    supersedes?: readonly string[] | null;
  },
): CloudNote {
  const note = { id: n.id, title: n.title, body: n.body, labels: n.labels } as CloudNote;
  if (n.source !== undefined && n.source !== null) note.source = n.source;
  note.hash = n.hash;
  note.created = n.created;
  note.updated = n.updated;
  if (n.supersedes?.length) note.supersedes = [...n.supersedes];
  if (n.validFrom !== undefined && n.validFrom !== null) note.validFrom = n.validFrom;
  if (n.validUntil !== undefined && n.validUntil !== null) note.validUntil = n.validUntil;
  note.revision = n.revision;
  return note;
}

/**
 * A note row (or a change's `note` JSON) as a {@linkcode CloudNote}, fields in the API's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowToNote } from "./_notes.ts";
 *
 * const note = rowToNote({
 *   revision: "4", updated: "u", created: "c", hash: "h", source: null, labels: ["a"],
 *   body: "b", title: "t", id: "n1",
 * });
 * assert.deepEqual(Object.keys(note), [
 *   "id", "title", "body", "labels", "hash", "created", "updated", "revision",
 * ]);
 * const later = rowToNote({
 *   revision: 5, validUntil: "2027-01-01", supersedes: ["n0"], updated: "u", created: "c",
 *   hash: "h", labels: [], body: "b", title: "t", id: "n1", validFrom: null,
 * });
 * assert.deepEqual(Object.keys(later), [
 *   "id", "title", "body", "labels", "hash", "created", "updated", "supersedes", "validUntil",
 *   "revision",
 * ]);
 * assert.equal(note.revision, 4);
 * ```
 */
export function rowToNote(row: NoteRow): CloudNote {
  return ordered({ ...row, revision: Number(row.revision) });
}

/**
 * The memory package's note of a {@linkcode CloudNote} (without `revision`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plainNote } from "./_notes.ts";
 *
 * const note = plainNote({
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *   created: "c", updated: "u", revision: 2,
 * });
 * assert.equal("revision" in note, false);
 * ```
 */
export function plainNote(note: CloudNote): Note {
  const { revision: _, ...rest } = note;
  return rest;
}

/**
 * A note as PostgreSQL returns it (`revision` as a string or number: bigint).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { NoteRow } from "./_notes.ts";
 *
 * const row: NoteRow = {
 *   id: "n1", title: "t", body: "b", labels: [], source: null, hash: "h",
 *   created: "c", updated: "u", revision: "1",
 * };
 * assert.equal(row.source, null);
 * ```
 */
export interface NoteRow {
  /** Id. */
  id: string;
  /** Title. */
  title: string;
  /** Body. */
  body: string;
  /** Labels (jsonb). */
  labels: string[];
  /** Source key or null. */
  source?: string | null;
  /** Content hash. */
  hash: string;
  /** Creation time. */
  created: string;
  /** Update time. */
  updated: string;
  /** Revision (bigint). */
  revision: string | number;
  /** Ids of the notes it replaces (jsonb), or null. */
  supersedes?: string[] | null;
  /** Start of validity, or null. */
  validFrom?: string | null;
  /** End of validity, or null. */
  validUntil?: string | null;
}

/**
 * The notes and ids of a replica write, checked as the file store checks them (whole notes with
 * matching hashes, each id once, none both put and removed), without the derived `supersededBy`; a
 * SHA-256 of a notes file is refused (a database is not one file). Throws `MemoryValidationError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentHash } from "@memo/memory";
 * import { replicaChanges } from "./_notes.ts";
 *
 * const note = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "", supersededBy: ["n2"],
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * };
 * note.hash = contentHash(note);
 * const { put } = replicaChanges({ put: [note], remove: [] });
 * assert.equal("supersededBy" in put[0], false);
 * assert.throws(() => replicaChanges({ put: [{ ...note, hash: "x" }], remove: [] }), /hash/);
 * assert.throws(() => replicaChanges({ put: [note], remove: ["n1"] }), /both/);
 * ```
 */
export function replicaChanges(changes: ReplicaChanges): { put: Note[]; remove: string[] } {
  const fail = (reason: string) =>
    new MemoryValidationError(`Cannot apply the replica changes: ${reason}`);
  if (!changes || !Array.isArray(changes.put) || !Array.isArray(changes.remove)) {
    throw fail("put and remove must be lists");
  }
  if (changes.expectSha256 !== undefined) {
    throw fail("this store is not one file: no SHA-256 of it can hold");
  }
  const seen = new Set<string>();
  const put = changes.put.map((note) => {
    const ok = note && typeof note.id === "string" && NOTE_ID_PATTERN.test(note.id) &&
      typeof note.body === "string" && note.body.trim() !== "" &&
      typeof note.created === "string" && typeof note.updated === "string";
    if (!ok) throw fail(`note ${JSON.stringify(String(note?.id).slice(0, 64))} is not a note`);
    prepareHistory(note, "apply the replica changes");
    if (note.hash !== contentHash(note)) {
      throw fail(`note ${note.id} has a hash that does not match its content`);
    }
    if (seen.has(note.id)) throw fail(`note ${note.id} is given twice`);
    seen.add(note.id);
    const { supersededBy: _derived, ...stored } = note;
    return stored;
  });
  for (const id of changes.remove) {
    if (typeof id !== "string") throw fail("remove must hold ids");
    if (seen.has(id)) throw fail(`note ${id} is both put and removed`);
  }
  return { put, remove: [...new Set(changes.remove)] };
}
