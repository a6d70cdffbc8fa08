/**
 * {@linkcode ScopedMemoryStore}: one {@linkcode MemoryStore} over the stores of several scopes, so
 * that one `Memo` client (one index, one ranking) reads them all and writes each note where it
 * belongs. Each scope keeps its own store, with its own lock, durability and recovery.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import type { Note, NoteDraft, NotePatch } from "../notes/note.ts";
import type {
  CommitBatch,
  CommitOptions,
  CommitResult,
  MemoryStore,
  NotePage,
  ReplicaApplyResult,
  ReplicaChanges,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
  WriteOptions,
} from "../store/store.ts";
import type { UnresolvedMerge } from "../store/conflict_markers.ts";
import { loadDigestsOf, offerLoadDigests } from "../store/load_digest.ts";
import { isScope, parseScope, type Scope, SCOPES } from "./scopes.ts";
import { MoveJournal } from "./_move_journal.ts";
import {
  encodeToken,
  parseToken,
  pick,
  scopedSnapshot,
  tag,
  tagAll,
  withoutScope,
} from "./_scoped_parts.ts";

/**
 * Options of {@linkcode ScopedMemoryStore}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, type ScopedStoreOptions } from "@memo/memory";
 * const options: ScopedStoreOptions = { stores: { project: new FileMemoryStore({ rootDir: "/p" }) } };
 * assert.ok(options.stores.project);
 * ```
 */
export interface ScopedStoreOptions {
  /** The store of each scope served; a scope without one is not served. */
  stores: Partial<Record<Scope, MemoryStore>>;
  /**
   * Where a draft without `scope` goes.
   * @default "project" (else the first scope served)
   */
  defaultScope?: Scope;
  /**
   * Why the scopes left out are not served, for the error that refuses them (`"this endpoint is
   * hosted: it serves the project scope only"`).
   * @default "it is not configured (the config key scopes)"
   */
  refusal?: string;
  /**
   * The file that records a move between scopes while it runs (`.memo/cache/scope-move.json`);
   * without it, a move killed halfway may leave the note in both scopes.
   * @default none
   */
  journalPath?: string;
  /**
   * Runs before the first write into a scope in this process (`openScopedStore`: the local
   * scope's lines in `.memo/.gitignore`, for a project made before scopes).
   * @default none
   */
  beforeFirstWrite?: (scope: Scope) => Promise<void>;
}

/** The holder of an id, its store, and the note. */
interface Found {
  scope: Scope;
  store: MemoryStore;
  note: Note;
}

/**
 * A store over the stores of several scopes (`project`, `local`, `user`).
 *
 * - Reads list the project's notes first, then `local`'s, then `user`'s; every note of another
 *   scope than `project` carries `scope`. When two scopes hold one id (a move out of the project
 *   that git or a replica brought back), reads show the project's copy, then `local`'s.
 * - A draft goes to its `scope`, else to the scope of the notes it supersedes, else to
 *   `defaultScope`. `supersedes` never crosses scopes: such a write throws
 *   `MemoryValidationError` and writes nothing.
 * - `update` with a `scope` other than the note's moves it (same id): the journal records the
 *   move, the note is written into the new scope, removed from the old one, and the journal is
 *   cleared. A move killed halfway is finished at the next `load()`.
 * - `applyReplica` goes to `changes.scope`, else to the project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { FileMemoryStore, ScopedMemoryStore } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = new ScopedMemoryStore({
 *   stores: {
 *     project: new FileMemoryStore({ rootDir: dir }),
 *     local: new FileMemoryStore({ rootDir: dir, notesPath: join(dir, ".memo/memory/notes.local.md") }),
 *   },
 *   journalPath: join(dir, ".memo/cache/scope-move.json"),
 * });
 * await store.load();
 * const { written } = await store.commit({ notes: [{ text: "Use pnpm", scope: "local" }] });
 * assert.equal(written[0].scope, "local");
 * const moved = await store.update(written[0].id, { scope: "project" });
 * assert.equal(moved?.id, written[0].id);
 * assert.equal(moved?.scope, undefined); // a project note carries no tag
 * assert.equal((await store.changesSince()).upserted.length, 1);
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class ScopedMemoryStore implements MemoryStore {
  /** The scopes served, in read order. */
  readonly scopes: readonly Scope[];
  /** Where a draft without `scope` goes. */
  readonly defaultScope: Scope;
  readonly #stores: Partial<Record<Scope, MemoryStore>>;
  readonly #refusal: string;
  readonly #journal: MoveJournal | undefined;
  /**
   * Ids held by each scope but the project (small sets: the project's ids stay in its store),
   * brought up to the stores (`#refreshIds`) at the start of every call that reads them.
   */
  readonly #ids = new Map<Scope, Set<string>>();
  readonly #idTokens = new Map<Scope, string>();
  readonly #beforeFirstWrite: ((scope: Scope) => Promise<void>) | undefined;
  readonly #written = new Set<Scope>();
  /** The last token {@linkcode ScopedMemoryStore.changesSince} gave, and its scopes' tokens. */
  #lastToken: string | undefined;
  #lastTokens: Partial<Record<Scope, string>> | undefined;

  /** Creates the store; nothing is read until {@linkcode ScopedMemoryStore.load}. */
  constructor(options: ScopedStoreOptions) {
    this.scopes = SCOPES.filter((s) => options.stores[s] !== undefined);
    if (!this.scopes.length) throw new MemoryValidationError("A scoped store needs one scope");
    this.#stores = options.stores;
    this.#refusal = options.refusal ?? "it is not configured (the config key scopes)";
    const wanted = options.defaultScope ?? "project";
    this.defaultScope = this.scopes.includes(wanted) ? wanted : this.scopes[0];
    this.#journal = options.journalPath ? new MoveJournal(options.journalPath) : undefined;
    this.#beforeFirstWrite = options.beforeFirstWrite;
    for (const s of this.scopes) if (s !== "project") this.#ids.set(s, new Set());
    // The index snapshot covers the project's notes, which reads list first.
    const project = options.stores.project && loadDigestsOf(options.stores.project);
    if (project) offerLoadDigests(this, project);
  }

  /** The store of `scope`; throws `MemoryValidationError` when it is not served. */
  store(scope: Scope): MemoryStore {
    const store = this.#stores[scope];
    if (!store) {
      throw new MemoryValidationError(`The ${scope} scope is not served here: ${this.#refusal}`, {
        details: { field: "scope", scope },
      });
    }
    return store;
  }

  /** The store of `scope`, ready for a write (the first write's hook has run). */
  async #writable(scope: Scope): Promise<MemoryStore> {
    const store = this.store(scope);
    if (this.#beforeFirstWrite && !this.#written.has(scope)) {
      await this.#beforeFirstWrite(scope);
      this.#written.add(scope);
    }
    return store;
  }

  /** Checks that every scope of `scopes` is served (what a read narrowed by scope asks). */
  checkServed(scopes: readonly Scope[]): void {
    for (const s of scopes) this.store(s);
  }

  /** The project store's files (its `notes.md`), when it has them: what `memo scan` reports lines of. */
  get paths(): { notes?: string } | undefined {
    return (this.#stores.project as { paths?: { notes?: string } } | undefined)?.paths;
  }

  /** Problems known now, each scope's (a scope other than the project's names itself). */
  get issues(): StoreIssue[] {
    return this.scopes.flatMap((s) =>
      (this.#stores[s]!.issues ?? []).map((i) =>
        s === "project" ? i : { ...i, message: `${s} scope: ${i.message}` }
      )
    );
  }

  /** The first scope's unresolved git merge, if any (the project's, in practice). */
  get unresolvedMerge(): UnresolvedMerge | undefined {
    for (const s of this.scopes) {
      const merge = this.#stores[s]!.unresolvedMerge;
      if (merge) return merge;
    }
    return undefined;
  }

  /** Loads every scope, then finishes a move that was killed halfway. */
  async load(): Promise<StoreLoadReport> {
    const reports = await Promise.all(this.scopes.map((s) => this.#stores[s]!.load()));
    if (this.#journal) await this.#finishMove();
    return {
      notes: reports.reduce((n, r) => n + r.notes, 0),
      issues: this.issues,
    };
  }

  /** Scopes that hold `id`, in read order, with their notes. */
  async #holders(id: string): Promise<Found[]> {
    const found: Found[] = [];
    for (const scope of this.scopes) {
      const ids = this.#ids.get(scope);
      if (ids && !ids.has(id)) continue; // known not to be there (as of the last read)
      const store = this.#stores[scope]!;
      const note = await store.get(id);
      if (note) found.push({ scope, store, note });
    }
    return found;
  }

  async #find(id: string): Promise<Found | undefined> {
    await this.#refreshIds();
    return (await this.#holders(id))[0];
  }

  /** Brings the id sets of the scopes other than the project up to their stores. */
  async #refreshIds(): Promise<void> {
    for (const [scope, ids] of this.#ids) {
      const changes = await this.#stores[scope]!.changesSince(this.#idTokens.get(scope));
      if (changes.reset) ids.clear();
      for (const id of changes.removed) ids.delete(id);
      for (const n of changes.upserted) ids.add(n.id);
      this.#idTokens.set(scope, changes.token);
    }
  }

  /**
   * The scope of a draft or a note to write, and a check of its `supersedes` (its callers have
   * brought the id sets up to date).
   */
  async #scopeFor(
    entry: { id?: string; scope?: unknown; supersedes?: readonly string[] },
    action: string,
    held: Scope | undefined,
  ): Promise<Scope> {
    let scope: Scope | undefined = entry.scope === undefined
      ? held
      : parseScope(entry.scope, "scope");
    for (const target of entry.supersedes ?? []) {
      const found = (await this.#holders(String(target)))[0];
      if (!found) continue; // unknown ids are the history checks' to refuse
      if (scope === undefined) scope = found.scope;
      else if (found.scope !== scope) {
        throw new MemoryValidationError(
          `Cannot ${action}: supersedes links stay within one scope, and ${target} is in the ` +
            `${found.scope} scope, not ${scope}`,
          { details: { field: "supersedes", id: target } },
        );
      }
    }
    scope ??= this.defaultScope;
    this.store(scope);
    return scope;
  }

  /** Stores the drafts, each in its scope (one commit per scope, in read order). */
  async commit(batch: CommitBatch, options?: CommitOptions): Promise<CommitResult> {
    const groups = new Map<Scope, NoteDraft[]>();
    await this.#refreshIds();
    for (const draft of batch.notes) {
      let held: Scope | undefined;
      if (draft.id !== undefined) {
        const holders = await this.#holders(String(draft.id));
        held = holders[0]?.scope;
        if (held !== undefined && draft.scope !== undefined && held !== draft.scope) {
          throw new MemoryValidationError(
            `Cannot remember note ${draft.id}: its id is held by the ${held} scope (ids are ` +
              "unique across scopes; update it with another scope to move it)",
            { details: { field: "id", id: draft.id } },
          );
        }
      }
      const scope = await this.#scopeFor(draft, "remember the note", held);
      let group = groups.get(scope);
      if (!group) groups.set(scope, group = []);
      group.push(draft.scope === undefined ? draft : withoutScope(draft));
    }
    const result: CommitResult = { written: [], updated: [], unchanged: [], bytesWritten: 0 };
    for (const scope of this.scopes) {
      const drafts = groups.get(scope);
      if (!drafts) continue;
      const one = await (await this.#writable(scope)).commit({ notes: drafts }, options);
      result.written.push(...tagAll(one.written, scope));
      result.updated.push(...tagAll(one.updated, scope));
      result.unchanged.push(...tagAll(one.unchanged, scope));
      result.bytesWritten += one.bytesWritten;
    }
    return result;
  }

  /** Changes a note where it is; with another `scope`, moves it there (same id). */
  async update(id: string, patch: NotePatch, options?: WriteOptions): Promise<Note | undefined> {
    const found = await this.#find(id);
    if (!found) return undefined;
    const { scope: wanted, ...rest } = patch;
    const target = wanted === undefined ? found.scope : parseScope(wanted, "scope");
    if (rest.supersedes !== undefined) {
      await this.#scopeFor(
        { scope: target, supersedes: rest.supersedes },
        `update note ${id}`,
        target,
      );
    }
    const changes = Object.keys(rest).length > 0;
    if (target === found.scope) {
      return changes
        ? tag(await found.store.update(id, rest, options), target)
        : tag(found.note, target);
    }
    // A move: every check first, then the note as it is goes to its new scope (journalled), and
    // only then does the change apply, there; a refused or failed move leaves the note as it was.
    options?.signal?.throwIfAborted();
    const moved = await this.#move(id, found.note, found.scope, target, patch.updated);
    if (!changes) return moved;
    return tag(await (await this.#writable(target)).update(id, rest, options), target);
  }

  /** Moves `note` from one scope to another, journalled so that a kill halfway is finished. */
  async #move(
    id: string,
    note: Note,
    from: Scope,
    to: Scope,
    updated: string | undefined,
  ): Promise<Note> {
    const action = `move note ${id} to the ${to} scope`;
    const target = await this.#writable(to);
    if (note.supersedes?.length) {
      throw new MemoryValidationError(
        `Cannot ${action}: it supersedes notes of the ${from} scope, and supersedes links stay ` +
          "within one scope",
        { details: { field: "scope", id } },
      );
    }
    const by = await supersederOf(this.#stores[from]!, id);
    if (by !== undefined) {
      throw new MemoryValidationError(
        `Cannot ${action}: note ${by} of the ${from} scope supersedes it, and supersedes links ` +
          "stay within one scope",
        { details: { field: "scope", id } },
      );
    }
    if (!target.applyReplica) {
      throw new MemoryValidationError(`Cannot ${action}: its store cannot write notes verbatim`);
    }
    const source = this.#stores[from]!;
    const { scope: _s, supersededBy: _b, ...plain } = note;
    const moved: Note = { ...plain, updated: updated ?? new Date().toISOString() };
    await this.#journal?.write({ id, from, to });
    await target.applyReplica({ put: [moved], remove: [] });
    await source.remove(id);
    await this.#journal?.clear();
    return tag((await target.get(id)) ?? moved, to)!;
  }

  /** Completes the move the journal records, if one was killed halfway (at `load()`). */
  async #finishMove(): Promise<void> {
    const entry = await this.#journal!.read();
    if (!entry) return;
    const from = this.#stores[entry.from];
    const to = this.#stores[entry.to];
    // A process that does not serve both scopes cannot finish it: it is left to one that does.
    if (!from || !to) return;
    if ((await to.get(entry.id)) && (await from.get(entry.id))) {
      await from.remove(entry.id); // written into its new scope: the move goes through
    }
    await this.#journal!.clear();
  }

  /** Removes a note from the scope that holds it (the first, when two do). */
  async remove(id: string, options?: WriteOptions): Promise<boolean> {
    const found = await this.#find(id);
    return found ? await found.store.remove(id, options) : false;
  }

  /** One note by id, from the first scope that holds it. */
  async get(id: string): Promise<Note | undefined> {
    const found = await this.#find(id);
    return found && tag(found.note, found.scope);
  }

  /** Every scope's notes in read order, a page at a time (cursor: scope and its own cursor). */
  async list(cursor?: string, limit?: number): Promise<NotePage> {
    let at = 0;
    let inner: string | undefined;
    if (cursor !== undefined) {
      const m = /^(\w+):(.*)$/s.exec(cursor);
      if (!m || !isScope(m[1]) || !this.scopes.includes(m[1])) {
        throw new MemoryValidationError("Cannot list notes: the cursor is not one this store gave");
      }
      at = this.scopes.indexOf(m[1]);
      inner = m[2] === "" ? undefined : m[2];
    }
    for (; at < this.scopes.length; at++, inner = undefined) {
      const scope = this.scopes[at];
      const page = await this.#stores[scope]!.list(inner, limit);
      const next = page.nextCursor !== undefined
        ? `${scope}:${page.nextCursor}`
        : at + 1 < this.scopes.length
        ? `${this.scopes[at + 1]}:`
        : undefined;
      if (page.notes.length || next === undefined) {
        const out: NotePage = { notes: tagAll(page.notes, scope) };
        if (next !== undefined) out.nextCursor = next;
        return out;
      }
    }
    return { notes: [] };
  }

  /**
   * Changes since `token` across the scopes. When one scope resets, every scope's notes are
   * given again (`reset`), the project's first. An id two scopes hold is given once, from the
   * first of them in read order.
   */
  async changesSince(token?: string): Promise<StoreChanges> {
    const last = token !== undefined && token === this.#lastToken;
    const scopes = this.scopes;
    const tokens = last ? this.#lastTokens : parseToken(token, scopes);
    const parts = scopes.length === 1
      ? [await this.#stores[scopes[0]]!.changesSince(tokens?.[scopes[0]])]
      : await Promise.all(scopes.map((s) => this.#stores[s]!.changesSince(tokens?.[s])));
    const reset = tokens === undefined || parts.some((p) => p.reset);
    if (last && !reset && parts.every((p, i) => unchanged(p, tokens[scopes[i]]))) {
      return { token: token!, reset, upserted: [], removed: [] }; // a recall's check, most often
    }
    const all = reset
      ? await Promise.all(
        parts.map((p, i) => p.reset ? p : this.#stores[scopes[i]]!.changesSince(undefined)),
      )
      : parts;
    // The other scopes' id sets answer which copy of a changed note shows: they are brought up to
    // the stores only when something changed. Nothing changed (a recall's check) costs one stat a
    // scope, not two.
    if (this.#ids.size > 0 && all.some((p) => p.removed.length > 0 || p.upserted.length > 0)) {
      await this.#refreshIds();
    }
    const next: Record<string, string> = {};
    const upserted: Note[] = [];
    const removed: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < scopes.length; i++) {
      const scope = scopes[i];
      const part = all[i];
      next[scope] = part.token;
      if (scopes.length === 1 && scope === "project") {
        return {
          token: this.#remember(next),
          reset,
          upserted: part.upserted,
          removed: part.removed,
        };
      }
      for (const note of part.upserted) {
        // After a reset the earlier scopes' notes are all in `seen`; else they are asked for.
        if (seen.has(note.id) || (!reset && await this.#shadowed(note.id, i))) continue;
        seen.add(note.id);
        upserted.push(scope === "project" ? note : tag(note, scope)!);
      }
      for (const id of part.removed) {
        // Another scope may still hold the id: its copy shows now.
        const other = (await this.#holders(id))[0];
        if (other && !seen.has(id)) {
          seen.add(id);
          upserted.push(tag(other.note, other.scope)!);
        } else if (!other) removed.push(id);
      }
    }
    return { token: this.#remember(next), reset, upserted, removed };
  }

  /** The token of these scopes' tokens, kept with them: the next check need not parse it. */
  #remember(tokens: Record<string, string>): string {
    this.#lastToken = encodeToken(tokens);
    this.#lastTokens = tokens;
    return this.#lastToken;
  }

  /** Whether a scope before the `at`th holds `id` (its copy is the one reads show). */
  async #shadowed(id: string, at: number): Promise<boolean> {
    for (let j = 0; j < at; j++) {
      const scope = this.scopes[j];
      const ids = this.#ids.get(scope);
      if (ids ? ids.has(id) : (await this.#stores[scope]!.get(id)) !== undefined) return true;
    }
    return false;
  }

  /**
   * Writes notes verbatim into `changes.scope` (else each put note's `scope`, else the project):
   * what the hybrid runtime pulls, and what history writes (corrections, merges) land with.
   */
  async applyReplica(changes: ReplicaChanges): Promise<ReplicaApplyResult> {
    await this.#refreshIds();
    const groups = new Map<Scope, { put: Note[]; remove: string[] }>();
    const group = (s: Scope) => {
      let g = groups.get(s);
      if (!g) groups.set(s, g = { put: [], remove: [] });
      return g;
    };
    const fixed = changes.scope === undefined ? undefined : parseScope(changes.scope, "scope");
    for (const note of changes.put) {
      const held = fixed ?? (await this.#holders(note.id))[0]?.scope ?? note.scope;
      const scope = fixed ?? await this.#scopeFor(
        { scope: held, supersedes: note.supersedes },
        `write note ${note.id}`,
        held,
      );
      const { scope: _s, ...plain } = note;
      group(scope).put.push(plain);
    }
    for (const id of changes.remove) {
      const scope = fixed ?? (await this.#holders(id))[0]?.scope;
      if (scope) group(scope).remove.push(id);
    }
    // The snapshot's SHA-256 covers every scope's file: one check guards them all (a tidy plan's
    // merges in two scopes land as one write a scope, each guarded by its notes' hashes).
    if (changes.expectSha256 !== undefined) {
      const now = await this.snapshot();
      if (now.sha256 !== changes.expectSha256) {
        throw new MemoryValidationError(
          "Cannot write the notes: the notes' SHA-256 differs from the expected one",
        );
      }
    }
    const result: ReplicaApplyResult = { written: [], updated: [], removed: [], bytesWritten: 0 };
    for (const scope of this.scopes) {
      const g = groups.get(scope);
      if (!g) continue;
      const store = await this.#writable(scope);
      if (!store.applyReplica) {
        throw new MemoryValidationError(`Cannot write notes verbatim into the ${scope} scope`);
      }
      const expect = changes.expect &&
        pick(changes.expect, [...g.put.map((n) => n.id), ...g.remove]);
      const one = await store.applyReplica({ put: g.put, remove: g.remove, expect });
      if (one.stale) return { ...result, stale: one.stale };
      result.written.push(...one.written);
      result.updated.push(...one.updated);
      result.removed.push(...one.removed);
      result.bytesWritten += one.bytesWritten;
    }
    return result;
  }

  /**
   * Every scope's notes, tagged, and one SHA-256 over every scope's file (a tidy plan's guard):
   * a scope's store without `snapshot` counts by its notes.
   */
  snapshot(): Promise<{ sha256: string; notes: Note[] }> {
    return scopedSnapshot(this.scopes, this.#stores);
  }

  /** Closes every scope's store. */
  async close(): Promise<void> {
    await Promise.all(this.scopes.map((s) => this.#stores[s]!.close?.()));
  }
}

/**
 * The project's own store when `store` is a {@linkcode ScopedMemoryStore}, else `store`: what the
 * hybrid runtime replicates (no other scope reaches the cloud).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, projectStoreOf, ScopedMemoryStore } from "@memo/memory";
 * const project = new FileMemoryStore({ rootDir: "/p" });
 * assert.equal(projectStoreOf(new ScopedMemoryStore({ stores: { project } })), project);
 * assert.equal(projectStoreOf(project), project);
 * ```
 */
export function projectStoreOf(store: MemoryStore): MemoryStore {
  return store instanceof ScopedMemoryStore ? store.store("project") : store;
}

/** Whether a scope's changes since `token` are none: the same token back, nothing in it. */
function unchanged(part: StoreChanges, token: string | undefined): boolean {
  return part.token === token && part.upserted.length === 0 && part.removed.length === 0;
}

/** The id of a note of `store` that supersedes `id` (links stay within a scope), if any. */
async function supersederOf(store: MemoryStore, id: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await store.list(cursor, 1000);
    const by = page.notes.find((n) => n.supersedes?.includes(id));
    if (by) return by.id;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return undefined;
}
