/**
 * Internal: the argument checks of the batch methods (`rememberMany`,
 * `forgetMany`) that every runtime makes the same way.
 *
 * @module
 */

import { MemoRuntimeError } from "./errors.ts";

/**
 * Throws `INVALID_INPUT` unless `drafts` is a list (each draft is checked by the store).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkDraftList } from "./batch_input.ts";
 * checkDraftList([{ text: "a" }]);
 * assert.throws(() => checkDraftList({ text: "a" }), { code: "INVALID_INPUT" });
 * ```
 */
export function checkDraftList(drafts: unknown): void {
  if (!Array.isArray(drafts)) {
    throw new MemoRuntimeError("INVALID_INPUT", "Cannot remember notes: drafts must be a list");
  }
}

/**
 * Throws `INVALID_INPUT` unless `ids` is a list of strings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkIdList } from "./batch_input.ts";
 * checkIdList(["n1", "n2"]);
 * assert.throws(() => checkIdList(["n1", 2]), { code: "INVALID_INPUT" });
 * ```
 */
export function checkIdList(ids: unknown): void {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== "string")) {
    throw new MemoRuntimeError("INVALID_INPUT", "Cannot forget notes: ids must be strings");
  }
}
