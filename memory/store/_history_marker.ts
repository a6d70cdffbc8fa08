/**
 * Internal: the history keys of a note's marker in `notes.md` (`supersedes`, `validFrom`,
 * `validUntil`, written after `updated`), read and written apart from the codec's core so that
 * a note without them costs one check.
 *
 * @module
 */

import type { Note } from "../notes/note.ts";
import { isValidTimeText } from "../history/validity.ts";

const ID = /^[0-9a-z][0-9a-z_-]{0,63}$/;

/**
 * Reads the history keys of a parsed marker into `note`; returns the reason the note is damaged
 * when one is malformed (a list that holds something other than ids, a time that is no date),
 * else undefined. A key that is absent, or `supersedes: []`, leaves the note without it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readHistoryKeys } from "./_history_marker.ts";
 * const note: Record<string, unknown> = {};
 * assert.equal(readHistoryKeys({ supersedes: ["a1"], validFrom: "2026-01-01" }, "a2", note), undefined);
 * assert.deepEqual(note, { supersedes: ["a1"], validFrom: "2026-01-01" });
 * assert.match(readHistoryKeys({ validUntil: 5 }, "a2", {})!, /validUntil/);
 * ```
 */
export function readHistoryKeys(
  meta: Record<string, unknown>,
  id: string,
  note: { supersedes?: string[]; validFrom?: string; validUntil?: string },
): string | undefined {
  const { supersedes, validFrom, validUntil } = meta;
  if (supersedes !== undefined) {
    if (
      !Array.isArray(supersedes) || !supersedes.every((s) => typeof s === "string" && ID.test(s))
    ) {
      return `Cannot read note ${id}: its supersedes is not a list of note ids`;
    }
    if (supersedes.length) note.supersedes = supersedes as string[];
  }
  for (const [name, value] of [["validFrom", validFrom], ["validUntil", validUntil]] as const) {
    if (value === undefined) continue;
    if (typeof value !== "string" || !isValidTimeText(value)) {
      return `Cannot read note ${id}: its ${name} is not an ISO date or date-time`;
    }
    note[name] = value;
  }
  return undefined;
}

/**
 * Whether a parsed marker holds any history key (the codec's one check for the common case).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasHistoryKeys } from "./_history_marker.ts";
 * assert.equal(hasHistoryKeys({ id: "a1" }), false);
 * assert.equal(hasHistoryKeys({ id: "a1", validUntil: "2026-01-01" }), true);
 * ```
 */
export function hasHistoryKeys(meta: Record<string, unknown>): boolean {
  return meta.supersedes !== undefined || meta.validFrom !== undefined ||
    meta.validUntil !== undefined;
}

/**
 * Adds a note's history keys to the marker object being written, after `updated`, in the order
 * `supersedes`, `validFrom`, `validUntil` (absent ones are left out; `supersededBy` is derived
 * and never written).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Note } from "../notes/note.ts";
import { isValidTimeText } from "../history/validity.ts";
 * import { writeHistoryKeys } from "./_history_marker.ts";
 * const meta: Record<string, unknown> = { id: "a2" };
 * writeHistoryKeys(meta, { supersedes: ["a1"], supersededBy: ["a3"], validUntil: "2027-01-01" } as Note);
 * assert.deepEqual(Object.keys(meta), ["id", "supersedes", "validUntil"]);
 * ```
 */
export function writeHistoryKeys(meta: Record<string, unknown>, note: Note): void {
  if (note.supersedes?.length) meta.supersedes = note.supersedes;
  if (note.validFrom !== undefined) meta.validFrom = note.validFrom;
  if (note.validUntil !== undefined) meta.validUntil = note.validUntil;
}
