/**
 * The context of one HTTP message ({@linkcode HttpRequestContext}): its abort signal, linked to the
 * client only once the answer is slow ({@linkcode watched}), and the notifications it sends before
 * its answer, streamed live ({@linkcode liveEvents}).
 *
 * @module
 */

import { sseEvent } from "./responses.ts";
import { jsonRpcCodeOf, type SafeError, toSafeError } from "../errors.ts";
import { rpcErrorJson } from "../protocol/jsonrpc.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import { type Deadline, DeadlineQueue } from "../core/deadline_queue.ts";

const encoder = new TextEncoder();

/**
 * The events of a streamed answer: the notifications sent so far, then each one as it is sent, then
 * the answer (or its error), then the end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpRequestContext, liveEvents } from "./_http_context.ts";
 *
 * const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
 * const context = new HttpRequestContext(request, undefined, "2026-07-28", 0, []);
 * const stream = liveEvents(['{"n":1}'], context, Promise.resolve('{"id":1}'), "1");
 * assert.equal(
 *   await new Response(stream).text(),
 *   'event: message\ndata: {"n":1}\n\nevent: message\ndata: {"id":1}\n\n',
 * );
 * ```
 */
export function liveEvents(
  sent: readonly string[],
  context: HttpRequestContext,
  answering: Promise<string | undefined>,
  idJson: string,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (json: string) => {
        try {
          controller.enqueue(encoder.encode(sseEvent(json)));
        } catch { /* the client went away */ }
      };
      for (const message of sent) send(message);
      context.streamTo(send);
      answering.then(
        (answer) => answer !== undefined && send(answer),
        (e) => {
          const data = toSafeError(e);
          send(rpcErrorJson(idJson, jsonRpcCodeOf(e), data.message, data));
        },
      ).finally(() => {
        try {
          controller.close();
        } catch { /* already closed */ }
      });
    },
  });
}

/**
 * How long an answer may take before the handler starts watching for the client going away. Reading
 * `request.signal` makes Deno abort it, with a new DOMException, when the response ends: about 12
 * µs on every request, so only answers slower than this pay it.
 */
const WATCH_AFTER_MS = 50;
const watches = new DeadlineQueue(WATCH_AFTER_MS, { linger: true });

/**
 * The context of one HTTP message. Its `signal` is the handler's own, created when the protocol
 * server asks for it (tool calls do); the handler links it to the request's signal only once the
 * answer is slow.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpRequestContext } from "./_http_context.ts";
 *
 * const logs: string[] = [];
 * const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
 * const context = new HttpRequestContext(request, undefined, "2026-07-28", 42, logs);
 * context.notify!('{"jsonrpc":"2.0","method":"notifications/progress"}');
 * assert.equal(logs.length, 1);
 * assert.equal(await context.notifiedBefore(new Promise(() => {})), true);
 * assert.equal(context.watched, false);
 * assert.equal(context.signal.aborted, false);
 * assert.equal(context.watched, true); // the protocol server asked for the signal
 * ```
 */
export class HttpRequestContext implements MemoMcpRequestContext {
  readonly transport = "http" as const;
  #controller: AbortController | undefined;
  /** The JSON-RPC error code of the answer, when it is an error. */
  errorCode: number | undefined;
  /** Collects the request's log records and progress, when it asked for them and can take SSE. */
  readonly notify?: (message: string) => void;
  #live: ((message: string) => void) | undefined;
  #notified: Promise<true> | undefined;
  constructor(
    readonly request: Request,
    readonly authInfo: MemoMcpRequestContext["authInfo"],
    readonly protocolVersion: string,
    readonly inputBytes: number,
    logs?: string[],
  ) {
    if (logs === undefined) return;
    let first!: (value: true) => void;
    this.#notified = new Promise<true>((resolve) => (first = resolve));
    this.notify = (message) => {
      if (this.#live) return this.#live(message);
      logs.push(message);
      first(true);
    };
  }
  /** Whether a notification is sent before `answer` settles. */
  notifiedBefore(answer: Promise<unknown>): Promise<boolean> {
    const settled = answer.then(() => false, () => false);
    return this.#notified ? Promise.race([settled, this.#notified]) : settled;
  }
  /** From now on, notifications go straight to `send` (a live stream). */
  streamTo(send: (message: string) => void): void {
    this.#live = send;
  }
  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }
  /** Whether the answer is an authorization error for the caller's scope. */
  scopeRefused = false;
  onError(code: number, data?: SafeError): void {
    this.errorCode = code;
    this.scopeRefused = data?.code === "MCP_AUTHORIZATION_ERROR" &&
      (data.details as { reason?: unknown } | undefined)?.reason === "insufficient_scope";
  }
  /** Whether the protocol server asked for `signal`. */
  get watched(): boolean {
    return this.#controller !== undefined;
  }
  /** From now on, `signal` aborts when the client goes away. */
  link(): void {
    const controller = this.#controller!;
    const outer = this.request.signal;
    if (outer.aborted) controller.abort(outer.reason);
    else outer.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
  }
}

/**
 * Waits for `answer`, linking the context's signal to the client if it takes long.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpRequestContext, watched } from "./_http_context.ts";
 *
 * const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
 * const context = new HttpRequestContext(request, undefined, "2026-07-28", 0);
 * assert.equal(await watched(Promise.resolve("answer"), context), "answer");
 * ```
 */
export async function watched<T>(answer: Promise<T>, context: HttpRequestContext): Promise<T> {
  const watch = watchSlow(context);
  try {
    return await answer;
  } finally {
    unwatch(watch);
  }
}

/**
 * Starts watching a context whose signal the protocol server took: if its answer is still pending
 * {@linkcode WATCH_AFTER_MS} from now, the signal is linked to the client. Undefined (nothing to
 * watch) when the server never asked for the signal. End it with {@linkcode unwatch} when the
 * answer settles. The handler's inline form of {@linkcode watched}, without an async frame.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpRequestContext, unwatch, watchSlow } from "./_http_context.ts";
 *
 * const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
 * const context = new HttpRequestContext(request, undefined, "2026-07-28", 0);
 * assert.equal(watchSlow(context), undefined); // no signal taken: nothing to watch
 * context.signal;
 * const watch = watchSlow(context);
 * assert.ok(watch);
 * unwatch(watch);
 * ```
 */
export function watchSlow(context: HttpRequestContext): Deadline | undefined {
  return context.watched ? watches.add(() => context.link()) : undefined;
}

/**
 * Ends a watch of {@linkcode watchSlow} (nothing for undefined).
 *
 * @example
 * ```ts
 * import { unwatch } from "./_http_context.ts";
 *
 * unwatch(undefined);
 * ```
 */
export function unwatch(watch: Deadline | undefined): void {
  if (watch !== undefined) watches.cancel(watch);
}
