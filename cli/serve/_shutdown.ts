/**
 * Internal: the start and the graceful stop that `memo serve` and `memo cloud serve` share
 * ({@linkcode listen}, {@linkcode shutdownOnSignal}).
 *
 * @module
 */

import type { CliIO } from "../context.ts";

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
 * What {@linkcode shutdownOnSignal}'s `wait` stops: a listening server.
 *
 * @example
 * ```ts
 * import type { Stoppable } from "./_shutdown.ts";
 *
 * const server: Stoppable = { finished: Promise.resolve(), shutdown: () => Promise.resolve() };
 * await server.shutdown();
 * await server.finished;
 * ```
 */
export interface Stoppable {
  /** Resolves when the server has stopped (every response finished). */
  finished: Promise<void>;
  /** Stops accepting connections and lets the requests in flight finish. */
  shutdown(): Promise<void>;
}

/**
 * Registers the shutdown signals. On the first one, `onSignal` runs with the signal's name when the
 * platform tells it (it tells open streams to end, or starts a drain); `stopAfterMs` later (a
 * number, or a function of the signal) the server stops accepting connections and lets what is in
 * flight finish (`shutdown()`). `wait(server, force)` resolves when the server has finished; when
 * it has not {@linkcode SHUTDOWN_GRACE_MS} after it stopped accepting, `force()` closes the
 * connections left (abort the server's signal) and `wait` resolves. `remaining()` is what is left
 * of that second (all of it before a signal), for the runtime's last push; `remove()` unregisters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shutdownOnSignal } from "./_shutdown.ts";
 *
 * let signal = () => {};
 * const io = { onShutdownSignal: (callback: () => void) => ((signal = callback), () => {}) };
 * const steps: string[] = [];
 * const shutdown = shutdownOnSignal(io, () => steps.push("streams told to end"));
 * const server = {
 *   finished: new Promise<void>(() => {}), // a request that never ends
 *   shutdown: () => (steps.push("stopped accepting"), Promise.resolve()),
 * };
 * const started = Date.now();
 * signal(); // SIGTERM
 * await shutdown.wait(server, () => steps.push("forced"));
 * assert.deepEqual(steps, ["streams told to end", "stopped accepting", "forced"]);
 * assert.ok(Date.now() - started < 1500);
 * assert.equal(shutdown.remaining(), 0); // the grace is spent
 * shutdown.remove();
 * ```
 */
export function shutdownOnSignal(
  io: Pick<CliIO, "onShutdownSignal">,
  onSignal: (signal?: "SIGINT" | "SIGTERM") => void,
  stopAfterMs: number | ((signal?: "SIGINT" | "SIGTERM") => number) = 0,
): {
  wait(server: Stoppable, force: () => void): Promise<void>;
  remaining(): number;
  remove(): void;
} {
  let resolveSignalled!: () => void; // not Promise.withResolvers: Node 20 lacks it
  const signalled = new Promise<void>((resolve) => (resolveSignalled = resolve));
  let fired = false;
  let signalAt: number | undefined;
  let stopAfter = 0;
  const remove = io.onShutdownSignal?.((signal) => {
    if (fired) return;
    fired = true;
    signalAt = Date.now();
    stopAfter = typeof stopAfterMs === "function" ? stopAfterMs(signal) : stopAfterMs;
    onSignal(signal);
    resolveSignalled();
  }) ?? (() => {});
  const sleep = (ms: number, timers: ReturnType<typeof setTimeout>[]) =>
    new Promise<void>((resolve) => timers.push(setTimeout(resolve, ms)));
  return {
    async wait(server, force) {
      const timers: ReturnType<typeof setTimeout>[] = [];
      let done = false;
      const finished = server.finished.then(() => (done = true));
      void signalled.then(async () => {
        await sleep(stopAfter, timers);
        if (!done) await server.shutdown().catch(() => {});
      });
      // Requests in flight get the grace once the server stops accepting (after any drain).
      const grace = signalled.then(() => sleep(stopAfter + SHUTDOWN_GRACE_MS, timers));
      try {
        await Promise.race([finished, grace]);
        if (!done) {
          force();
          // Closing the connections ends the server at once; do not hang on it.
          await Promise.race([finished, sleep(100, timers)]);
        }
      } finally {
        for (const timer of timers) clearTimeout(timer);
      }
    },
    remaining: () =>
      signalAt === undefined
        ? SHUTDOWN_GRACE_MS
        : Math.max(0, SHUTDOWN_GRACE_MS - (Date.now() - signalAt)),
    remove,
  };
}

/**
 * Starts `serve` on `at`; when that fails (the port is taken, the host unknown), runs `undo` (closes
 * what was opened for the server) and throws an Error that names the address and the reason.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listen } from "./_shutdown.ts";
 *
 * const taken = () => Promise.reject(Object.assign(new Error("in use"), { code: "EADDRINUSE" }));
 * let undone = false;
 * const at = { hostname: "127.0.0.1", port: 8787 };
 * await assert.rejects(
 *   listen(taken, () => new Response(), at, new AbortController().signal, async () => {
 *     undone = true;
 *   }),
 *   { message: "Cannot listen on 127.0.0.1:8787: EADDRINUSE" },
 * );
 * assert.ok(undone);
 * ```
 */
export async function listen(
  serve: NonNullable<CliIO["serve"]>,
  handler: (request: Request) => Response | Promise<Response>,
  at: { hostname: string; port: number },
  signal: AbortSignal,
  undo: () => Promise<void>,
): ReturnType<NonNullable<CliIO["serve"]>> {
  try {
    return await serve(handler, { hostname: at.hostname, port: at.port, signal });
  } catch (e) {
    await undo();
    const reason = (e as { code?: string }).code ?? (e instanceof Error ? e.message : String(e));
    throw new Error(`Cannot listen on ${at.hostname}:${at.port}: ${reason}`);
  }
}
