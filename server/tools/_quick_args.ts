/**
 * Arguments of the hot tools checked without zod: the commonest shapes only, each accepted exactly
 * when the tool's zod schema accepts it, with the same parsed value; anything else is left to zod,
 * which words the errors.
 *
 * @module
 */

import { MAX_TEXT_LENGTH, NON_BLANK, type SchemaLimits } from "./schemas.ts";

/**
 * `{ query, limit? }`, the arguments most recalls carry, checked without zod: a plain object with
 * no other key, a query of 1 to 200,000 characters that is not blank, a limit that is an integer
 * from 1 to the largest page. Anything else goes to zod.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quickRecallArguments } from "./_quick_args.ts";
 *
 * const limits = { defaultPageSize: 25, maxPageSize: 100 };
 * assert.deepEqual(quickRecallArguments({ query: "deploy", limit: 5 }, limits), {
 *   query: "deploy",
 *   limit: 5,
 * });
 * assert.equal(quickRecallArguments({ query: "deploy", limit: 101 }, limits), undefined); // zod says why
 * assert.equal(quickRecallArguments({ query: "deploy", explain: true }, limits), undefined);
 * ```
 */
export function quickRecallArguments(
  args: unknown,
  limits: SchemaLimits,
): { query: string; limit?: number } | undefined {
  if (
    args === null || typeof args !== "object" || Object.getPrototypeOf(args) !== Object.prototype
  ) {
    return undefined;
  }
  for (const key in args) if (key !== "query" && key !== "limit") return undefined;
  const { query, limit } = args as { query?: unknown; limit?: unknown };
  if (typeof query !== "string" || query.length > MAX_TEXT_LENGTH || !NON_BLANK.test(query)) {
    return undefined;
  }
  if (limit === undefined) return "limit" in args ? { query, limit } : { query };
  if (
    typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1 ||
    limit > limits.maxPageSize
  ) {
    return undefined;
  }
  return { query, limit };
}
