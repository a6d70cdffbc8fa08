/**
 * Internal: how {@linkcode MemoCloudClient} reads the Cloud API's answers and writes its requests:
 * an answer of the wrong shape becomes a `MemoCloudError` (`unavailable`), ids are shortened for
 * messages, and undefined fields are left out of a body.
 *
 * @module
 */

import { MemoCloudError } from "./errors.ts";
import type { MemoCloudNote } from "./client_types.ts";

/**
 * The error of an answer whose body is not what `action` expects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unexpected } from "./_answers.ts";
 * const e = unexpected("recall");
 * assert.equal(e.code, "unavailable");
 * assert.equal(e.message, "Cannot recall: the Memo Cloud API answered with an unexpected body");
 * ```
 */
export function unexpected(action: string): MemoCloudError {
  return new MemoCloudError(
    "unavailable",
    `Cannot ${action}: the Memo Cloud API answered with an unexpected body`,
  );
}

/**
 * `body` as an object, or the {@linkcode unexpected} error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectOf } from "./_answers.ts";
 * assert.deepEqual(objectOf({ hits: [] }, "recall"), { hits: [] });
 * assert.throws(() => objectOf([], "recall"), { code: "unavailable" });
 * ```
 */
export function objectOf(body: unknown, action: string): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw unexpected(action);
  return body as Record<string, unknown>;
}

/**
 * `value` as a note (an object with a string `id` and a numeric `revision`), or the
 * {@linkcode unexpected} error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noteOf } from "./_answers.ts";
 * assert.equal(noteOf({ id: "n1", revision: 2 }, "get note n1").revision, 2);
 * assert.throws(() => noteOf({ id: "n1" }, "get note n1"), { code: "unavailable" });
 * ```
 */
export function noteOf(value: unknown, action: string): MemoCloudNote {
  const note = objectOf(value, action);
  if (typeof note.id !== "string" || typeof note.revision !== "number") throw unexpected(action);
  return note as unknown as MemoCloudNote;
}

/**
 * `value` as an array, or the {@linkcode unexpected} error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { arrayOf } from "./_answers.ts";
 * assert.deepEqual(arrayOf([1], "list the notes"), [1]);
 * assert.throws(() => arrayOf(undefined, "list the notes"), { code: "unavailable" });
 * ```
 */
export function arrayOf(value: unknown, action: string): unknown[] {
  if (!Array.isArray(value)) throw unexpected(action);
  return value;
}

/**
 * A write's `status`, or the {@linkcode unexpected} error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusOf } from "./_answers.ts";
 * assert.equal(statusOf("updated", "remember the note"), "updated");
 * assert.throws(() => statusOf("kept", "remember the note"), { code: "unavailable" });
 * ```
 */
export function statusOf(value: unknown, action: string): "written" | "updated" | "unchanged" {
  if (value === "written" || value === "updated" || value === "unchanged") return value;
  throw unexpected(action);
}

/**
 * An id as it may appear in a message: short, printable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shortId } from "./_answers.ts";
 * assert.equal(shortId("n1\n"), "n1?");
 * assert.equal(shortId("x".repeat(100)).length, 64);
 * ```
 */
export function shortId(id: string): string {
  const clean = String(id).replace(/[^\x21-\x7e]/g, "?");
  return clean.length > 64 ? `${clean.slice(0, 63)}…` : clean;
}

/**
 * `value` without its undefined fields (so that they are not sent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defined } from "./_answers.ts";
 * assert.deepEqual(defined({ text: "a", title: undefined }), { text: "a" });
 * ```
 */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
