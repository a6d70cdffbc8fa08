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

/**
 * `promise`, or a rejection naming `what` once `ms` have passed without it:
 * for an event that a broken behaviour would leave pending for ever.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settled } from "./wait.ts";
 *
 * assert.equal(await settled(Promise.resolve(7), "seven"), 7);
 * await assert.rejects(settled(new Promise(() => {}), "never", 30), /^Error: Cannot wait for never/);
 * ```
 */
export async function settled<T>(promise: Promise<T>, what: string, ms: number = STUCK_MS) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Cannot wait for ${what}: it did not happen within ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
