/**
 * Internal: the graceful stop that `memo serve` and `memo cloud serve` share.
 * On SIGTERM or SIGINT the server stops accepting connections, open streams
 * are told to end, and the requests in flight get at most
 * {@linkcode SHUTDOWN_GRACE_MS} to finish; then the command closes its
 * runtime or store and returns (the process exits 0, dropping what is left).
 *
 * @module
 */

import type { CliIO } from "./context.ts";

/**
 * How long requests in flight may take once a shutdown signal came.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SHUTDOWN_GRACE_MS } from "./_shutdown.ts";
 *
 * assert.equal(SHUTDOWN_GRACE_MS, 1000);
 * ```
 */
export const SHUTDOWN_GRACE_MS = 1_000;

/**
 * What {@linkcode shutdownOnSignal}'s `wait` watches.
 *
 * @example
 * ```ts
 * import type { Stoppable } from "./_shutdown.ts";
 *
 * const server: Stoppable = { finished: Promise.resolve() };
 * await server.finished;
 * ```
 */
export interface Stoppable {
  /** Resolves when the server has stopped (every response finished). */
  finished: Promise<void>;
}

/**
 * Registers the shutdown signals: on the first, `onSignal` runs (it aborts
 * the server and ends open streams). `wait(server)` resolves when the server
 * finished, or {@linkcode SHUTDOWN_GRACE_MS} after the signal, whichever
 * comes first; `remove()` unregisters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shutdownOnSignal } from "./_shutdown.ts";
 *
 * let signal = () => {};
 * const io = { onShutdownSignal: (callback: () => void) => ((signal = callback), () => {}) };
 * let aborted = false;
 * const shutdown = shutdownOnSignal(io, () => (aborted = true));
 * const started = Date.now();
 * signal(); // SIGTERM; a server that never finishes is given up after the grace
 * await shutdown.wait({ finished: new Promise(() => {}) });
 * assert.ok(aborted);
 * assert.ok(Date.now() - started < 1500);
 * shutdown.remove();
 * ```
 */
export function shutdownOnSignal(
  io: Pick<CliIO, "onShutdownSignal">,
  onSignal: () => void,
): { wait(server: Stoppable): Promise<void>; remove(): void } {
  let resolveSignalled!: () => void; // not Promise.withResolvers: Node 20 lacks it
  const signalled = new Promise<void>((resolve) => (resolveSignalled = resolve));
  let fired = false;
  const remove = io.onShutdownSignal?.(() => {
    if (fired) return;
    fired = true;
    onSignal();
    resolveSignalled();
  }) ?? (() => {});
  return {
    async wait(server) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = signalled.then(() =>
        new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))
      );
      try {
        await Promise.race([server.finished, grace]);
      } finally {
        clearTimeout(timer);
      }
    },
    remove,
  };
}
