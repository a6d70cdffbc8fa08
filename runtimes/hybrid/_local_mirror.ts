/**
 * The replicator's copy of the local notes, kept in step through the store's
 * change tokens, and the outbox computed from it.
 *
 * @module
 */

import type { Memo, MemoryStore, Note, ReplicaChanges } from "@memo/memory";
import { fingerprint, identityOf, type LocalView, type Outbox } from "./_replica_plan.ts";
import type { PushedEntry } from "./_replica_state.ts";

/** The scopes that replicate: the project's, and the user's when it has a runtime of its own. */
export type ReplicaScope = "project" | "user";

/**
 * The store of `scope` in `memo`: the project's (the store itself when it serves no scopes), or
 * the user's, which only a store that serves scopes has.
 */
export async function scopeStoreOf(memo: Memo, scope: ReplicaScope): Promise<MemoryStore> {
  const { projectStoreOf, ScopedMemoryStore } = await import("@memo/memory");
  if (scope === "project") return projectStoreOf(memo.store);
  if (!(memo.store instanceof ScopedMemoryStore)) {
    throw new Error("Cannot replicate the user scope: this memory serves the project alone");
  }
  return memo.store.store("user");
}

/** The local notes (of one scope) as the replicator last saw them. */
export class LocalMirror {
  /** The scope mirrored: only its notes replicate, and pulled notes go to it. */
  readonly scope: ReplicaScope;
  #notes = new Map<string, Note>();
  #token: string | undefined;
  #identity: Map<string, Note> | undefined;
  /** Ids whose outbox standing may have changed (the others are known clean). */
  #dirty = new Set<string>();
  /** Every id must be looked at again (a reload of the notes or of the state). */
  #dirtyAll = true;

  /** A mirror of `scope`'s notes. */
  constructor(scope: ReplicaScope = "project") {
    this.scope = scope;
  }

  /** The outbox standing of `id` may have changed. */
  touch(id: string): void {
    this.#dirty.add(id);
  }

  /** Every id's outbox standing may have changed. */
  touchAll(): void {
    this.#dirtyAll = true;
  }

  /** The outbox now, looking only at the ids that may have changed since the last look. */
  outbox(pushed: ReadonlyMap<string, PushedEntry>): Outbox {
    if (this.#dirtyAll) {
      this.#dirty = new Set([...this.#notes.keys(), ...pushed.keys()]);
      this.#dirtyAll = false;
    }
    const out: Outbox = { deletes: [], updates: [], creates: [] };
    for (const id of this.#dirty) {
      const note = this.#notes.get(id);
      const known = pushed.get(id);
      if (!note) {
        if (known) out.deletes.push(id);
        else this.#dirty.delete(id);
      } else if (!known) out.creates.push(note);
      else if (known[0] !== fingerprint(note)) out.updates.push(note);
      else this.#dirty.delete(id);
    }
    // In the order they were written (ids sort by creation time).
    const order = (a: Note, b: Note) =>
      a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1;
    out.creates.sort(order);
    out.updates.sort((a, b) => a.updated < b.updated ? -1 : a.updated > b.updated ? 1 : 0);
    return out;
  }

  /** Takes in what changed in the local notes since the last look. */
  async refresh(memo: Memo): Promise<void> {
    // Only this scope's notes replicate: the local scope never reaches a cloud, and the project's
    // and the user's each reach their own.
    const changes = await (await scopeStoreOf(memo, this.scope)).changesSince(this.#token);
    if (changes.reset) {
      this.#notes = new Map();
      this.#dirtyAll = true;
    }
    for (const id of changes.removed) {
      this.#notes.delete(id);
      this.#dirty.add(id);
    }
    for (const note of changes.upserted) {
      this.#notes.set(note.id, note);
      this.#dirty.add(note.id);
    }
    if (changes.reset || changes.removed.length || changes.upserted.length) {
      this.#identity = undefined;
    }
    this.#token = changes.token;
  }

  /** The notes as the pull plan sees them. */
  view(): LocalView {
    return {
      get: (id) => this.#notes.get(id),
      findIdentity: (note) => {
        if (!this.#identity) {
          this.#identity = new Map();
          for (const n of this.#notes.values()) {
            const key = identityOf(n);
            if (!this.#identity.has(key)) this.#identity.set(key, n);
          }
        }
        return this.#identity.get(identityOf(note));
      },
    };
  }

  /**
   * Applies planned local changes, provided the notes they touch are still
   * as planned; false when another writer changed one meanwhile.
   */
  async apply(memo: Memo, put: Note[], remove: string[]): Promise<boolean> {
    if (!put.length && !remove.length) return true;
    const expect: Record<string, string | null> = {};
    for (const id of [...put.map((n) => n.id), ...remove]) {
      expect[id] = this.#notes.get(id)?.hash ?? null;
    }
    const changes: ReplicaChanges = { put, remove, expect, scope: this.scope };
    const result = await memo.applyReplica(changes);
    await this.refresh(memo);
    return result.stale === undefined;
  }
}
