/**
 * Internal: what a request runs with. The core's context for one request (its transport, its
 * signal, its version, and the log and progress notifications it may send), and the requests in
 * flight on a connection, which `notifications/cancelled` aborts.
 *
 * @module
 */

import type { MemoMcpLogLevel } from "./logging.ts";
import type { MemoMcpRequestContext } from "./types.ts";
import type { CoreContext } from "./core/core.ts";
import { LOG_LEVELS } from "./protocol/capabilities.ts";
import { notifyWithin } from "./tools/results.ts";
import type { Session } from "./protocol/session.ts";
import type { RequestEra } from "./protocol/request_era.ts";
import { ON_ABORT, onAbortOf } from "./core/request_abort.ts";

/**
 * The requests in flight on one protocol server, by id, and the context each runs with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore } from "./core/core.ts";
 * import { Session } from "./protocol/session.ts";
 * import { RequestTracker } from "./_request_context.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const session = new Session(new McpCore(resolveMemoMcpOptions({ runtime })), 1_000_000);
 * const requests = new RequestTracker(session, "memo", 1_000_000);
 * const era = { version: "2025-06-18", stateless: false, logLevel: -1 };
 * const aborted = await requests.tracked("7", { transport: "stdio" }, era, (ctx) => {
 *   requests.cancel("7"); // as notifications/cancelled for request 7 does
 *   return Promise.resolve(ctx.signal?.aborted);
 * });
 * assert.equal(aborted, true);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class RequestTracker {
  readonly #inFlight = new Map<string, AbortController>();
  readonly #session: Session;
  readonly #logger: string;
  readonly #maxOutput: number;

  /**
   * Requests of a server named `logger` (the log notifications' `logger`), whose notifications are
   * held to `maxOutput` bytes each.
   */
  constructor(session: Session, logger: string, maxOutput: number) {
    this.#session = session;
    this.#logger = logger;
    this.#maxOutput = maxOutput;
  }

  /** Aborts the request in flight whose id serializes to `idJson`, if any. */
  cancel(idJson: string): void {
    this.#inFlight.get(idJson)?.abort();
  }

  /** Runs `fn` with a signal that the client's cancellation also aborts. */
  tracked<T>(
    idJson: string,
    context: MemoMcpRequestContext,
    request: RequestEra,
    fn: (ctx: CoreContext) => Promise<T>,
  ): Promise<T> {
    // Cancellation is per connection: only stateful transports register, and a
    // client that reuses an id in flight cannot cancel the second request.
    // The others just pass their transport's signal on (no async frame of their own).
    if (context.protocolVersion !== undefined || this.#inFlight.has(idJson)) {
      const ctx = this.#withNotices(
        new PassedOnContext(context, request.version),
        context,
        request,
      );
      let answer: Promise<T>;
      try {
        answer = Promise.resolve(fn(ctx));
      } catch (e) {
        answer = Promise.reject(e);
      }
      // A transport without the hook is heard through its signal, which may outlive the request.
      return ON_ABORT in context ? answer : answer.finally(() => ctx.release());
    }
    return this.#registered(idJson, context, request, fn);
  }

  async #registered<T>(
    idJson: string,
    context: MemoMcpRequestContext,
    request: RequestEra,
    fn: (ctx: CoreContext) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const unlink = onAbortOf(context, () => controller.abort());
    this.#inFlight.set(idJson, controller);
    try {
      const ctx: CoreContext = {
        transport: context.transport,
        request: context.request,
        authInfo: context.authInfo,
        version: request.version,
        signal: controller.signal,
        abort: (reason) => controller.abort(reason),
      };
      return await fn(this.#withNotices(ctx, context, request));
    } finally {
      unlink();
      this.#inFlight.delete(idJson);
    }
  }

  /** `ctx` with the log and progress notifications the request may send. */
  #withNotices<C extends CoreContext>(
    ctx: C,
    context: MemoMcpRequestContext,
    request: RequestEra,
  ): C {
    const notify = context.notify;
    // A stateless request names its own log level; a session connection sets one
    // with logging/setLevel.
    const threshold = request.stateless ? request.logLevel : this.#session.logLevel;
    if (notify && threshold >= 0) {
      const logger = this.#logger;
      ctx.notify = (level: MemoMcpLogLevel, data: Record<string, unknown>) => {
        if (LOG_LEVELS.indexOf(level) < threshold) return;
        notify(JSON.stringify({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level, logger, data },
        }));
      };
    }
    const progressToken = request.progressToken;
    if (notify && progressToken !== undefined) {
      const maxOutput = this.#maxOutput;
      let last = -Infinity;
      ctx.progress = (progress, total, message) => {
        // The spec wants progress to increase with each notification.
        if (!Number.isFinite(progress) || progress <= last) return;
        last = progress;
        const params: Record<string, unknown> = { progressToken, progress };
        if (total !== undefined && Number.isFinite(total)) params.total = total;
        if (message !== undefined) params.message = message;
        notifyWithin(notify, maxOutput, {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params,
        });
      };
    }
    return ctx;
  }
}

/**
 * The core's context of a request that is not registered (stateless HTTP): its signal is its own,
 * made when first read and linked then to the transport's abort. Until then the core hears of the
 * abort through the transport's {@linkcode ON_ABORT} hook, so an HTTP request whose answer needs
 * no signal makes no `AbortController`. The hook's listeners live as long as the message; a
 * transport without it is heard through its signal, and {@linkcode PassedOnContext.release} stops
 * that once the request is answered.
 */
class PassedOnContext implements CoreContext {
  readonly transport: CoreContext["transport"];
  readonly request: Request | undefined;
  readonly authInfo: CoreContext["authInfo"];
  notify?: CoreContext["notify"];
  progress?: CoreContext["progress"];
  #own: AbortController | undefined;
  #unlink: (() => void) | undefined;

  readonly #context: MemoMcpRequestContext;

  constructor(context: MemoMcpRequestContext, readonly version: string) {
    this.#context = context;
    this.transport = context.transport;
    this.request = context.request;
    this.authInfo = context.authInfo;
  }

  get signal(): AbortSignal {
    if (this.#own === undefined) {
      const own = this.#own = new AbortController();
      this.#unlink = onAbortOf(this.#context, () => own.abort());
    }
    return this.#own.signal;
  }

  [ON_ABORT](listener: () => void): () => void {
    return onAbortOf(this.#context, listener);
  }

  abort(reason: unknown): void {
    this.#own?.abort(reason);
  }

  /** Stops listening to the transport for the signal. */
  release(): void {
    this.#unlink?.();
  }
}
