/**
 * Scopes of memory: `user`, `project` and `local`, and the store that serves them as one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScopes, SCOPES } from "./mod.ts";
 * assert.equal(SCOPES.length, 3);
 * assert.deepEqual(parseScopes("user", "scope"), ["user"]);
 * ```
 *
 * @module
 */

export * from "./scopes.ts";
export * from "./scoped_store.ts";
export * from "./open_scopes.ts";
export * from "./scope_checks.ts";
export * from "./local_ignore.ts";
