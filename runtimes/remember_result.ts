/**
 * The answer of a runtime's `remember`, the same from every runtime: the note, its status, the
 * similar notes if any, and the secrets redacted (rule and field only) if any.
 *
 * @module
 */

import type { Note, RuntimeRememberResult, SecretRedaction, SimilarNote } from "./types.ts";

/**
 * A {@linkcode RuntimeRememberResult}: `similar` only when given, `redacted` only when not
 * empty, each redaction reduced to its rule and field.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rememberResultOf } from "./remember_result.ts";
 * const note = {
 *   id: "n1",
 *   title: "Deploy",
 *   body: "Run make deploy.",
 *   labels: [],
 *   hash: "h",
 *   created: "2026-01-01T00:00:00.000Z",
 *   updated: "2026-01-01T00:00:00.000Z",
 * };
 * assert.deepEqual(rememberResultOf(note, "written", []), { note, status: "written" });
 * assert.deepEqual(
 *   rememberResultOf(note, "updated", [{ rule: "aws-key", field: "labels", index: 1 }]).redacted,
 *   [{ rule: "aws-key", field: "labels" }],
 * );
 * ```
 */
export function rememberResultOf(
  note: Note,
  status: RuntimeRememberResult["status"],
  redacted: readonly SecretRedaction[] | undefined,
  similar?: SimilarNote[],
): RuntimeRememberResult {
  const result: RuntimeRememberResult = { note, status };
  if (similar) result.similar = similar;
  if (redacted?.length) result.redacted = redacted.map(({ rule, field }) => ({ rule, field }));
  return result;
}
