/**
 * The memory package's own platform seam: the process facts the file store needs (pid, host name,
 * liveness of a lock's owner). `@memo/memory` stands alone, so it cannot import the root
 * `platform/`; only files here touch the process.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentPid, isProcessAlive } from "./mod.ts";
 * assert.equal(isProcessAlive(currentPid()), true);
 * ```
 *
 * @module
 */

export * from "./system.ts";
export * from "./git_base.ts";
export * from "./replace_file.ts";
export * from "./stat_sync.ts";
