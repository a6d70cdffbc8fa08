/**
 * The conflict rule shared by the hybrid runtime's replicator and the git merge driver: two
 * versions of one note, each changed on its own side, reconcile here and nowhere else.
 *
 * - the later `updated` wins; on a tie, the larger content hash ({@linkcode winsOver});
 * - the losing version becomes a conflict copy ({@linkcode conflictCopy});
 * - one exception keeps history true: two versions that differ only in `validUntil` (two
 *   corrections of one note) keep the earlier end, with no conflict copy;
 * - a conflict copy never brings back, as a live note, a fact that ended: when either version has
 *   a `validUntil`, the copy ends at the earlier one.
 *
 * @module
 */

import { contentHash, type Note } from "../notes/note.ts";

const hashes = new WeakMap<Note, string>();

/** The content hash of what a note holds now (a marker's hash survives hand edits). */
function currentHash(note: Note): string {
  let hash = hashes.get(note);
  if (hash === undefined) {
    hash = contentHash(note);
    hashes.set(note, hash);
  }
  return hash;
}

function timeMs(value: string): number {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? -Infinity : ms;
}

/**
 * Whether version `a` of a note wins over version `b`: the later `updated`, on a tie the larger
 * content hash (computed from the content). Every machine decides the same way; two versions with
 * the same time and content win over neither.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Note, winsOver } from "@memo/memory";
 * const a: Note = {
 *   id: "n1", title: "Deploys", body: "on Fridays", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const b: Note = { ...a, body: "on Mondays", updated: "2026-01-03T00:00:00.000Z" };
 * assert.equal(winsOver(b, a), true);
 * assert.equal(winsOver(a, b), false);
 * assert.equal(winsOver(a, a), false);
 * ```
 */
export function winsOver(a: Note, b: Note): boolean {
  const ta = timeMs(a.updated);
  const tb = timeMs(b.updated);
  if (ta !== tb) return tb < ta;
  return currentHash(a) > currentHash(b);
}

/**
 * The note that keeps a conflict's losing version: no source, labels `conflict` plus the loser's,
 * the loser's title, and a body that starts with `Conflict: superseded by <winner id>`. Its id and
 * times derive from the two versions, so every machine (and both directions of a git merge) that
 * resolves the same conflict makes the same note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictCopy, type Note } from "@memo/memory";
 * const loser: Note = {
 *   id: "n1", title: "Deploys", body: "on Fridays", labels: ["ops"], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const copy = conflictCopy(loser, "n1");
 * assert.match(copy.id, /^n1-conflict-[0-9a-f]{8}$/);
 * assert.deepEqual(copy.labels, ["conflict", "ops"]);
 * assert.equal(copy.body, "Conflict: superseded by n1\n\non Fridays");
 * assert.deepEqual(conflictCopy(loser, "n1"), copy); // the same conflict, the same note
 * ```
 */
export function conflictCopy(loser: Note, winnerId: string): Note {
  const labels = ["conflict", ...loser.labels.filter((l) => l !== "conflict")];
  const body = `Conflict: superseded by ${winnerId}\n\n${loser.body}`;
  const note: Note = {
    id: `${winnerId.slice(0, 44)}-conflict-${currentHash(loser).slice(0, 8)}`,
    title: loser.title,
    body,
    labels,
    hash: "",
    created: loser.updated,
    updated: loser.updated,
  };
  note.hash = contentHash(note);
  return note;
}

/**
 * A conflict copy that is not a live note: it ends at `validUntil` (the copy of a fact that was
 * superseded or ended must not bring it back).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { conflictCopy, contentHash, endedCopy, type Note } from "@memo/memory";
 * const loser: Note = {
 *   id: "n1", title: "Deploys", body: "on Fridays", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const ended = endedCopy(conflictCopy(loser, "n1"), "2026-01-05");
 * assert.equal(ended.validUntil, "2026-01-05");
 * assert.equal(ended.hash, contentHash(ended));
 * ```
 */
export function endedCopy(copy: Note, validUntil: string): Note {
  const note: Note = { ...copy, validUntil };
  note.hash = contentHash(note);
  return note;
}

/**
 * What {@linkcode resolveConflict} decides: the version kept, and the conflict copy of the other
 * one (none when the two differ only in `validUntil`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ConflictResolution, type Note, resolveConflict } from "@memo/memory";
 * const a: Note = {
 *   id: "n1", title: "t", body: "a", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const decided: ConflictResolution = resolveConflict(a, { ...a, body: "b" });
 * assert.ok(decided.copy);
 * ```
 */
export interface ConflictResolution {
  /** The version that stays under the note's id. */
  winner: Note;
  /** The losing version as a new note labelled `conflict`, if one is made. */
  copy?: Note;
}

/** Whether two versions differ in `validUntil` and in nothing else that a person wrote. */
function onlyValidUntilDiffers(a: Note, b: Note): boolean {
  return a.validUntil !== b.validUntil && a.title === b.title && a.body === b.body &&
    a.source === b.source && a.created === b.created && a.validFrom === b.validFrom &&
    sameSet(a.labels, b.labels) && sameSet(a.supersedes ?? [], b.supersedes ?? []);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

/** The earlier of two optional `validUntil` values (absent: never ends). */
function earlierEnd(a: Note, b: Note): string | undefined {
  if (a.validUntil === undefined) return b.validUntil;
  if (b.validUntil === undefined) return a.validUntil;
  const ta = timeMs(a.validUntil);
  const tb = timeMs(b.validUntil);
  if (ta !== tb) return ta < tb ? a.validUntil : b.validUntil;
  return a.validUntil < b.validUntil ? a.validUntil : b.validUntil;
}

/**
 * Reconciles two versions of one note that both changed (the hybrid runtime's conflict, a git
 * merge's edit/edit): the later `updated` wins (tie: the larger content hash) and the loser becomes
 * a {@linkcode conflictCopy}; two versions that differ only in `validUntil` keep the earlier end
 * without a copy; a copy of a version with a `validUntil` ends too ({@linkcode endedCopy}). The
 * answer does not depend on the order of the two arguments, except when they win over neither.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Note, resolveConflict } from "@memo/memory";
 * const base: Note = {
 *   id: "n1", title: "Deploys", body: "on Fridays", labels: [], hash: "",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-02T00:00:00.000Z",
 * };
 * const ours = { ...base, body: "on Mondays", updated: "2026-01-03T00:00:00.000Z" };
 * const theirs = { ...base, body: "on Tuesdays", updated: "2026-01-04T00:00:00.000Z" };
 * const { winner, copy } = resolveConflict(ours, theirs);
 * assert.equal(winner, theirs);
 * assert.equal(copy?.body, "Conflict: superseded by n1\n\non Mondays");
 * // Two corrections of one note: the earlier end of validity, no copy.
 * const x = { ...base, validUntil: "2026-02-01", updated: "2026-02-01T00:00:00.000Z" };
 * const y = { ...base, validUntil: "2026-03-01", updated: "2026-03-01T00:00:00.000Z" };
 * assert.deepEqual(resolveConflict(y, x), { winner: x });
 * ```
 */
export function resolveConflict(a: Note, b: Note): ConflictResolution {
  if (onlyValidUntilDiffers(a, b)) {
    return { winner: earlierEnd(a, b) === a.validUntil ? a : b };
  }
  const [winner, loser] = winsOver(b, a) ? [b, a] : [a, b];
  const copy = conflictCopy(loser, winner.id);
  const end = earlierEnd(a, b);
  return { winner, copy: end === undefined ? copy : endedCopy(copy, end) };
}
