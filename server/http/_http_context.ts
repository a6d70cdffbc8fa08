/**
 * The context of one HTTP message ({@linkcode HttpRequestContext}): its abort signal and hook,
 * linked to the client only once the answer is slow, and the notifications it sends before its
 * answer, streamed live ({@linkcode liveEvents}).
 *
 * @module
 */

import { sseEvent } from "./responses.ts";
import { jsonRpcCodeOf, type SafeError, toSafeError } from "../errors.ts";
import { rpcErrorJson } from "../protocol/jsonrpc.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import { type Deadline, DeadlineQueue } from "../core/deadline_queue.ts";
import { ON_ABORT } from "../core/request_abort.ts";

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
 * How long an answer may take before its context starts watching for the client going away.
 * Reading `request.signal` makes Deno abort it, with a new DOMException, when the response ends:
 * about 12 µs on every request, so only answers slower than this pay it.
 */
const WATCH_AFTER_MS = 50;
const watches = new DeadlineQueue(WATCH_AFTER_MS, { linger: true });

/**
 * The context of one HTTP message. Its `signal` is the handler's own, made when the protocol server
 * asks for it; the server may instead hear of the abort through its {@linkcode ON_ABORT} hook,
 * which makes no signal. Either starts a watch: once the answer is still pending
 * {@linkcode WATCH_AFTER_MS} later, the context is linked to the request's signal (the client going
 * away aborts `signal` and calls the hooked listeners). The handler ends the watch with `settled()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpRequestContext } from "./_http_context.ts";
 * import { ON_ABORT } from "../core/request_abort.ts";
 *
 * const logs: string[] = [];
 * const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
 * const context = new HttpRequestContext(request, undefined, "2026-07-28", 42, logs);
 * context.notify!('{"jsonrpc":"2.0","method":"notifications/progress"}');
 * assert.equal(logs.length, 1);
 * assert.equal(await context.notifiedBefore(new Promise(() => {})), true);
 * assert.equal(context.watched, false);
 * const stop = context[ON_ABORT](() => {});
 * assert.equal(context.watched, true); // the protocol server listens: the watch runs
 * stop();
 * assert.equal(context.signal.aborted, false);
 * context.settled(); // the answer is out: no watch is left
 * assert.equal(context.watched, false);
 * ```
 */
export class HttpRequestContext implements MemoMcpRequestContext {
  readonly transport = "http" as const;
  #controller: AbortController | undefined;
  /** The listeners of the abort hook, until the client goes away. */
  #listeners: (() => void)[] | undefined;
  #watch: Deadline | undefined;
  /** Linked to the request's signal (the answer was slow), or the answer is out. */
  #linked = false;
  #settled = false;
  #gone = false;
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
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#gone) this.#controller.abort(this.request.signal.reason);
      else this.#startWatch();
    }
    return this.#controller.signal;
  }
  /** Calls `listener` once when the client goes away; answers the function that stops that. */
  [ON_ABORT](listener: () => void): () => void {
    if (this.#gone) {
      listener();
      return () => {};
    }
    (this.#listeners ??= []).push(listener);
    this.#startWatch();
    return () => {
      const i = this.#listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.#listeners!.splice(i, 1);
    };
  }
  /** Whether the answer is an authorization error for the caller's scope. */
  scopeRefused = false;
  onError(code: number, data?: SafeError): void {
    this.errorCode = code;
    this.scopeRefused = data?.code === "MCP_AUTHORIZATION_ERROR" &&
      (data.details as { reason?: unknown } | undefined)?.reason === "insufficient_scope";
  }
  /** Whether a watch for the client going away is running. */
  get watched(): boolean {
    return this.#watch !== undefined;
  }
  /** The answer is out (or failed): the watch, if any, ends, and the hook's listeners go. */
  settled(): void {
    this.#settled = true;
    this.#listeners = undefined;
    if (this.#watch !== undefined) watches.cancel(this.#watch);
    this.#watch = undefined;
  }

  #startWatch(): void {
    if (this.#watch !== undefined || this.#linked || this.#settled) return;
    this.#watch = watches.add(() => {
      this.#watch = undefined;
      this.#link();
    });
  }

  /** From now on, the client going away aborts `signal` and calls the listeners. */
  #link(): void {
    this.#linked = true;
    const outer = this.request.signal;
    const gone = () => {
      this.#gone = true;
      this.#controller?.abort(outer.reason);
      const listeners = this.#listeners ?? [];
      this.#listeners = undefined;
      for (const listener of listeners) listener();
    };
    if (outer.aborted) gone();
    else outer.addEventListener("abort", gone, { once: true });
  }
}
