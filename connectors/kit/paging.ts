/**
 * Paging through an upstream listing: the cursors it hands out, and the
 * times that tell where an incremental sync may stop.
 *
 * @module
 */

export function timeOf(iso: string | undefined): number {
  return iso === undefined ? NaN : Date.parse(iso);
}

/** True when `iso` is strictly before `since` (false when either is not a time). */
export function isBefore(iso: string, since: string | undefined): boolean {
  const a = timeOf(iso);
  const b = timeOf(since);
  return Number.isFinite(a) && Number.isFinite(b) && a < b;
}

/**
 * Tracks the cursors of one listing. `next()` returns the cursor to ask for
 * next, or throws (through `fail`) when the upstream promised more without a
 * cursor, or handed back a cursor it had already given.
 */
export class CursorTrail {
  #seen = new Set<string>();
  #fail: (reason: string) => Error;
  constructor(fail: (reason: string) => Error) {
    this.#fail = fail;
  }

  /** The cursor of the next page, or undefined when the listing is complete. */
  next(hasMore: boolean, cursor: unknown): string | undefined {
    if (!hasMore) return undefined;
    if (typeof cursor !== "string" || cursor === "") {
      throw this.#fail("the API said there are more results but gave no cursor");
    }
    if (this.#seen.has(cursor)) {
      throw this.#fail("the API repeated a paging cursor, so the listing would never end");
    }
    this.#seen.add(cursor);
    return cursor;
  }
}
