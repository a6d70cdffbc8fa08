/**
 * Internal: the pure parts of the PostgreSQL store: checking a batch of drafts,
 * planning what it writes against the notes found by identity, applying a
 * patch, and turning rows back into notes. Hashing, titles, labels and ids come
 * from `@memo/memory`; the rules are those of the file store (`planCommit`).
 * The file store's project (`_file_revisioned_store.ts`) uses the batch
 * dedupe and per-draft answers too, so that both stores answer a batch alike.
 *
 * @module
 */

import {
  applyNotePatch,
  MemoryValidationError,
  newNoteId,
  type Note,
  noteIdentity,
  type NotePatch,
  prepareNoteDrafts,
} from "@memo/memory";
import type { CloudDraft, CloudNote, CloudWriteResult } from "./store.ts";

/**
 * A checked, normalised draft with its identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type PreparedCloudDraft, prepareCloudDrafts } from "./_pg_notes.ts";
 *
 * const [draft]: PreparedCloudDraft[] = prepareCloudDrafts([{ text: "hi", source: "x:1" }]);
 * assert.equal(draft.identity, "source:x:1");
 * ```
 */
export interface PreparedCloudDraft {
  /** `source:<key>` or `hash:<hash>`. */
  identity: string;
  /** The id asked for a new note (checked against the note id pattern). */
  id?: string;
  /** Normalised title. */
  title: string;
  /** Body. */
  body: string;
  /** Normalised labels. */
  labels: string[];
  /** Source key. */
  source?: string;
  /** Content hash. */
  hash: string;
  /** Canonical creation time, when given. */
  created?: string;
  /** Canonical update time, when given. */
  updated?: string;
}

/**
 * Checks every draft before anything is touched; throws a
 * `MemoryValidationError` with `details.index` naming the first bad draft.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError } from "@memo/memory";
 * import { prepareCloudDrafts } from "./_pg_notes.ts";
 *
 * assert.throws(
 *   () => prepareCloudDrafts([{ text: "ok" }, { text: " " }]),
 *   (e) => e instanceof MemoryValidationError && e.details?.index === 1,
 * );
 * ```
 */
export function prepareCloudDrafts(drafts: readonly CloudDraft[]): PreparedCloudDraft[] {
  return prepareNoteDrafts(drafts).map((p) => ({ identity: noteIdentity(p), ...p }));
}

/**
 * A batch reduced to one draft per identity: `unique` in the order of each
 * identity's first draft, `slotOf[i]` the place of draft `i` in `unique`, and
 * `lastOf[slot]` the index of the slot's last draft. The last draft of an
 * identity gives the content (as `FileMemoryStore.commit` does); the id a new
 * note asks for is the first `id` given among the drafts of the identity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dedupeDrafts, prepareCloudDrafts } from "./_pg_notes.ts";
 *
 * const drafts = prepareCloudDrafts([
 *   { text: "v1", source: "s:1" },
 *   { text: "other" },
 *   { text: "v2", source: "s:1", id: "first-id" },
 *   { text: "v3", source: "s:1", id: "later-id" },
 * ]);
 * const { unique, slotOf, lastOf } = dedupeDrafts(drafts);
 * assert.deepEqual(unique.map((d) => d.body), ["v3", "other"]);
 * assert.equal(unique[0].id, "first-id");
 * assert.deepEqual(slotOf, [0, 1, 0, 0]);
 * assert.deepEqual(lastOf, [3, 1]);
 * ```
 */
export function dedupeDrafts(
  drafts: readonly PreparedCloudDraft[],
): { unique: PreparedCloudDraft[]; slotOf: number[]; lastOf: number[] } {
  const unique: PreparedCloudDraft[] = [];
  const slotOf: number[] = [];
  const lastOf: number[] = [];
  const at = new Map<string, number>();
  drafts.forEach((draft, index) => {
    const slot = at.get(draft.identity);
    if (slot === undefined) {
      at.set(draft.identity, unique.length);
      slotOf.push(unique.length);
      lastOf.push(index);
      unique.push(draft);
    } else {
      const id = unique[slot].id ?? draft.id;
      unique[slot] = id === undefined ? draft : { ...draft, id };
      slotOf.push(slot);
      lastOf[slot] = index;
    }
  });
  return { unique, slotOf, lastOf };
}

/**
 * The result of each draft of a batch from the result of each identity
 * (`bySlot`, as {@linkcode dedupeDrafts} numbers them): every draft of an
 * identity answers with the same stored note; the first one carries its
 * status, later ones are `unchanged`, so that the statuses count each note
 * once (`written` counts the notes really created).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerDrafts } from "./_pg_notes.ts";
 *
 * const note = {
 *   id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 1,
 * };
 * const results = answerDrafts([0, 0], [{ status: "written", note }]);
 * assert.deepEqual(results.map((r) => r.status), ["written", "unchanged"]);
 * assert.equal(results[1].note, note);
 * ```
 */
export function answerDrafts(
  slotOf: readonly number[],
  bySlot: readonly { status: CloudWriteResult["status"]; note: CloudNote }[],
): CloudWriteResult[] {
  const answered = new Set<number>();
  return slotOf.map((slot) => {
    const { status, note } = bySlot[slot];
    if (answered.has(slot)) return { status: "unchanged", note };
    answered.add(slot);
    return { status, note };
  });
}

/**
 * What one unique draft does: `unchanged` (the stored note), `updated` (same
 * source key, new content: id and `created` kept) or `written` (a new note).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { PlannedNote } from "./_pg_notes.ts";
 *
 * const planned: PlannedNote = {
 *   status: "written",
 *   note: {
 *     id: "n1", title: "t", body: "b", labels: [], hash: "h",
 *     created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z", revision: 0,
 *   },
 *   identity: "hash:h",
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
 * Plans the unique drafts of a batch against the stored notes with their
 * identities (`existing`) and the ids taken among the drafts' asked ids
 * (`takenIds`). A new note keeps its asked id when that id is free, else it
 * gets a fresh one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planDrafts, prepareCloudDrafts } from "./_pg_notes.ts";
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
    // The same text without a source key is the stored note (as in notes.md).
    if (found && (found.hash === draft.hash || draft.source === undefined)) {
      return { status: "unchanged", note: found, identity: draft.identity };
    }
    if (found) {
      const note = makeNote(found.id, draft, found.created, draft.updated ?? nowIso);
      return { status: "updated", note, identity: draft.identity };
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
 * Applies a patch as the file store does; returns the same object when nothing
 * changes. Throws `MemoryValidationError` on bad input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { patchCloudNote } from "./_pg_notes.ts";
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
  refuseHistory([patch]);
  const plain = plainNote(note);
  const next = applyNotePatch(plain, patch, now);
  return next === plain ? note : { ...next, revision: note.revision };
}

function makeNote(
  id: string,
  d: { title: string; body: string; labels: string[]; source?: string; hash: string },
  created: string,
  updated: string,
  revision = 0,
): CloudNote {
  const note: CloudNote = {
    id,
    title: d.title,
    body: d.body,
    labels: d.labels,
    hash: d.hash,
    created,
    updated,
    revision,
  };
  return d.source === undefined ? note : withSource(note, d.source);
}

/** The note with `source` in its place (after `labels`), for a stable JSON field order. */
function withSource(note: CloudNote, source: string): CloudNote {
  return {
    id: note.id,
    title: note.title,
    body: note.body,
    labels: note.labels,
    source,
    hash: note.hash,
    created: note.created,
    updated: note.updated,
    revision: note.revision,
  };
}

/**
 * A note row (or a change's `note` JSON) as a {@linkcode CloudNote}, fields in
 * the API's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowToNote } from "./_pg_notes.ts";
 *
 * const note = rowToNote({
 *   revision: "4", updated: "u", created: "c", hash: "h", source: null, labels: ["a"],
 *   body: "b", title: "t", id: "n1",
 * });
 * assert.deepEqual(Object.keys(note), [
 *   "id", "title", "body", "labels", "hash", "created", "updated", "revision",
 * ]);
 * assert.equal(note.revision, 4);
 * ```
 */
export function rowToNote(row: NoteRow): CloudNote {
  const note: CloudNote = {
    id: row.id,
    title: row.title,
    body: row.body,
    labels: row.labels,
    hash: row.hash,
    created: row.created,
    updated: row.updated,
    revision: Number(row.revision),
  };
  return row.source === null || row.source === undefined ? note : withSource(note, row.source);
}

/**
 * The memory package's note of a {@linkcode CloudNote} (without `revision`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plainNote } from "./_pg_notes.ts";
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
 * import type { NoteRow } from "./_pg_notes.ts";
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
}

/**
 * Refuses the history fields of issue 23 (`supersedes`, `validFrom`, `validUntil`), which the
 * PostgreSQL store does not keep yet: refused clearly rather than dropped (a hybrid replica would
 * otherwise take the cloud's copy without them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refuseHistory } from "./_pg_notes.ts";
 * refuseHistory([{ text: "x" }, { supersedes: [], validFrom: null }]);
 * assert.throws(() => refuseHistory([{ validUntil: "2027-01-01" }]), /not yet supported/);
 * ```
 */
export function refuseHistory(
  items: readonly { supersedes?: unknown; validFrom?: unknown; validUntil?: unknown }[],
): void {
  for (const item of items) {
    // An empty list and null (a replica's "none") ask for nothing this store would drop.
    const links = item?.supersedes;
    if (
      item && ((Array.isArray(links) ? links.length > 0 : links !== undefined) ||
        (item.validFrom !== undefined && item.validFrom !== null) ||
        (item.validUntil !== undefined && item.validUntil !== null))
    ) {
      throw new MemoryValidationError(
        "Cannot store note: supersedes, validFrom and validUntil are not yet supported by the PostgreSQL store",
      );
    }
  }
}
