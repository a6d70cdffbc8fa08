/**
 * memo and git: the wiring of the notes' merge driver (`memo init` writes it, a clone without it
 * is warned) and `memo doctor`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_GITATTRIBUTES_LINE } from "./mod.ts";
 *
 * assert.equal(MEMO_GITATTRIBUTES_LINE, "memory/notes.md merge=memo");
 * ```
 *
 * @module
 */

export * from "./wiring.ts";
export * from "./warning.ts";
export * from "./doctor.ts";
