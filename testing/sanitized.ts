/**
 * Test helper: Deno's op and resource sanitizers, on (Deno 2.9 runs tests without them unless
 * asked). Every test that opens a `Memo` with embeddings on runs with them, so that a worker,
 * message port, timer or file left behind fails it: such a test file registers its tests with
 * {@linkcode sanitizedTest} (imported as `test`) instead of `Deno.test`. A protocol server that a
 * test calls without a connection that ends keeps its idle request timer (unreferenced) for
 * `requestTimeoutMs`; such a test gives it {@linkcode PLAIN_TIMER}.
 *
 * @example
 * ```ts
 * import { SANITIZED, sanitizedTest as test } from "./sanitized.ts";
 *
 * test("a test that leaves nothing behind", () => {});
 * test({ name: "an object form", fn: () => {} });
 * Deno.test("the options alone", SANITIZED, () => {});
 * ```
 *
 * @module
 */

import type { MemoMcpTimer } from "../server/options.ts";

/** `{ sanitizeOps: true, sanitizeResources: true }`. */
export const SANITIZED: { sanitizeOps: true; sanitizeResources: true } = {
  sanitizeOps: true,
  sanitizeResources: true,
};

/** `Deno.test` with {@linkcode SANITIZED}: a name and a function, or a definition. */
export function sanitizedTest(
  nameOrDefinition: string | Deno.TestDefinition,
  fn?: (t: Deno.TestContext) => void | Promise<void>,
): void {
  if (typeof nameOrDefinition === "string") {
    Deno.test({ name: nameOrDefinition, fn: fn!, ...SANITIZED });
  } else {
    Deno.test({ ...nameOrDefinition, ...SANITIZED });
  }
}

/**
 * The global `setTimeout` and `clearTimeout` as a server's `timer` option, behind handles that
 * cannot be unreferenced: the server then drops its request timer whenever no call is in flight,
 * instead of keeping it (unreferenced) for the next call.
 */
export const PLAIN_TIMER: MemoMcpTimer = {
  setTimeout: (callback, ms) => ({ id: setTimeout(callback, ms) }),
  clearTimeout: (handle) => clearTimeout((handle as { id: ReturnType<typeof setTimeout> }).id),
};
