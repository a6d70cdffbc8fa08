/**
 * Test helper: waiting for what a test means, not for a time. Not published
 * (`testing/` is excluded from the packages).
 *
 * A test that waits for an event awaits the promise the event resolves, or
 * polls the condition with {@linkcode until}: its deadline only ends a test
 * that is stuck, so it is far longer than anything a loaded machine takes.
 *
 * @module
 */

/** How long {@linkcode until} polls before it gives up: only a stuck test gets there. */
export const STUCK_MS = 30_000;

/**
 * Waits until `check` holds, polling every few milliseconds; throws, naming
 * `what`, once `ms` have passed without it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { until } from "./wait.ts";
 *
 * let done = false;
 * setTimeout(() => done = true, 20);
 * await until(() => done, "the timer to fire");
 * await assert.rejects(until(() => false, "nothing", 30), /^Error: Cannot wait for nothing/);
 * ```
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms: number = STUCK_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Cannot wait for ${what}: it did not happen within ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
