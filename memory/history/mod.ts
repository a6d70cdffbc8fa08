/**
 * Notes that stay true: validity, `supersedes` links, the history filters of reads (`asOf`,
 * `includeSuperseded`) and the shapes of corrections, supersessions and tidy plans.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkHistoryFilter, isValidAt } from "./mod.ts";
 * const note = { validFrom: "2026-01-01", validUntil: "2026-02-01" };
 * assert.equal(isValidAt(note, Date.UTC(2026, 0, 15)), true);
 * assert.equal(checkHistoryFilter({ asOf: "2026-03-01" }, "recall").asOf, Date.UTC(2026, 2, 1));
 * ```
 *
 * @module
 */

export * from "./history.ts";
export * from "./validity.ts";
export * from "./columns.ts";
export * from "./types.ts";
