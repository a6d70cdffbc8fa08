/**
 * Opaque list cursors: base64url of a small versioned JSON object, so that a
 * forged or damaged cursor is recognised and refused.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";

/**
 * What a list cursor remembers: the last id returned and its position.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CursorState, decodeCursor, encodeCursor } from "@memo/memory";
 * const state: CursorState = { id: "01jq3v7k9x0000000000", position: 24 };
 * assert.deepEqual(decodeCursor(encodeCursor(state)), state);
 * ```
 */
export interface CursorState {
  /** Id of the last note of the previous page. */
  id: string;
  /**
   * Its rank in store order (see {@linkcode OrderRanks}), used when that note is gone: the page
   * resumes at the first note ranked past it.
   */
  position: number;
}

/**
 * Encodes a cursor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeCursor, encodeCursor } from "@memo/memory";
 * const c = encodeCursor({ id: "a", position: 3 });
 * assert.match(c, /^[A-Za-z0-9_-]+$/); // base64url
 * assert.deepEqual(decodeCursor(c), { id: "a", position: 3 });
 * ```
 */
export function encodeCursor(state: CursorState): string {
  const json = JSON.stringify({ v: 1, i: state.id, p: state.position });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Decodes a cursor made by {@linkcode encodeCursor}; throws
 * `MemoryValidationError` ("Cannot <action>: invalid cursor") otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeCursor, MemoryValidationError } from "@memo/memory";
 * assert.throws(() => decodeCursor("forged"), MemoryValidationError);
 * assert.throws(() => decodeCursor("forged"), { message: "Cannot list notes: invalid cursor" });
 * ```
 */
export function decodeCursor(cursor: string, action = "list notes"): CursorState {
  const fail = () => new MemoryValidationError(`Cannot ${action}: invalid cursor`);
  if (typeof cursor !== "string" || cursor.length === 0 || cursor.length > 512) throw fail();
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw fail();
  let value: unknown;
  try {
    const bin = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(bin, (c) => c.charCodeAt(0)),
    ));
  } catch {
    throw fail();
  }
  const v = value as { v?: unknown; i?: unknown; p?: unknown } | null;
  if (
    !v || typeof v !== "object" || v.v !== 1 || typeof v.i !== "string" ||
    typeof v.p !== "number" || !Number.isInteger(v.p) || v.p < 0
  ) throw fail();
  return { id: v.i, position: v.p };
}

/**
 * Where a page starts in store order: the first (or, `newest`, the last) of `count` notes without
 * a cursor; after the cursor's note otherwise. A cursor whose note is gone resumes past its rank
 * when `rankAt` gives each position's rank (ascending along the order: see
 * {@linkcode OrderRanks}), so that no note is skipped or repeated however many notes before it
 * were removed; without ranks, at its position (right when only the cursor's note was removed).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cursorStart } from "@memo/memory";
 * const at = (id: string) => (id === "b" ? 1 : undefined);
 * assert.equal(cursorStart(3, false, undefined, at), 0);
 * assert.equal(cursorStart(3, true, undefined, at), 2);
 * assert.equal(cursorStart(3, false, { id: "b", position: 1 }, at), 2);
 * assert.equal(cursorStart(3, true, { id: "gone", position: 2 }, at), 1);
 * // Ranks 0, 3, 4 (ranks 1 and 2 were removed): a cursor at gone rank 2 resumes at rank 3.
 * const ranks = [0, 3, 4];
 * assert.equal(cursorStart(3, false, { id: "gone", position: 2 }, at, (i) => ranks[i]), 1);
 * assert.equal(cursorStart(3, true, { id: "gone", position: 2 }, at, (i) => ranks[i]), 0);
 * ```
 */
export function cursorStart(
  count: number,
  newest: boolean,
  cursor: CursorState | undefined,
  positionOf: (id: string) => number | undefined,
  rankAt?: (position: number) => number,
): number {
  if (!cursor) return newest ? count - 1 : 0;
  const at = positionOf(cursor.id);
  if (at !== undefined) return newest ? at - 1 : at + 1;
  if (rankAt !== undefined) {
    // The first position whose rank is past the cursor's (ranks ascend).
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (rankAt(mid) <= cursor.position) lo = mid + 1;
      else hi = mid;
    }
    return newest ? lo - 1 : lo;
  }
  return newest ? Math.min(cursor.position - 1, count - 1) : Math.min(cursor.position, count);
}

/**
 * Ranks for an order that only loses items and gains them at its end (a store's notes in store
 * order): each id keeps the rank it was first given, a new one gets the next, so ranks ascend
 * along the order and never shift when an item before them goes. A cursor that holds a rank
 * finds its place again after any removals. An id found out of order (moved to the end) is
 * ranked anew. `of` recomputes only for a new order array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OrderRanks } from "@memo/memory";
 * const ranks = new OrderRanks();
 * assert.deepEqual(ranks.of(["a", "b", "c"]), [0, 1, 2]);
 * assert.deepEqual(ranks.of(["a", "c", "d"]), [0, 2, 3]); // b removed, d added
 * assert.deepEqual(ranks.of(["c", "a"]), [2, 4]); // a moved to the end
 * ```
 */
export class OrderRanks {
  #rank = new Map<string, number>();
  #next = 0;
  #order: readonly (string | { id: string })[] | undefined;
  #ranks: number[] = [];

  /** The ranks of `order` (ids, or items with an `id`), the order now, position by position. */
  of(order: readonly (string | { id: string })[]): readonly number[] {
    if (order === this.#order) return this.#ranks;
    const rank = new Map<string, number>();
    const ranks = new Array<number>(order.length);
    let previous = -1;
    for (let i = 0; i < order.length; i++) {
      const item = order[i];
      const id = typeof item === "string" ? item : item.id;
      let r = this.#rank.get(id);
      if (r === undefined || r <= previous) r = this.#next++;
      rank.set(id, r);
      ranks[i] = previous = r;
    }
    this.#rank = rank;
    this.#order = order;
    this.#ranks = ranks;
    return ranks;
  }
}

/**
 * The list order of a map of items (its key order) and the position of each id in it, computed
 * at the first page after a change: a store's notes or an index's rows, paged by
 * {@linkcode ListOrder.page} as `Memo.list` pages them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ListOrder } from "@memo/memory";
 * const items = new Map([["a", 1], ["b", 2], ["c", 3]]);
 * const order = new ListOrder();
 * const first = order.page(items, 1, { newest: true });
 * assert.deepEqual([first.items, first.total, order.size], [[3], 3, 3]);
 * const odd = order.page(items, 5, { newest: true, filter: (n) => n % 2 === 1 });
 * assert.deepEqual(odd, { items: [3, 1], total: 2 });
 * order.reset();
 * assert.equal(order.size, 0);
 * ```
 */
export class ListOrder {
  #ids: string[] | undefined;
  readonly #position = new Map<string, number>();
  readonly #ranks = new OrderRanks();

  /** How many ids the computed order holds (0 until a page is read after a reset). */
  get size(): number {
    return this.#ids?.length ?? 0;
  }

  /** Forgets the order: the items changed. */
  reset(): void {
    this.#ids = undefined;
  }

  /**
   * One page: at most `limit` of the items `filter` keeps (all when undefined), from the end when
   * `newest`, after `cursor`, with the count of every item kept and the cursor of the next page
   * when one follows. `items` are those the order was computed from, or changed ones after a
   * {@linkcode reset}. A cursor holds its item's rank ({@linkcode OrderRanks}), so that the next
   * page starts right after it even when it and items before it were removed meanwhile.
   */
  page<T>(
    items: ReadonlyMap<string, T>,
    limit: number,
    walk: { newest: boolean; cursor?: CursorState; filter?: (item: T) => boolean },
  ): { items: T[]; total: number; nextCursor?: string } {
    if (!this.#ids) {
      this.#ids = [...items.keys()];
      this.#position.clear();
      this.#ids.forEach((id, i) => this.#position.set(id, i));
    }
    const ranks = this.#ranks.of(this.#ids);
    return pageInOrder(this.#ids, limit, {
      ...walk,
      get: (id) => items.get(id)!,
      positionOf: (id) => this.#position.get(id),
      rankAt: (i) => ranks[i],
    });
  }
}

/** {@linkcode ListOrder.page} over the ids in `order`. */
function pageInOrder<T>(
  order: readonly string[],
  limit: number,
  walk: {
    get: (id: string) => T;
    positionOf: (id: string) => number | undefined;
    rankAt: (position: number) => number;
    newest: boolean;
    cursor?: CursorState;
    filter?: (item: T) => boolean;
  },
): { items: T[]; total: number; nextCursor?: string } {
  const { get, newest, filter } = walk;
  const n = order.length;
  // `start` is where the page begins in `order`; newest-first walks down from it.
  const start = cursorStart(n, newest, walk.cursor, walk.positionOf, walk.rankAt);
  const step = newest ? -1 : 1;
  const items: T[] = [];
  let total = 0;
  let last = -1;
  for (let i = newest ? n - 1 : 0; newest ? i >= 0 : i < n; i += step) {
    const item = get(order[i]);
    if (filter && !filter(item)) continue;
    total++;
    if ((newest ? i <= start : i >= start) && items.length < limit) {
      items.push(item);
      last = i;
    }
  }
  let more = false;
  if (last >= 0) {
    for (let i = last + step; (newest ? i >= 0 : i < n) && !more; i += step) {
      more = !filter || filter(get(order[i]));
    }
  }
  const page: { items: T[]; total: number; nextCursor?: string } = { items, total };
  if (more) page.nextCursor = encodeCursor({ id: order[last], position: walk.rankAt(last) });
  return page;
}
