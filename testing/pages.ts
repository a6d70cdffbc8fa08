/**
 * Test helper: a bound for page-through loops (`do … while (cursor)`, or
 * `for (;;)` until `hasMore` is false). Not published (`testing/` is
 * excluded from the packages).
 *
 * A cursor that never ends would loop for ever; the bound turns that into a
 * failure that says which list did not end. It is far above any page count a
 * test reads.
 *
 * @module
 */

/** How many pages {@linkcode pageCounter} allows by default: only a cursor that never ends gets there. */
export const MAX_PAGES = 1000;

/**
 * A counter to call once per page of a page-through loop: returns the page's
 * number (1, 2, …) and throws, naming `what`, when asked for page `max + 1`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageCounter } from "./pages.ts";
 *
 * const page = pageCounter("the note list", 3);
 * assert.equal(page(), 1);
 * assert.equal(page(), 2);
 * assert.equal(page(), 3);
 * assert.throws(() => page(), /^Error: the note list did not end within 3 pages$/);
 * ```
 */
export function pageCounter(what: string, max: number = MAX_PAGES): () => number {
  let pages = 0;
  return () => {
    if (++pages > max) throw new Error(`${what} did not end within ${max} pages`);
    return pages;
  };
}
