/**
 * The peak resident memory of this process, for the scale benchmarks. It imports nothing, so
 * that `_open_child.ts` can use it whichever tree it measures.
 *
 * @module
 */

/**
 * Peak resident memory of this process in MB (`VmHWM` on Linux; elsewhere the current RSS).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { peakRssMB } from "./_peak_rss.ts";
 * assert.ok(peakRssMB() > 0);
 * ```
 */
export function peakRssMB(): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
    if (kb) return Math.round(kb / 1024);
  } catch {
    // not Linux
  }
  return Math.round(Deno.memoryUsage().rss / 1e6);
}
