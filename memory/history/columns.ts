/**
 * Internal: what a history filter needs of each note, kept in arrays by the lexical index's doc
 * numbers, so that a recall with `asOf`, `since`, `until` or the default filtering reads no note
 * for most candidates. The filter otherwise reads every candidate it is asked about (its
 * `created`, its validity, its id to look up what supersedes it): scattered reads, which cost a
 * 100,000-note recall with `asOf` about a fifth of its time.
 *
 * Each doc's entry is read from its note the first time a search asks, and read again when the
 * doc holds another note (replaced, removed, renumbered) or a `supersedes` link changed since.
 * An entry answers for sure in the common case (a readable time, no validity, superseded by
 * nothing) and leaves the rest to the filter itself.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";

/** A resolved history filter (`ResolvedHistoryFilter` of `history.ts`, which imports this module). */
interface ResolvedTimes {
  includeSuperseded: boolean;
  asOf?: number;
  since?: number;
  until?: number;
}

/**
 * Whether a time is in the form `toISOString` gives (`2026-03-01T10:00:00.000Z`): such times
 * compare as strings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalTime } from "./columns.ts";
 * assert.equal(canonicalTime("2026-03-01T10:00:00.000Z"), true);
 * assert.equal(canonicalTime("2026-03-01"), false);
 * ```
 */
export function canonicalTime(time: string): boolean {
  return time.length === 24 && time.charCodeAt(23) === 90 && time.charCodeAt(10) === 84 &&
    time.charCodeAt(19) === 46;
}

/** The note has `validFrom` or `validUntil`. */
const VALIDITY = 1;
/** Some note supersedes it. */
const SUPERSEDED = 2;
/** Its `created` was read (a check without time bounds never reads it). */
const TIMED = 4;

/**
 * What the columns read of the notes' links: the ids that supersede a note, and a number that
 * changes whenever a link does.
 */
export interface LinksView {
  /** Ids of the held notes that supersede `id` (undefined when none). */
  supersededBy(id: string): readonly string[] | undefined;
  /** Changes whenever a `supersedes` link is added or removed. */
  readonly linksVersion: number;
}

/**
 * The history columns of one lexical index's docs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter } from "./history.ts";
 * import { HistoryColumns } from "./columns.ts";
 * const note = (id: string, created: string) => ({ id, title: id, body: id, labels: [], hash: "", created, updated: created });
 * const notes = [note("a", "2026-01-01T00:00:00.000Z"), note("b", "2026-03-01T00:00:00.000Z"), note("c", "2026-02-30T00:00:00.000Z")];
 * const links = { supersededBy: (id: string) => id === "a" ? ["b"] : undefined, linksVersion: 1 };
 * const columns = new HistoryColumns();
 * const check = columns.check(checkHistoryFilter({ asOf: "2026-02-01" }, "recall"), links)!;
 * assert.deepEqual([check(notes, 0), check(notes, 1), check(notes, 2)], [0, -1, 0]); // a: ask the filter; b: later; c: not a real time
 * const now = columns.check(checkHistoryFilter({}, "recall"), links)!;
 * assert.deepEqual([now(notes, 0), now(notes, 1)], [-1, 1]); // a is superseded
 * ```
 */
export class HistoryColumns {
  /** The index's array of notes by doc number the entries were read for (a new one: renumbered). */
  #layout: readonly (Note | undefined)[] | undefined;
  /**
   * Two numbers per doc: `created` in milliseconds (NaN when it is not compared as a number: left
   * to the filter), then `8 · (links version + 1) + flags` (0 until read): one place in memory.
   */
  #data: Float64Array = new Float64Array(2048);

  /**
   * A `docCheck` for the lexical index that answers as the history filter `filter` would
   * (negative: drop, positive: keep, 0: ask the filter), or undefined when it can only ask
   * (no time bound and superseded notes kept, or a bound outside the years 0000–9999, where
   * comparing canonical times as strings and in milliseconds could differ).
   *
   * A doc keeps its note until the index renumbers its docs into a new array (a note replaced
   * or removed gets a new doc number or none), so an entry is good while the array and the
   * links' version are the ones it was read with.
   */
  check(
    filter: ResolvedTimes,
    links: LinksView,
  ): ((notes: readonly (Note | undefined)[], doc: number) => number) | undefined {
    const { since, until, asOf } = filter;
    const hide = !filter.includeSuperseded;
    const timed = since !== undefined || until !== undefined || asOf !== undefined;
    if (!timed && !hide) return undefined;
    for (const ms of [since, until, asOf]) {
      if (ms !== undefined && !canonicalTime(new Date(ms).toISOString())) return undefined;
    }
    const base = 8 * (links.linksVersion + 1);
    return (notes, d) => {
      if (notes !== this.#layout) {
        this.#data.fill(0);
        this.#layout = notes;
      }
      let data: Float64Array = this.#data;
      if (2 * d + 1 >= data.length) data = this.#grow(Math.max(d, notes.length));
      let key = data[2 * d + 1] - base;
      if (!(key >= 0 && key < 8)) {
        const note = notes[d];
        if (!note) return 0;
        key = read(note, links);
        data[2 * d + 1] = base + key;
      }
      if (timed) {
        if (!(key & TIMED)) {
          const note = notes[d];
          if (!note) return 0;
          data[2 * d] = readTime(note.created);
          data[2 * d + 1] = base + (key |= TIMED);
        }
        const c = data[2 * d];
        if (c !== c) return 0;
        if (since !== undefined && c < since) return -1;
        if (until !== undefined && c >= until) return -1;
        if (asOf !== undefined && c > asOf) return -1;
        if (asOf !== undefined && key & VALIDITY) return 0;
      }
      if (hide && key & SUPERSEDED) return asOf === undefined ? -1 : 0;
      return 1;
    };
  }

  /** Room for doc `d` (and as many again, or twice the room there was). */
  #grow(d: number): Float64Array {
    const data = new Float64Array(Math.max(4 * d + 4, this.#data.length * 2));
    data.set(this.#data);
    return this.#data = data;
  }
}

/** A note's flags. */
function read(note: Note, links: LinksView): number {
  return (note.validFrom !== undefined || note.validUntil !== undefined ? VALIDITY : 0) |
    (links.supersededBy(note.id) !== undefined ? SUPERSEDED : 0);
}

/**
 * `created` in milliseconds as the history filter compares it: a canonical time only when it is
 * that time (else NaN: the filter compares it as a string), another form as `Date.parse` reads it.
 */
function readTime(created: string): number {
  const ms = Date.parse(created);
  return ms === ms && canonicalTime(created) && new Date(ms).toISOString() !== created ? NaN : ms;
}

const columns = new WeakMap<object, HistoryColumns>();

/**
 * The history columns kept for a lexical index's doc numbers (one set per index).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createLexicalIndex } from "../recall/lexical/lexical.ts";
 * import { historyColumnsOf } from "./columns.ts";
 * const index = createLexicalIndex();
 * assert.equal(historyColumnsOf(index), historyColumnsOf(index));
 * ```
 */
export function historyColumnsOf(index: object): HistoryColumns {
  let c = columns.get(index);
  if (!c) columns.set(index, c = new HistoryColumns());
  return c;
}
