/**
 * The checks a `Memo` client runs on the scopes a call names, and its counts per scope.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";
import type { Note } from "../notes/note.ts";
import type { MemoryStore } from "../store/store.ts";
import { parseScope, parseScopes, type Scope, scopeOf } from "./scopes.ts";
import { ScopedMemoryStore } from "./scoped_store.ts";

/**
 * Checks the scopes a call names (`undefined` entries are the default): each must be a scope the
 * store serves. A store that does not serve scopes serves `project` alone. With `many`, `scope`
 * may be one scope or an array (a read); else each entry is one scope (writes). Throws
 * `MemoryValidationError`, naming the call and why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkScopes, FileMemoryStore } from "@memo/memory";
 * const store = new FileMemoryStore({ rootDir: "/p" });
 * checkScopes(store, [undefined, "project"], "remember the note");
 * assert.throws(() => checkScopes(store, ["user"], "remember the note"), /user scope is not served/);
 * assert.throws(() => checkScopes(store, "team", "recall", true), /scope must be one of/);
 * ```
 */
export function checkScopes(
  store: MemoryStore,
  scope: unknown,
  action: string,
  many = false,
): void {
  try {
    const named: Scope[] = many
      ? parseScopes(scope, "scope")
      : (scope as unknown[]).filter((s) => s !== undefined).map((s) => parseScope(s, "scope"));
    if (store instanceof ScopedMemoryStore) store.checkServed(named);
    else {
      for (const s of named) {
        if (s !== "project") {
          throw new MemoryValidationError(
            `The ${s} scope is not served here: this memory holds the project's notes only`,
            { details: { field: "scope", scope: s } },
          );
        }
      }
    }
  } catch (e) {
    if (e instanceof MemoryValidationError) {
      throw new MemoryValidationError(`Cannot ${action}: ${e.message}`, {
        details: { field: "scope" },
      });
    }
    throw e;
  }
}

/**
 * Notes per scope served (`undefined` for a store that does not serve scopes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileMemoryStore, scopeCounts } from "@memo/memory";
 * assert.equal(scopeCounts(new FileMemoryStore({ rootDir: "/p" }), []), undefined);
 * ```
 */
export function scopeCounts(
  store: MemoryStore,
  notes: Iterable<Note>,
): Partial<Record<Scope, number>> | undefined {
  if (!(store instanceof ScopedMemoryStore)) return undefined;
  const counts: Partial<Record<Scope, number>> = {};
  for (const s of store.scopes) counts[s] = 0;
  for (const note of notes) {
    const s = scopeOf(note);
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return counts;
}
