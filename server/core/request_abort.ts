/**
 * Hearing of a request's abort without making its signal. An `AbortController` is the dearest part
 * of a short tool call under Node (about 2 µs to make, and an event target to collect), and a
 * request that answers at once never needs one: a transport whose signal is made on demand (an
 * HTTP request's, linked to the client only once its answer is slow) offers {@linkcode ON_ABORT}
 * instead, and the core listens there.
 *
 * @module
 */

/**
 * The key of a transport context's abort hook: `context[ON_ABORT](listener)` calls `listener` once
 * when the request is aborted (the client went away), and answers the function that stops
 * listening. Internal: the HTTP transport's context has it, and so does the core's context of a
 * request passed on from it (`CoreContext`); any other context is heard through its `signal`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ON_ABORT, onAbortOf } from "./request_abort.ts";
 *
 * let hooked: (() => void) | undefined;
 * const context = { [ON_ABORT]: (listener: () => void) => ((hooked = listener), () => {}) };
 * let heard = 0;
 * onAbortOf(context, () => heard++);
 * hooked!();
 * assert.equal(heard, 1);
 * ```
 */
export const ON_ABORT: unique symbol = Symbol("memo.onAbort");

/** A context that can be aborted: its abort hook, else its signal. */
export interface Abortable {
  /** Aborted when the request is. */
  readonly signal?: AbortSignal;
  /** See {@linkcode ON_ABORT}. */
  readonly [ON_ABORT]?: (listener: () => void) => () => void;
}

const NOTHING = () => {};

/**
 * Calls `listener` once when `context`'s request is aborted (at once when it already is), through
 * its {@linkcode ON_ABORT} hook when it has one, else through its signal; answers the function
 * that stops listening. A context with neither is never aborted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { onAbortOf } from "./request_abort.ts";
 *
 * const controller = new AbortController();
 * let heard = 0;
 * const stop = onAbortOf({ signal: controller.signal }, () => heard++);
 * controller.abort();
 * assert.equal(heard, 1);
 * stop();
 * assert.equal(onAbortOf({ signal: AbortSignal.abort() }, () => heard++)(), undefined);
 * assert.equal(heard, 2); // already aborted: heard at once
 * ```
 */
export function onAbortOf(context: Abortable, listener: () => void): () => void {
  const hook = context[ON_ABORT];
  if (hook !== undefined) return hook.call(context, listener);
  const signal = context.signal;
  if (signal === undefined) return NOTHING;
  if (signal.aborted) {
    listener();
    return NOTHING;
  }
  // An abort fires once, and the caller stops listening when done: no `once` option to convert.
  signal.addEventListener("abort", listener);
  return () => signal.removeEventListener("abort", listener);
}
