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
 * import { currentPid } from "./_system.ts";
 * console.log(currentPid() > 0); // true
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
 * import { currentHost } from "./_system.ts";
 * console.log(typeof currentHost()); // "string"
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
 * import { currentPid, isProcessAlive } from "./_system.ts";
 * console.log(isProcessAlive(currentPid())); // true
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
