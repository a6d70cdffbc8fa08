/**
 * Internal: the checks every route input is made of: a field's check ({@linkcode Check}),
 * {@linkcode field} and {@linkcode rejectUnknownFields}. Every refusal is a 400 `invalid_request`
 * that names the field. Inputs a store cannot keep (NUL, an unpaired surrogate) are refused here,
 * the same with every store.
 *
 * @module
 */

import { isValidTimeText, NOTE_ID_PATTERN } from "@memo/memory";
import { CloudApiError } from "../errors.ts";

/** A 400 `invalid_request` with `message`. */
export function invalid(message: string, details?: Record<string, unknown>): CloudApiError {
  return new CloudApiError("invalid_request", message, details ? { details } : {});
}

export function quote(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** Refuses the first field of `body` that is not in `allowed`. */
export function rejectUnknownFields(
  body: Record<string, unknown>,
  allowed: readonly string[],
  action: string,
  details: Record<string, unknown> = {},
): void {
  for (const name of Object.keys(body)) {
    if (!allowed.includes(name)) {
      throw invalid(`Cannot ${action}: unknown field ${quote(name)}`, { ...details, field: name });
    }
  }
}

/** A check of a field's value: the problem, or `undefined` when it is fine. */
export type Check = (value: unknown) => string | undefined;

export const isString: Check = (v) => typeof v === "string" ? undefined : "must be a string";
export const isStringArray: Check = (v) =>
  Array.isArray(v) && v.every((s) => typeof s === "string")
    ? undefined
    : "must be an array of strings";
/** A lone UTF-16 surrogate: no UTF-8 store (PostgreSQL) can keep it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** A string a store can keep: no NUL (PostgreSQL text cannot hold it), no lone surrogate. */
function storable(v: string): boolean {
  return !v.includes("\0") && !LONE_SURROGATE.test(v);
}
const NOT_STORABLE = "must not hold a NUL character or an unpaired UTF-16 surrogate";
/** A string a store can keep. */
export const isText: Check = (v) =>
  typeof v !== "string" ? "must be a string" : storable(v) ? undefined : NOT_STORABLE;
/** Strings a store can keep. */
export const isTextArray: Check = (v) =>
  !Array.isArray(v) || !v.every((s) => typeof s === "string")
    ? "must be an array of strings"
    : v.every(storable)
    ? undefined
    : NOT_STORABLE;
export const isBoolean: Check = (v) => typeof v === "boolean" ? undefined : "must be true or false";
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
export const isTime: Check = (v) =>
  typeof v === "string" && ISO_TIME.test(v) && Number.isFinite(Date.parse(v))
    ? undefined
    : "must be an ISO 8601 date-time with a time zone (2025-01-02T03:04:05.000Z)";
/** A note id. */
export const isNoteId: Check = (v) =>
  typeof v === "string" && NOTE_ID_PATTERN.test(v)
    ? undefined
    : "must be a note id: 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or a digit";
export function isIntIn(min: number, max: number): Check {
  return (v) =>
    typeof v === "number" && Number.isInteger(v) && v >= min && v <= max
      ? undefined
      : `must be an integer from ${min} to ${max}`;
}

export const isNoteIdArray: Check = (v) =>
  Array.isArray(v) && v.every((id) => isNoteId(id) === undefined)
    ? undefined
    : "must be an array of note ids";
/** An ISO 8601 date or date-time. */
export const isDateOrTime: Check = (v) =>
  typeof v === "string" && isValidTimeText(v)
    ? undefined
    : "must be an ISO 8601 date (2026-03-01) or date-time";
export const isDateOrTimeOrNull: Check = (v) => v === null ? undefined : isDateOrTime(v);

/** Checks `body[name]` when present; `required` also refuses it missing. */
export function field<T>(
  body: Record<string, unknown>,
  name: string,
  check: Check,
  action: string,
  options: { required?: boolean; details?: Record<string, unknown> } = {},
): T | undefined {
  const value = body[name];
  if (value === undefined) {
    if (options.required) {
      throw invalid(`Cannot ${action}: field ${quote(name)} is missing`, {
        ...options.details,
        field: name,
      });
    }
    return undefined;
  }
  const problem = check(value);
  if (problem) {
    throw invalid(`Cannot ${action}: field ${quote(name)} ${problem}`, {
      ...options.details,
      field: name,
    });
  }
  return value as T;
}

/** `value` without its undefined fields. */
export function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
