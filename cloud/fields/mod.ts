/**
 * The inputs of the Cloud API's routes, checked strictly: the note inputs of the writes and of
 * recall, the history routes' inputs, the query parameters of the reads and the `Idempotency-Key`
 * and `If-Match` headers. Unknown fields and parameters are refused by name; every refusal is a 400
 * `invalid_request` (a `CloudApiError`) whose message says what was wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createNoteInput, listQuery } from "./mod.ts";
 *
 * assert.deepEqual(createNoteInput({ text: "Deploys run on Mondays" }), { text: "Deploys run on Mondays" });
 * assert.equal(listQuery(new URLSearchParams("limit=5")).limit, 5);
 * ```
 *
 * @module
 */

export { idempotencyKeyOf, ifMatchOf } from "./headers.ts";
export { correctInput, MAX_SUPERSEDE_IDS, supersedeInput, tidyPlanInput } from "./history.ts";
export {
  batchDeleteInput,
  batchInput,
  createNoteInput,
  DEFAULT_RECALL_LIMIT,
  MAX_BATCH_NOTES,
  MAX_RECALL_LIMIT,
  patchInput,
  type RecallInput,
  recallInput,
  VECTOR_ENGINE_MESSAGE,
} from "./note_inputs.ts";
export {
  changesQuery,
  DEFAULT_CHANGES_LIMIT,
  DEFAULT_LIST_LIMIT,
  listQuery,
  MAX_CHANGES_LIMIT,
  MAX_LIST_LIMIT,
  noQuery,
} from "./query.ts";
