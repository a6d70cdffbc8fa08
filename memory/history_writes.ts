/**
 * The history writes of a `Memo`: `Memo.correct` and `Memo.supersede` (its tidy is in
 * `_tidy_writes.ts`, its link checks in `history_checks.ts`). Each write is one `applyReplica` of whole notes (one atomic rewrite of
 * `notes.md`), with the hashes of every note it read as `expect`: when another process changed
 * one of them meanwhile, nothing is written and the write is planned again from the new state,
 * so two corrections of the same note at once both land.
 *
 * The writes plan over a {@linkcode HistoryView}: a `Memo` client's mirror of every note, or (the
 * cloud on PostgreSQL, which exports them through `@memo/memory`) targeted reads of the notes a
 * write names, their `supersedes` chains and the notes with the same text.
 *
 * @module
 */

import { MemoryValidationError, NoteNotFoundError } from "./errors.ts";
import {
  contentHash,
  newNoteId,
  type Note,
  type PreparedNoteContent,
  prepareDraft,
} from "./notes/note.ts";
import { normalizeValidTime, validTimeMs } from "./history/history.ts";
import type { MemoryStore, ReplicaApplyResult, ReplicaChanges } from "./store/store.ts";
import type { NoteMirror } from "./_note_mirror.ts";
import type { HistoryNeeds, HistoryView } from "./history_view.ts";
import { checkChain, expectOf } from "./history_checks.ts";
import { guardDrafts } from "./secrets/guard.ts";
import type { SecretsPolicy } from "./secrets/policy.ts";
import type {
  CorrectInput,
  CorrectResult,
  SupersedeInput,
  SupersedeResult,
} from "./history/types.ts";

/** Plans tried before a write gives up on a file that keeps changing. */
const ATTEMPTS = 8;

/**
 * What the write operations use (internal to memo's runtimes): the notes to plan over, the one
 * atomic write, the clock and the secrets policy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HistoryWriteParts } from "@memo/memory";
 * const clock: HistoryWriteParts["clock"] = () => new Date(0);
 * assert.equal(clock().getTime(), 0);
 * ```
 */
export interface HistoryWriteParts {
  /** The notes, caught up by `sync`. */
  view: HistoryView;
  /**
   * Writes whole notes in one atomic write guarded by `expect` (`MemoryStore.applyReplica`);
   * `stale` when another writer changed a note it expects.
   */
  apply(changes: ReplicaChanges): Promise<ReplicaApplyResult>;
  /** Now. */
  clock: () => Date;
  /** What a write of new text does with a detected secret (`Memo.secrets`). */
  secrets: SecretsPolicy;
}

/**
 * What the operations use of a `Memo` client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HistoryParts } from "./history_writes.ts";
 * const clock: HistoryParts["clock"] = () => new Date(0);
 * assert.equal(clock().getTime(), 0);
 * ```
 */
export interface HistoryParts extends HistoryWriteParts {
  store: MemoryStore;
  /** The client's notes (caught up by `sync`). */
  mirror: NoteMirror;
}

/** A note with new content, times and hash (kept shape: absent fields stay absent). */
function rebuilt(base: Note, content: PreparedNoteContent, updated: string): Note {
  const note: Note = content.source === undefined && base.source === undefined
    ? {
      id: base.id,
      title: content.title,
      body: content.body,
      labels: content.labels,
      hash: "",
      created: base.created,
      updated,
    }
    : {
      id: base.id,
      title: content.title,
      body: content.body,
      labels: content.labels,
      source: base.source,
      hash: "",
      created: base.created,
      updated,
    };
  if (content.supersedes?.length) note.supersedes = content.supersedes;
  if (content.validFrom !== undefined) note.validFrom = content.validFrom;
  if (content.validUntil !== undefined) note.validUntil = content.validUntil;
  note.hash = contentHash(note);
  return note;
}

/** A stored note with other history fields (and a new `updated` and hash). */
function withHistory(
  note: Note,
  history: { supersedes?: string[]; validFrom?: string; validUntil?: string },
  updated: string,
): Note {
  const { supersedes: _s, validFrom: _f, validUntil: _u, supersededBy: _b, ...rest } = note;
  const next: Note = { ...rest, updated };
  if (history.supersedes?.length) next.supersedes = history.supersedes;
  if (history.validFrom !== undefined) next.validFrom = history.validFrom;
  if (history.validUntil !== undefined) next.validUntil = history.validUntil;
  next.hash = contentHash(next);
  return next;
}

/** Applies `plan()` until it lands (another writer may change what it read). */
async function landing<T>(
  parts: HistoryWriteParts,
  action: string,
  needs: HistoryNeeds,
  plan: () => { changes: ReplicaChanges; result: () => T } | { done: T },
): Promise<T> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    await parts.view.sync(needs);
    const planned = plan();
    if ("done" in planned) return planned.done;
    const applied = await parts.apply(planned.changes);
    if (applied.stale === undefined) {
      await parts.view.sync();
      return planned.result();
    }
  }
  throw new MemoryValidationError(`Cannot ${action}: notes.md kept changing while writing`);
}

/**
 * `Memo.correct`: a new note superseding `input.id` and the old note's validity ended, in one
 * atomic write. The secrets guard runs over the new text, title and labels first (`redacted`
 * says what it replaced; under `refuse` nothing is written).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note } = await memo.remember({ text: "Deploys run on Fridays" });
 * const { note: fixed } = await memo.correct({ id: note.id, text: "Deploys run on Mondays" });
 * assert.deepEqual((await memo.recall("deploys")).map((h) => h.note.id), [fixed.id]);
 * await assert.rejects(memo.correct({ id: "nope", text: "x" }), { code: "NOTE_NOT_FOUND" });
 * const npm = await memo.correct({ id: fixed.id, text: "Publish with npm_Zr8vQ2mW4kT9xN1pLc7Hs3Bd5Gf0Jy6Ra2Ue" });
 * assert.equal(npm.note.body, "Publish with [redacted:npm-token]");
 * assert.deepEqual(npm.redacted, [{ rule: "npm-token", field: "text" }]);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function correctNote(
  parts: HistoryWriteParts,
  input: CorrectInput,
): Promise<CorrectResult> {
  const id = String(input?.id ?? "");
  const action = `correct note ${id}`;
  const validFrom = input.validFrom === undefined
    ? undefined
    : normalizeValidTime(input.validFrom, "validFrom", action);
  if (typeof input.text !== "string" || input.text.trim() === "") {
    throw new MemoryValidationError(`Cannot ${action}: text is empty`);
  }
  // The new text, title and labels are guarded before anything is read or written (the old
  // note's labels, when kept, are stored already: `memo scan` is for those).
  const guarded = await guardDrafts(
    [{ text: input.text, title: input.title, labels: input.labels }],
    parts.secrets,
    "correct the note",
  );
  const { text, title, labels } = guarded.drafts[0];
  const redacted = guarded.redacted.length ? { redacted: guarded.redacted } : {};
  return await landing<CorrectResult>(parts, action, { ids: [id], text }, () => {
    const { view } = parts;
    const old = view.get(id);
    if (!old) throw new NoteNotFoundError(id);
    const now = parts.clock();
    const nowIso = now.toISOString();
    const end = validFrom ?? nowIso;
    if (old.validFrom !== undefined && !(validTimeMs(old.validFrom) < validTimeMs(end))) {
      throw new MemoryValidationError(
        `Cannot ${action}: the new fact must start after the old one (its validFrom is ${old.validFrom})`,
      );
    }
    let fixed: Note;
    const twin = view.sameText(text);
    if (twin?.id === old.id) {
      throw new MemoryValidationError(`Cannot ${action}: the new text is the note's own`);
    }
    if (twin) {
      // The new fact is stored already: that note supersedes the old one.
      const had = twin.supersedes ?? [];
      fixed = had.includes(old.id) && (validFrom === undefined || twin.validFrom === validFrom)
        ? twin
        : withHistory(twin, {
          supersedes: had.includes(old.id) ? had : [...had, old.id],
          validFrom: validFrom ?? twin.validFrom,
          validUntil: twin.validUntil,
        }, nowIso);
    } else {
      const content = prepareDraft({
        text,
        title,
        labels: labels ?? old.labels,
        supersedes: [old.id],
        validFrom,
      });
      let newId = newNoteId(now);
      while (view.get(newId)) newId = newNoteId(now);
      fixed = rebuilt(
        { id: newId, title: "", body: "", labels: [], hash: "", created: nowIso, updated: nowIso },
        content,
        nowIso,
      );
    }
    const ended = old.validUntil !== undefined && validTimeMs(old.validUntil) <= validTimeMs(end)
      ? old
      : withHistory(old, {
        supersedes: old.supersedes,
        validFrom: old.validFrom,
        validUntil: end,
      }, nowIso);
    const put = [fixed, ended].filter((n) => n !== view.get(n.id));
    const read = checkChain(view, fixed, put, action);
    const result = () => ({
      note: view.withLinks(view.get(fixed.id) ?? fixed),
      superseded: [old.id],
      ...redacted,
    });
    if (!put.length) return { done: result() };
    return {
      changes: { put, remove: [], expect: expectOf(view, [old.id, fixed.id, ...read]) },
      result,
    };
  });
}

/**
 * `Memo.supersede`: note `by` gains `ids` in its `supersedes`, in one atomic write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note: a } = await memo.remember({ text: "Staging is eu-west-1" });
 * const { note: b } = await memo.remember({ text: "Staging lives in eu-west-1" });
 * await memo.supersede({ ids: [a.id], by: b.id });
 * await assert.rejects(memo.supersede({ ids: [b.id], by: a.id }), /cycle/);
 * assert.equal((await memo.list()).total, 1);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function supersedeNotes(
  parts: HistoryWriteParts,
  input: SupersedeInput,
): Promise<SupersedeResult> {
  const by = String(input?.by ?? "");
  const action = `supersede with note ${by}`;
  const ids = input?.ids as unknown;
  if (!Array.isArray(ids) || !ids.length || !ids.every((id) => typeof id === "string")) {
    throw new MemoryValidationError(`Cannot ${action}: ids must be a list of note ids`);
  }
  const wanted = [...new Set(ids as string[])];
  return await landing<SupersedeResult>(parts, action, { ids: [by, ...wanted] }, () => {
    const { view } = parts;
    const keeper = view.get(by);
    if (!keeper) throw new NoteNotFoundError(by);
    const had = keeper.supersedes ?? [];
    const adds = wanted.filter((id) => !had.includes(id));
    const result = (superseded: string[]) => () => ({
      note: view.withLinks(view.get(by) ?? keeper),
      superseded,
    });
    if (!adds.length) return { done: result([])() };
    const next = withHistory(keeper, {
      supersedes: [...had, ...adds],
      validFrom: keeper.validFrom,
      validUntil: keeper.validUntil,
    }, parts.clock().toISOString());
    const read = checkChain(view, next, [next], action);
    return {
      changes: { put: [next], remove: [], expect: expectOf(view, [by, ...read]) },
      result: result(adds),
    };
  });
}
