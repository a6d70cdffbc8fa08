/**
 * Notes that stay true: the rules of `supersedes` chains and of the two clocks.
 *
 * - **Supersedes.** A note names the notes it replaces in its own `supersedes` (the newer note
 *   holds the link; it is the one source of truth). `supersededBy` is derived from those links
 *   when the notes are read. A link to an unknown id, to the note itself, or one that closes a
 *   cycle is refused when written.
 * - **Two clocks.** `created` and `updated` say when memo recorded a note; `validFrom` and
 *   `validUntil` (an ISO date, meaning 00:00 UTC, or date-time) say when the fact holds, in the
 *   range `[validFrom, validUntil)`.
 * - **Filters.** By default superseded notes are hidden; `includeSuperseded` brings them back.
 *   `asOf` answers with what memo had recorded by then and what held then; `since` and `until`
 *   filter on `created` (`[since, until)`).
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import type { Note } from "../notes/note.ts";
import { normalizeValidTime, validTimeMs } from "./validity.ts";
import { canonicalTime } from "./columns.ts";

export * from "./validity.ts";

/** An id as a note's marker holds it (kept here so this module needs nothing of `note.ts`). */
/**
 * Whether a note's fact holds at `ms`: `validFrom <= ms < validUntil`, each bound checked only
 * when given (and readable).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidAt } from "@memo/memory";
 * const note = { validFrom: "2026-01-01", validUntil: "2026-02-01" };
 * assert.equal(isValidAt(note, Date.UTC(2026, 0, 15)), true);
 * assert.equal(isValidAt(note, Date.UTC(2026, 1, 1)), false); // the end is exclusive
 * assert.equal(isValidAt({}, 0), true);
 * ```
 */
export function isValidAt(note: { validFrom?: string; validUntil?: string }, ms: number): boolean {
  if (note.validFrom !== undefined && validTimeMs(note.validFrom) > ms) return false;
  if (note.validUntil !== undefined && validTimeMs(note.validUntil) <= ms) return false;
  return true;
}

/**
 * The filters of recall and list over the notes' history (all optional).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HistoryFilter, openMemo } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir: dir });
 * const { note: old } = await memo.remember({ text: "Deploys run on Fridays" });
 * await memo.correct({ id: old.id, text: "Deploys run on Mondays" });
 * const history: HistoryFilter = { includeSuperseded: true };
 * assert.equal((await memo.list()).notes.length, 1); // the superseded note is hidden
 * assert.equal((await memo.list(history)).notes.length, 2);
 * await memo.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export interface HistoryFilter {
  /**
   * Also answer with superseded notes (each carries `supersededBy`).
   * @default false
   */
  includeSuperseded?: boolean;
  /**
   * An ISO date or date-time: answer with what memo had recorded by then and what held then:
   * notes created at or before it, not superseded by a note created at or before it, and valid
   * at it when they say when they hold.
   * @default none (now, without the validity check)
   */
  asOf?: string;
  /** Only notes created at or after this ISO date or date-time. */
  since?: string;
  /** Only notes created before this ISO date or date-time. */
  until?: string;
}

/**
 * A {@linkcode HistoryFilter}, checked, with its times in milliseconds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter, type ResolvedHistoryFilter } from "@memo/memory";
 * const resolved: ResolvedHistoryFilter = checkHistoryFilter({ asOf: "2026-03-01" }, "recall");
 * assert.equal(resolved.asOf, Date.UTC(2026, 2, 1));
 * assert.equal(resolved.includeSuperseded, false);
 * ```
 */
export interface ResolvedHistoryFilter {
  /** Superseded notes are kept. */
  includeSuperseded: boolean;
  /** `asOf`, in milliseconds. */
  asOf?: number;
  /** `since`, in milliseconds. */
  since?: number;
  /** `until`, in milliseconds. */
  until?: number;
}

/**
 * Checks a {@linkcode HistoryFilter}: the times must be ISO dates or date-times (a date means
 * 00:00 UTC), `includeSuperseded` a boolean. Throws `MemoryValidationError` ("Cannot <action>:
 * asOf must be an ISO date or date-time").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter, MemoryValidationError } from "@memo/memory";
 * assert.deepEqual(checkHistoryFilter({}, "list notes"), { includeSuperseded: false });
 * assert.throws(() => checkHistoryFilter({ since: "yesterday" }, "list notes"), MemoryValidationError);
 * ```
 */
export function checkHistoryFilter(filter: HistoryFilter, action: string): ResolvedHistoryFilter {
  const include = filter.includeSuperseded;
  if (include !== undefined && typeof include !== "boolean") {
    throw new MemoryValidationError(`Cannot ${action}: includeSuperseded must be true or false`);
  }
  const out: ResolvedHistoryFilter = { includeSuperseded: include === true };
  for (const name of ["asOf", "since", "until"] as const) {
    const value = filter[name];
    if (value !== undefined) out[name] = validTimeMs(normalizeValidTime(value, name, action));
  }
  return out;
}

/**
 * What a history filter reads of the notes: a note by id and the ids that supersede a note.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type HistoryLookup, SupersedeLinks } from "@memo/memory";
 * const links = new SupersedeLinks();
 * const lookup: HistoryLookup = { get: () => undefined, supersededBy: (id) => links.of(id) };
 * assert.equal(lookup.supersededBy("n1"), undefined);
 * ```
 */
export interface HistoryLookup {
  /** A stored note. */
  get(id: string): Note | undefined;
  /** Ids of the stored notes that supersede `id` (undefined when none). */
  supersededBy(id: string): readonly string[] | undefined;
}

/**
 * The test of a resolved history filter, or undefined when it would keep every note (no time
 * given, and superseded notes kept or none exists).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter, historyFilter, type Note, SupersedeLinks } from "@memo/memory";
 * const note = (id: string, created: string, extra: Partial<Note> = {}): Note => ({
 *   id, title: id, body: id, labels: [], hash: id, created, updated: created, ...extra,
 * });
 * const old = note("a1", "2026-01-01T00:00:00.000Z");
 * const fix = note("a2", "2026-02-01T00:00:00.000Z", { supersedes: ["a1"] });
 * const notes = new Map([[old.id, old], [fix.id, fix]]);
 * const links = new SupersedeLinks();
 * for (const n of notes.values()) links.upsert(n, undefined);
 * const lookup = { get: (id: string) => notes.get(id), supersededBy: (id: string) => links.of(id) };
 * const now = historyFilter(checkHistoryFilter({}, "recall"), lookup)!;
 * assert.deepEqual([now(old), now(fix)], [false, true]);
 * const january = historyFilter(checkHistoryFilter({ asOf: "2026-01-15" }, "recall"), lookup)!;
 * assert.deepEqual([january(old), january(fix)], [true, false]);
 * ```
 */
export function historyFilter(
  filter: ResolvedHistoryFilter,
  lookup: HistoryLookup & { readonly anySuperseded?: boolean },
): ((note: Note) => boolean) | undefined {
  const { asOf, since, until } = filter;
  const hide = !filter.includeSuperseded && lookup.anySuperseded !== false;
  if (!hide && asOf === undefined && since === undefined && until === undefined) return undefined;
  const timed = since !== undefined || until !== undefined || asOf !== undefined;
  // Canonical times (what memo writes) compare as strings, with no parse and no lookup.
  const asOfIso = asOf === undefined ? "" : new Date(asOf).toISOString();
  const sinceIso = since === undefined ? "" : new Date(since).toISOString();
  const untilIso = until === undefined ? "" : new Date(until).toISOString();
  const createdBy = (note: Note, bound: number, iso: string) =>
    canonicalTime(note.created) ? note.created <= iso : Date.parse(note.created) <= bound;
  return (note) => {
    if (timed) {
      if (canonicalTime(note.created)) {
        const c = note.created;
        if (since !== undefined && c < sinceIso) return false;
        if (until !== undefined && c >= untilIso) return false;
        if (asOf !== undefined && c > asOfIso) return false;
      } else {
        const c = Date.parse(note.created);
        if (since !== undefined && !(c >= since)) return false;
        if (until !== undefined && !(c < until)) return false;
        if (asOf !== undefined && !(c <= asOf)) return false;
      }
      if (asOf !== undefined && (note.validFrom !== undefined || note.validUntil !== undefined)) {
        if (!isValidAt(note, asOf)) return false;
      }
    }
    if (!hide) return true;
    const by = lookup.supersededBy(note.id);
    if (!by) return true;
    if (asOf === undefined) return false;
    for (const id of by) {
      const newer = lookup.get(id);
      // The newer fact replaces this one once recorded and once it starts (a correction whose
      // validFrom is later leaves the old fact holding until then).
      const started = newer?.validFrom === undefined || validTimeMs(newer.validFrom) <= asOf;
      if (newer && started && createdBy(newer, asOf, asOfIso)) return false;
    }
    return true;
  };
}

/**
 * The derived side of `supersedes`: for each id, the ids of the notes that name it. Kept in step
 * note by note (`upsert` with the version it replaces, `remove`), so that deriving
 * `supersededBy` costs nothing per read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Note, SupersedeLinks } from "@memo/memory";
 * const fix = { id: "a2", supersedes: ["a1"] } as Note;
 * const links = new SupersedeLinks();
 * links.upsert(fix, undefined);
 * assert.deepEqual(links.of("a1"), ["a2"]);
 * assert.equal(links.size, 1);
 * links.remove(fix);
 * assert.equal(links.of("a1"), undefined);
 * ```
 */
export class SupersedeLinks {
  #by = new Map<string, string[]>();
  #version = 0;

  /** Bumped whenever a link is added or removed (what was learnt of the links is then stale). */
  get version(): number {
    return this.#version;
  }

  /** Number of ids some note supersedes. */
  get size(): number {
    return this.#by.size;
  }

  /** Ids of the notes that supersede `id`, in id order; undefined when none. */
  of(id: string): readonly string[] | undefined {
    return this.#by.get(id);
  }

  /** A note now held, replacing `before` (the version held under its id until now, if any). */
  upsert(note: Note, before: Note | undefined): void {
    const next = note.supersedes;
    const prev = before?.supersedes;
    if (prev === next || (!prev?.length && !next?.length)) return;
    if (prev) { for (const target of prev) this.#unlink(target, note.id); }
    if (next) { for (const target of next) this.#link(target, note.id); }
  }

  /** A note is gone. */
  remove(note: Note): void {
    if (note.supersedes) { for (const target of note.supersedes) this.#unlink(target, note.id); }
  }

  /** Forgets every link. */
  clear(): void {
    this.#by.clear();
    this.#version++;
  }

  #link(target: string, by: string): void {
    this.#version++;
    const list = this.#by.get(target);
    if (!list) this.#by.set(target, [by]);
    else if (!list.includes(by)) {
      // Kept in id order (ids sort by creation time): the same on every copy of the notes.
      let at = list.length;
      while (at > 0 && list[at - 1] > by) at--;
      list.splice(at, 0, by);
    }
  }

  #unlink(target: string, by: string): void {
    const list = this.#by.get(target);
    if (!list) return;
    this.#version++;
    const at = list.indexOf(by);
    if (at >= 0) list.splice(at, 1);
    if (!list.length) this.#by.delete(target);
  }
}

/**
 * Checks that note `id` may supersede `targets`, given the other notes' links (`supersedesOf`
 * answers a stored note's `supersedes`, `[]` when it has none, and undefined for an unknown id):
 * every target exists, none is `id` itself, and no target leads back to `id` through `supersedes` (a cycle).
 * Returns the ids visited on the way (the notes the check depends on). Throws
 * `MemoryValidationError` naming the offending id.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkSupersedes, MemoryValidationError } from "@memo/memory";
 * const links = new Map([["a1", []], ["a2", ["a1"]]]);
 * const lookup = { supersedesOf: (id: string) => links.get(id) };
 * assert.deepEqual(checkSupersedes("a3", ["a2"], lookup), ["a2", "a1"]);
 * assert.throws(() => checkSupersedes("a3", ["zz"], lookup), MemoryValidationError); // unknown
 * assert.throws(() => checkSupersedes("a3", ["a3"], lookup), MemoryValidationError); // itself
 * assert.throws(() => checkSupersedes("a1", ["a2"], lookup), /cycle/); // a2 already supersedes a1
 * ```
 */
export function checkSupersedes(
  id: string,
  targets: readonly string[],
  lookup: { supersedesOf(id: string): readonly string[] | undefined },
  action = "store note",
): string[] {
  const seen = new Set<string>();
  const stack: string[] = [];
  for (const target of targets) {
    if (target === id) {
      throw new MemoryValidationError(`Cannot ${action}: note ${id} cannot supersede itself`, {
        details: { id, supersedes: target },
      });
    }
    if (lookup.supersedesOf(target) === undefined) {
      throw new MemoryValidationError(`Cannot ${action}: supersedes names unknown note ${target}`, {
        details: { id, supersedes: target },
      });
    }
    if (!seen.has(target)) {
      seen.add(target);
      stack.push(target);
    }
  }
  while (stack.length) {
    const at = stack.pop()!;
    for (const next of lookup.supersedesOf(at) ?? []) {
      if (next === id) {
        throw new MemoryValidationError(
          `Cannot ${action}: superseding ${
            targets.join(", ")
          } would make a cycle (note ${at} already supersedes ${id})`,
          { details: { id, supersedes: [...targets] } },
        );
      }
      if (!seen.has(next) && lookup.supersedesOf(next) !== undefined) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return [...seen];
}
