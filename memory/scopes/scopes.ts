/**
 * The three scopes of memory: `user` (the person's, in every project), `project` (the team's,
 * committed with the project) and `local` (private to this checkout). A note's scope is the file
 * that holds it, never a field of `notes.md`.
 *
 * @module
 */

import { join } from "node:path";
import { MemoryValidationError } from "../errors.ts";

/**
 * Where a note lives: `user` (`$MEMO_HOME/memory/notes.md`), `project`
 * (`.memo/memory/notes.md`) or `local` (`.memo/memory/notes.local.md`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Scope } from "@memo/memory";
 * const scope: Scope = "local";
 * assert.equal(scope, "local");
 * ```
 */
export type Scope = "user" | "project" | "local";

/**
 * Every scope, in the order reads hold them: project, local, user.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SCOPES } from "@memo/memory";
 * assert.deepEqual(SCOPES, ["project", "local", "user"]);
 * ```
 */
export const SCOPES: readonly Scope[] = Object.freeze(["project", "local", "user"] as const);

/**
 * What each scope is for, in the words the tool descriptions and the CLI's help use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SCOPE_PURPOSES } from "@memo/memory";
 * assert.match(SCOPE_PURPOSES.user, /every project/);
 * ```
 */
export const SCOPE_PURPOSES: Readonly<Record<Scope, string>> = Object.freeze({
  user: "about the person, for every project (preferences, people, habits)",
  project: "about this project, shared with the team",
  local: "private to this checkout, never committed or replicated",
});

/**
 * Whether `value` names a scope.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isScope } from "@memo/memory";
 * assert.ok(isScope("user"));
 * assert.ok(!isScope("global"));
 * ```
 */
export function isScope(value: unknown): value is Scope {
  return value === "user" || value === "project" || value === "local";
}

/**
 * The scope of a note: its `scope`, else `project` (the project's notes carry no tag).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scopeOf } from "@memo/memory";
 * assert.equal(scopeOf({}), "project");
 * assert.equal(scopeOf({ scope: "user" }), "user");
 * ```
 */
export function scopeOf(note: { scope?: Scope }): Scope {
  return note.scope ?? "project";
}

/**
 * One scope from a caller's value; throws `MemoryValidationError` naming `field` otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScope } from "@memo/memory";
 * assert.equal(parseScope("local", "scope"), "local");
 * assert.throws(() => parseScope("team", "scope"), /scope must be one of user, project, local/);
 * ```
 */
export function parseScope(value: unknown, field: string): Scope {
  if (isScope(value)) return value;
  throw new MemoryValidationError(
    `${field} must be one of user, project, local (got ${JSON.stringify(value) ?? "nothing"})`,
    { details: { field } },
  );
}

/**
 * Scopes from a caller's value: one name or a non-empty array of names, without repeats kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScopes } from "@memo/memory";
 * assert.deepEqual(parseScopes("user", "scope"), ["user"]);
 * assert.deepEqual(parseScopes(["local", "user", "local"], "scope"), ["local", "user"]);
 * assert.throws(() => parseScopes([], "scope"), /at least one/);
 * ```
 */
export function parseScopes(value: unknown, field: string): Scope[] {
  if (!Array.isArray(value)) return [parseScope(value, field)];
  if (value.length === 0) {
    throw new MemoryValidationError(`${field} must name at least one scope`, {
      details: { field },
    });
  }
  return [...new Set(value.map((v) => parseScope(v, field)))];
}

/**
 * The files of each scope: the notes file, and the folder its caches live in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scopePaths } from "@memo/memory";
 * assert.equal(scopePaths("local", { rootDir: "/p" }).notes, "/p/.memo/memory/notes.local.md");
 * assert.equal(scopePaths("local", { rootDir: "/p" }).cache, "/p/.memo/cache/local");
 * assert.equal(scopePaths("user", { rootDir: "/p", memoHome: "/h" }).notes, "/h/memory/notes.md");
 * ```
 */
export function scopePaths(
  scope: Scope,
  where: { rootDir: string; memoHome?: string },
): { notes: string; cache: string; root: string } {
  const memo = join(where.rootDir, ".memo");
  switch (scope) {
    case "project":
      return {
        notes: join(memo, "memory", "notes.md"),
        cache: join(memo, "cache"),
        root: where.rootDir,
      };
    case "local":
      return {
        notes: join(memo, "memory", "notes.local.md"),
        cache: join(memo, "cache", "local"),
        root: where.rootDir,
      };
    case "user": {
      if (!where.memoHome) {
        throw new MemoryValidationError(
          "The user scope needs MEMO_HOME (or HOME) to say where it lives",
        );
      }
      return {
        notes: join(where.memoHome, "memory", "notes.md"),
        cache: join(where.memoHome, "cache"),
        root: where.memoHome,
      };
    }
  }
}
