/**
 * The two clocks' checks that need no note: ISO dates and date-times (a date alone means 00:00
 * UTC), the range `[validFrom, validUntil)`, and the history fields of a draft or a patch. Split
 * from `history.ts` (which re-exports it) so that the note model can use it.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";

const ID = /^[0-9a-z][0-9a-z_-]{0,63}$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks an ISO date or date-time and returns it in canonical form: a date alone (`2026-03-01`,
 * meaning 00:00 UTC) stays a date, a date-time becomes `toISOString()` (UTC, milliseconds).
 * Throws `MemoryValidationError` ("Cannot <action>: <name> must be an ISO date or date-time").
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, normalizeValidTime } from "@memo/memory";
 * assert.equal(normalizeValidTime("2026-03-01", "validFrom"), "2026-03-01");
 * assert.equal(normalizeValidTime("2026-03-01T10:00:00+01:00", "validFrom"), "2026-03-01T09:00:00.000Z");
 * assert.throws(() => normalizeValidTime("March 1st", "validFrom"), MemoryValidationError);
 * assert.throws(() => normalizeValidTime("2026-02-30", "validFrom"), MemoryValidationError);
 * ```
 */
export function normalizeValidTime(value: unknown, name: string, action = "store note"): string {
  const fail = () =>
    new MemoryValidationError(`Cannot ${action}: ${name} must be an ISO date or date-time`);
  if (typeof value !== "string") throw fail();
  const date = DATE_ONLY.exec(value);
  if (date) {
    const ms = Date.parse(value);
    // Date.parse rolls 2026-02-30 over to March: a date must read back as itself.
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw fail();
    return value;
  }
  if (!DATE_TIME.test(value)) throw fail();
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw fail();
  return new Date(ms).toISOString();
}

/**
 * Whether a text is an ISO date or date-time that {@linkcode normalizeValidTime} accepts (what a
 * hand-edited marker may hold).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isValidTimeText } from "@memo/memory";
 * assert.equal(isValidTimeText("2026-03-01"), true);
 * assert.equal(isValidTimeText("2026-03-01 10:00"), false);
 * ```
 */
export function isValidTimeText(value: unknown): boolean {
  try {
    normalizeValidTime(value, "time");
    return true;
  } catch {
    return false;
  }
}

/**
 * The time an ISO date (00:00 UTC) or date-time stands for, in milliseconds; `NaN` when it is
 * not one (a hand edit of `notes.md` is read as it is).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { validTimeMs } from "@memo/memory";
 * assert.equal(validTimeMs("2026-03-01"), Date.UTC(2026, 2, 1));
 * assert.ok(Number.isNaN(validTimeMs("soon")));
 * ```
 */
export function validTimeMs(value: string): number {
  return Date.parse(value);
}

/**
 * The history fields of a draft or patch, checked and normalised: `supersedes` a list of note ids
 * (de-duplicated, in the order given; absent when empty), `validFrom` and `validUntil` canonical
 * (see {@linkcode normalizeValidTime}), `validFrom` before `validUntil`. A `null` (patches only)
 * is kept: it removes the field. Throws `MemoryValidationError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryValidationError, prepareHistory } from "@memo/memory";
 * assert.deepEqual(prepareHistory({ supersedes: ["a1", "a1"], validUntil: "2027-01-01" }), {
 *   supersedes: ["a1"],
 *   validUntil: "2027-01-01",
 * });
 * assert.throws(() => prepareHistory({ supersedes: ["Not An Id"] }), MemoryValidationError);
 * ```
 */
export function prepareHistory(
  input: {
    supersedes?: readonly string[];
    validFrom?: string | null;
    validUntil?: string | null;
  },
  action = "store note",
): { supersedes?: string[]; validFrom?: string | null; validUntil?: string | null } {
  const out: { supersedes?: string[]; validFrom?: string | null; validUntil?: string | null } = {};
  if (input.supersedes !== undefined) {
    const list = input.supersedes as unknown;
    if (!Array.isArray(list) || !list.every((id) => typeof id === "string" && ID.test(id))) {
      throw new MemoryValidationError(`Cannot ${action}: supersedes must be a list of note ids`);
    }
    const ids = [...new Set(list as string[])];
    if (ids.length) out.supersedes = ids;
  }
  for (const name of ["validFrom", "validUntil"] as const) {
    const value = input[name];
    if (value === undefined) continue;
    out[name] = value === null ? null : normalizeValidTime(value, name, action);
  }
  checkValidRange(out.validFrom ?? undefined, out.validUntil ?? undefined, action);
  return out;
}

/**
 * Throws `MemoryValidationError` unless `validFrom` comes before `validUntil` (when both are
 * given): the range `[validFrom, validUntil)` must not be empty.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkValidRange, MemoryValidationError } from "@memo/memory";
 * checkValidRange("2026-01-01", "2026-02-01");
 * checkValidRange(undefined, "2026-02-01");
 * assert.throws(() => checkValidRange("2026-02-01", "2026-02-01"), MemoryValidationError);
 * ```
 */
export function checkValidRange(
  validFrom: string | undefined,
  validUntil: string | undefined,
  action = "store note",
): void {
  if (validFrom === undefined || validUntil === undefined) return;
  if (!(validTimeMs(validFrom) < validTimeMs(validUntil))) {
    throw new MemoryValidationError(`Cannot ${action}: validFrom must come before validUntil`);
  }
}
