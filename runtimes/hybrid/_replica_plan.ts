/**
 * The hybrid runtime's decisions, without I/O: what the outbox holds, how a pulled change lands on
 * the local notes, who wins a conflict, and what a push sends.
 *
 * Rules:
 * - a local note is **clean** when its hash is the one last pushed or pulled for its id, **dirty**
 *   otherwise (changed here, or never in the cloud);
 * - a conflict (a dirty note whose cloud copy moved on) is decided by `@memo/memory`'s
 *   `resolveConflict`, the rule the git merge driver applies too: the later `updated` wins, a tie
 *   goes to the larger content hash, and the loser is kept as a conflict copy;
 * - an update beats a delete, whichever came first;
 * - the cloud's id wins: a local note with the identity of a cloud note under another id is
 *   rewritten to that id.
 *
 * @module
 */

import {
  contentHash,
  type Note,
  noteIdentity,
  resolveConflict,
  sameNote,
  winsOver,
} from "@memo/memory";
import type {
  MemoCloudChange,
  MemoCloudDraft,
  MemoCloudNote,
  MemoCloudPatch,
} from "../cloud/client.ts";
import type { PushedEntry } from "./_replica_state.ts";

const fingerprints = new WeakMap<Note, string>();

/**
 * A note's content hash computed from what it holds now. The hash in a `notes.md` marker is kept
 * through hand edits (it is the note's identity there), so replication compares this instead; the
 * cloud's hashes are always computed.
 */
export function fingerprint(note: Note): string {
  let hash = fingerprints.get(note);
  if (hash === undefined) {
    hash = contentHash(note);
    fingerprints.set(note, hash);
  }
  return hash;
}

/** The cloud note without its revision. */
export function plainNote(note: MemoCloudNote): Note {
  const { revision: _revision, ...rest } = note;
  fingerprints.set(rest, note.hash); // the cloud computes its hashes from the content
  return rest;
}

/** Identity for dedupe, as the store and the cloud compute it (`noteIdentity`). */
export function identityOf(note: Note): string {
  return noteIdentity(note);
}

/** The local notes as a pull sees them while it plans one page. */
export interface LocalView {
  get(id: string): Note | undefined;
  /** A local note with this identity (any id). */
  findIdentity(note: Note): Note | undefined;
}

/** What applying one page of the change feed does. */
export interface PullPlan {
  /** Notes to write verbatim. */
  put: Map<string, Note>;
  /** Ids to remove. */
  remove: Set<string>;
  /** Pushed-map entries to set (or delete, with undefined). */
  pushed: Map<string, PushedEntry | undefined>;
  /** Changes that moved a local note. */
  applied: number;
  /** Conflicts resolved. */
  conflicts: number;
}

/**
 * Plans one page of the change feed against the local notes and the pushed map. `sent` maps ids to
 * the hash this process last sent for them, so that the echo of its own write is not taken for
 * someone else's.
 */
export function planPull(
  changes: readonly MemoCloudChange[],
  local: LocalView,
  pushed: ReadonlyMap<string, PushedEntry>,
  sent: ReadonlyMap<string, string> = new Map(),
): PullPlan {
  const plan: PullPlan = {
    put: new Map(),
    remove: new Set(),
    pushed: new Map(),
    applied: 0,
    conflicts: 0,
  };
  const view = (id: string): Note | undefined =>
    plan.remove.has(id) ? undefined : plan.put.get(id) ?? local.get(id);
  const entry = (id: string): PushedEntry | undefined =>
    plan.pushed.has(id) ? plan.pushed.get(id) : pushed.get(id);
  const planned = new Map<string, Note>(); // identity → note put by this plan
  const put = (note: Note) => {
    plan.remove.delete(note.id);
    plan.put.set(note.id, note);
    planned.set(identityOf(note), note);
    plan.applied++;
  };
  const remove = (id: string) => {
    plan.put.delete(id);
    plan.remove.add(id);
    plan.applied++;
  };
  const byIdentity = (note: Note): Note | undefined => {
    const mine = planned.get(identityOf(note));
    if (mine && plan.put.get(mine.id) === mine) return mine;
    const found = local.findIdentity(note);
    return found && view(found.id) === found ? found : undefined;
  };

  for (const change of changes) {
    const id = change.id;
    const known = entry(id);
    const mine = view(id);
    if (change.op === "delete") {
      if (known && known[1] >= change.revision) continue; // re-created since (an update won)
      if (!mine) {
        plan.pushed.set(id, undefined);
      } else if (known && fingerprint(mine) === known[0]) {
        remove(id);
        plan.pushed.set(id, undefined);
      } else {
        // Changed here since (or never pushed): the update wins; the push re-creates it.
        plan.pushed.set(id, undefined);
      }
      continue;
    }
    const cloud = plainNote(change.note);
    if (known && known[1] >= change.revision) continue; // already here (an echo, or older)
    plan.pushed.set(id, [cloud.hash, change.revision]);
    if (mine) {
      const current = fingerprint(mine);
      if (current === cloud.hash) {
        if (!sameNote(mine, cloud)) put(cloud);
      } else if (known && current === known[0]) {
        put(cloud); // clean here: take the cloud's
      } else if (sent.get(id) === cloud.hash) {
        // The echo of this process's own write (its answer was lost), and the note changed here
        // since: a later edit of the same note, no conflict. Ours stays dirty and is pushed.
      } else {
        plan.conflicts++;
        // The cloud's version first: on a full tie it wins, as it always did.
        const { winner, copy } = resolveConflict(cloud, mine);
        if (winner !== mine) put(cloud); // else ours stays dirty and is pushed over the cloud's
        if (copy) put(copy);
      }
      continue;
    }
    if (known) {
      put(cloud); // forgotten here but changed in the cloud: the update wins
      continue;
    }
    const twin = byIdentity(cloud);
    if (twin && twin.id !== id) {
      // The same note under another local id: the cloud's id wins.
      remove(twin.id);
      if (fingerprint(twin) !== cloud.hash && winsOver(twin, cloud)) {
        put({ ...twin, id, created: cloud.created });
      } else put(cloud);
      continue;
    }
    put(cloud);
  }
  return plan;
}

/** What the outbox holds now: the notes to delete, update and create in the cloud. */
export interface Outbox {
  /** Pushed ids that the local notes no longer hold. */
  deletes: string[];
  /** Local notes whose pushed hash differs. */
  updates: Note[];
  /** Local notes never pushed. */
  creates: Note[];
}

/** Number of changes in an outbox. */
export function outboxSize(outbox: Outbox): number {
  return outbox.deletes.length + outbox.updates.length + outbox.creates.length;
}

/** The draft that creates a local note in the cloud, under its local id. */
export function draftOf(note: Note): MemoCloudDraft {
  const draft: MemoCloudDraft = {
    id: note.id,
    text: note.body,
    title: note.title,
    labels: note.labels,
    created: note.created,
    updated: note.updated,
  };
  if (note.source !== undefined) draft.source = note.source;
  if (note.supersedes?.length) draft.supersedes = note.supersedes;
  if (note.validFrom !== undefined) draft.validFrom = note.validFrom;
  if (note.validUntil !== undefined) draft.validUntil = note.validUntil;
  return draft;
}

/** The PATCH of a local update: every field, history included (`[]` and `null` clear). */
export function patchOf(note: Note): MemoCloudPatch {
  return {
    text: note.body,
    title: note.title,
    labels: note.labels,
    updated: note.updated,
    supersedes: note.supersedes ?? [],
    validFrom: note.validFrom ?? null,
    validUntil: note.validUntil ?? null,
  };
}

/** The cloud note that a 409 answer carries, if any. */
export function noteIn(details: unknown): MemoCloudNote | undefined {
  const note = (details as { note?: unknown } | undefined)?.note as MemoCloudNote | undefined;
  return note && typeof note.id === "string" && typeof note.revision === "number"
    ? note
    : undefined;
}
