/**
 * Tidying of the JSON Schemas zod generates for `inputSchema` and `outputSchema`: the parts that
 * constrain nothing are dropped, so that `tools/list` (sent on every stateless HTTP connection) is
 * smaller without meaning anything else.
 *
 * @module
 */

type Schema = Record<string, unknown>;

const MAX = Number.MAX_SAFE_INTEGER;

function isPlainObject(value: unknown): value is Schema {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `{}`: any value. */
function isAny(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** `{type: "string"}` and nothing else. */
function isAnyString(value: unknown): boolean {
  return isPlainObject(value) && value.type === "string" && Object.keys(value).length === 1;
}

/**
 * A copy of `schema` without what constrains nothing: `additionalProperties: {}` (any value, the
 * default), `propertyNames: {type: "string"}` (JSON keys always are) and, on integers, zod's bounds
 * at ±`Number.MAX_SAFE_INTEGER` (no exact JavaScript integer lies beyond them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compactJsonSchema } from "./json_schema.ts";
 *
 * assert.deepEqual(compactJsonSchema({ type: "object", additionalProperties: {} }), {
 *   type: "object",
 * });
 * assert.deepEqual(
 *   compactJsonSchema({ type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
 *   { type: "integer", minimum: 1 },
 * );
 * ```
 */
export function compactJsonSchema(schema: Schema): Schema {
  return compact(schema) as Schema;
}

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (node === null || typeof node !== "object") return node;
  const out: Schema = {};
  const integer = (node as Schema).type === "integer";
  for (const [key, value] of Object.entries(node)) {
    if (key === "additionalProperties" && isAny(value)) continue;
    if (key === "propertyNames" && isAnyString(value)) continue;
    if (integer && key === "minimum" && value === -MAX) continue;
    if (integer && key === "maximum" && value === MAX) continue;
    out[key] = compact(value);
  }
  return out;
}
