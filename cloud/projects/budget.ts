/**
 * {@linkcode IndexBudget}, what keeps the projects an instance holds in memory (their recall
 * indexes) within `MEMO_CLOUD_INDEX_BUDGET_MB`.
 *
 * - **Accounting.** Each held project reports its bytes (`byteLength()`: the index's arrays and
 *   tables, as memo estimates them) after every use.
 * - **Eviction.** After each use, the least recently used projects that no request is using are
 *   closed and dropped until the total is within the budget. A project in use is never dropped.
 * - **A project larger than the budget** is held alone: every other one that is not in use goes,
 *   and it stays until another project needs the room. `stats().oversized` names it.
 * - **Reopening** a project whose eviction is still closing waits for the close first (a file-store
 *   project must not have two owners).
 * - **Collection.** Evicted indexes are garbage until V8 collects them, and meanwhile the next loads
 *   take new memory from the system: an instance that cycled through many projects grew to 3–4 × its
 *   budget beyond one project's RSS. With `collect` (the stores pass a full collection), the budget
 *   runs it once an eighth of the budget has been evicted since the last one, and once more when the
 *   instance has been idle for `idleMs` after any eviction; the memory is then reused instead, and
 *   the idle one hands the allocator's free pages back to the system (`collectGarbage` in
 *   `platform/memory.ts`).
 *
 * @module
 */

import { unrefTimer } from "../../platform/mod.ts";

/**
 * What a note held in memory takes, estimated: its text as UTF-16 and a fixed cost for the object
 * and its fields.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteBytes } from "./budget.ts";
 *
 * const note = { id: "n1", title: "t", body: "b".repeat(100), labels: [], hash: "h", created: "", updated: "" };
 * assert.equal(noteBytes(note), 240 + 2 * 104);
 * ```
 */
export function noteBytes(
  note: {
    id: string;
    title: string;
    body: string;
    labels: readonly string[];
    source?: string;
    hash: string;
    created: string;
    updated: string;
  },
): number {
  let chars = note.id.length + note.title.length + note.body.length + note.hash.length +
    note.created.length + note.updated.length + (note.source?.length ?? 0);
  for (const label of note.labels) chars += label.length + 8;
  return 240 + 2 * chars;
}

/** Something the budget holds: it tells its size and can be closed. */
export interface Held {
  /** Bytes it holds now (an estimate). */
  byteLength(): number;
  /** Releases it once evicted (or when the budget closes). */
  close?(): Promise<void> | void;
}

/**
 * What {@linkcode IndexBudget.stats} reports (the `index` part of `GET /v1/stats`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { BudgetStats } from "./budget.ts";
 *
 * const stats: BudgetStats = {
 *   budgetBytes: 1024, bytes: 0, projects: 0, evictions: 0, hits: 0, misses: 0, hitRate: null,
 *   oversized: [], collections: 0,
 * };
 * assert.equal(stats.hitRate, null);
 * ```
 */
export interface BudgetStats {
  /** The budget, in bytes (`MEMO_CLOUD_INDEX_BUDGET_MB` × 2²⁰). */
  budgetBytes: number;
  /** Bytes the held projects account for, as of their last use. */
  bytes: number;
  /** Projects held. */
  projects: number;
  /** Projects dropped to stay within the budget, since the start. */
  evictions: number;
  /** Uses that found their project held. */
  hits: number;
  /** Uses that had to load their project. */
  misses: number;
  /** `hits / (hits + misses)`, or `null` before the first use. */
  hitRate: number | null;
  /** Held projects larger than the whole budget (each is then held alone). */
  oversized: { project: string; bytes: number; inUse: boolean }[];
  /** Full collections run after evictions, since the start. */
  collections: number;
}

/**
 * Options of {@linkcode IndexBudget}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IndexBudget, type IndexBudgetOptions } from "./budget.ts";
 *
 * const options: IndexBudgetOptions = { collect: () => {}, collectAfterBytes: 16 << 20 };
 * assert.equal(new IndexBudget(64 << 20, options).budgetBytes, 64 << 20);
 * ```
 */
export interface IndexBudgetOptions {
  /**
   * A full garbage collection, run after evictions (see the module doc); `idle` is true for the
   * one that runs once the instance is idle (it may also hand free memory back to the system).
   * @default none
   */
  collect?: (idle: boolean) => void;
  /** Bytes evicted since the last collection that call for one. @default an eighth of the budget */
  collectAfterBytes?: number;
  /** Idle time after an eviction that calls for a collection, in ms. @default 1000 */
  idleMs?: number;
}

interface Entry {
  held: Held;
  bytes: number;
  users: number;
}

/**
 * An LRU of held projects within a byte budget; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IndexBudget } from "./budget.ts";
 *
 * const budget = new IndexBudget(100);
 * const closed: string[] = [];
 * const project = (name: string, bytes: number) => () => ({
 *   byteLength: () => bytes,
 *   close: () => void closed.push(name),
 * });
 * await budget.use("a", project("a", 60), () => Promise.resolve());
 * await budget.use("b", project("b", 60), () => Promise.resolve()); // a goes
 * assert.deepEqual(closed, ["a"]);
 * await budget.use("b", project("b", 60), () => Promise.resolve()); // held: a hit
 * const stats = budget.stats();
 * assert.deepEqual([stats.projects, stats.bytes, stats.evictions, stats.hits, stats.misses], [1, 60, 1, 1, 2]);
 * ```
 */
export class IndexBudget {
  /** The budget in bytes. */
  readonly budgetBytes: number;
  /** Held entries, least recently used first (a use moves one to the end). */
  readonly #entries = new Map<string, Entry>();
  /** Evicted entries still closing, by key. */
  readonly #closing = new Map<string, Promise<void>>();
  #evictions = 0;
  #hits = 0;
  #misses = 0;
  #closed = false;
  readonly #collect?: (idle: boolean) => void;
  readonly #collectAfter: number;
  readonly #idleMs: number;
  /** Bytes evicted since the last collection. */
  #evicted = 0;
  /** Whether anything was evicted since the last idle collection. */
  #idleDue = false;
  #soonTimer: ReturnType<typeof setTimeout> | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #collections = 0;

  /** Creates a budget of `budgetBytes` (at least 1). */
  constructor(budgetBytes: number, options: IndexBudgetOptions = {}) {
    if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 1) {
      throw new RangeError("Cannot create the index budget: it must be at least 1 byte");
    }
    this.budgetBytes = budgetBytes;
    this.#collect = options.collect;
    this.#collectAfter = options.collectAfterBytes ?? Math.ceil(budgetBytes / 8);
    this.#idleMs = options.idleMs ?? 1000;
  }

  /**
   * Runs `fn` with the held object of `key`, opening it with `open` when it is not held. It counts
   * as in use until `fn` settles; then its size is read again and the budget enforced.
   */
  async use<T extends Held, R>(
    key: string,
    open: () => T,
    fn: (held: T) => Promise<R>,
  ): Promise<R> {
    if (this.#closed) throw new Error("Cannot use a project: the store is closed");
    let entry = this.#entries.get(key);
    if (entry) {
      this.#hits++;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    } else {
      this.#misses++;
      const closing = this.#closing.get(key);
      if (closing) await closing;
      // Another use may have opened it while this one waited.
      entry = this.#entries.get(key);
      if (!entry) {
        entry = { held: open(), bytes: 0, users: 0 };
        this.#entries.set(key, entry);
      }
    }
    entry.users++;
    try {
      return await fn(entry.held as T);
    } finally {
      entry.users--;
      if (this.#entries.get(key) === entry) {
        // Used last: the most recently used, whenever its use began.
        this.#entries.delete(key);
        this.#entries.set(key, entry);
        try {
          entry.bytes = entry.held.byteLength();
        } catch {
          // A size that cannot be read keeps the last one.
        }
      }
      this.#enforce();
    }
  }

  /** Whether `key` is held now (not evicted). */
  holds(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The accounting: see {@linkcode BudgetStats}. */
  stats(): BudgetStats {
    let bytes = 0;
    const oversized: BudgetStats["oversized"] = [];
    for (const [key, entry] of this.#entries) {
      bytes += entry.bytes;
      if (entry.bytes > this.budgetBytes) {
        oversized.push({ project: key, bytes: entry.bytes, inUse: entry.users > 0 });
      }
    }
    const uses = this.#hits + this.#misses;
    return {
      budgetBytes: this.budgetBytes,
      bytes,
      projects: this.#entries.size,
      evictions: this.#evictions,
      hits: this.#hits,
      misses: this.#misses,
      hitRate: uses === 0 ? null : this.#hits / uses,
      oversized,
      collections: this.#collections,
    };
  }

  /** Closes every held object; later uses fail. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#soonTimer);
    clearTimeout(this.#idleTimer);
    const held = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all([
      ...held.map((entry) => Promise.resolve(entry.held.close?.()).catch(() => {})),
      ...this.#closing.values(),
    ]);
  }

  /** Drops least recently used entries not in use while the total passes the budget. */
  #enforce(): void {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.bytes;
    for (const [key, entry] of this.#entries) {
      // The last project held stays, whatever its size: it is then held alone.
      if (total <= this.budgetBytes || this.#entries.size <= 1) break;
      if (entry.users > 0) continue;
      this.#entries.delete(key);
      this.#evictions++;
      total -= entry.bytes;
      this.#evicted += entry.bytes;
      this.#idleDue = true;
      const closing = Promise.resolve()
        .then(() => entry.held.close?.())
        .catch(() => {})
        .finally(() => {
          if (this.#closing.get(key) === closing) this.#closing.delete(key);
        });
      this.#closing.set(key, closing);
    }
    this.#scheduleCollection();
  }

  /**
   * A collection soon (once the closes ran) when an eighth of the budget was evicted since the last
   * one; and, whenever anything was evicted, one more after `idleMs` without a use, so that an
   * instance that went quiet holds no evicted index.
   */
  #scheduleCollection(): void {
    if (!this.#collect || this.#closed || !this.#idleDue) return;
    const run = (idle: boolean) => {
      if (this.#closed) return;
      this.#evicted = 0;
      this.#collections++;
      try {
        this.#collect!(idle);
      } catch {
        // A host without it: the memory is collected later, as V8 decides.
      }
    };
    if (this.#evicted >= this.#collectAfter && this.#soonTimer === undefined) {
      this.#soonTimer = unrefTimer(setTimeout(() => {
        this.#soonTimer = undefined;
        run(false);
      }, 0));
    }
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = unrefTimer(setTimeout(() => {
      this.#idleTimer = undefined;
      this.#idleDue = false;
      run(true);
    }, this.#idleMs));
  }
}
