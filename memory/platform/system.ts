/**
 * Internal: the few facts about the running process that the file store needs
 * (its pid, the host name, whether another pid is alive). This is the only file
 * of the memory package that touches `node:process`.
 *
 * @module
 */

import process from "node:process";
import { hostname } from "node:os";

/**
 * The id of this process.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentPid } from "./system.ts";
 * assert.ok(currentPid() > 0);
 * ```
 */
export function currentPid(): number {
  return process.pid;
}

/**
 * The name of this host, as recorded in lock files.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentHost } from "./system.ts";
 * assert.equal(typeof currentHost(), "string");
 * ```
 */
export function currentHost(): string {
  try {
    return hostname();
  } catch {
    return "";
  }
}

/**
 * Whether a process with this id exists on this host (signal 0 probes without
 * sending anything). A process owned by another user counts as alive.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { currentPid, isProcessAlive } from "./system.ts";
 * assert.ok(isProcessAlive(currentPid()));
 * assert.ok(!isProcessAlive(0)); // not a process id
 * ```
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}
