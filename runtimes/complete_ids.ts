/**
 * Completing a note id from its first characters by reading the notes page by page, as the local
 * and the cloud runtime do ({@linkcode completeIdsThroughPages}).
 *
 * @module
 */

import type { RuntimeCompletion } from "./types.ts";

/**
 * The ids that start with `prefix` (at most `limit`, and how many there are in all), read through
 * `page` (the page after `cursor`) until no page follows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { completeIdsThroughPages } from "./complete_ids.ts";
 *
 * const pages = [{ notes: [{ id: "ab1" }, { id: "b" }], nextCursor: "1" }, { notes: [{ id: "ab2" }] }];
 * const page = async (cursor: string | undefined) => pages[cursor === undefined ? 0 : 1];
 * assert.deepEqual(await completeIdsThroughPages("ab", 1, page), { values: ["ab1"], total: 2 });
 * ```
 */
export async function completeIdsThroughPages(
  prefix: string,
  limit: number,
  page: (
    cursor: string | undefined,
  ) => Promise<{ notes: readonly { id: string }[]; nextCursor?: string }>,
): Promise<RuntimeCompletion> {
  const values: string[] = [];
  let total = 0;
  let cursor: string | undefined;
  do {
    const got = await page(cursor);
    for (const note of got.notes) {
      if (!note.id.startsWith(prefix)) continue;
      total++;
      if (values.length < limit) values.push(note.id);
    }
    cursor = got.notes.length ? got.nextCursor : undefined;
  } while (cursor);
  return { values, total };
}
