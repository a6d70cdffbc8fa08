/**
 * The MCP core shared by the protocol server and the SDK bridge: tool calls (authorization,
 * validation, runtime call under the timeout, tool errors), resources, prompts, completion and
 * logging. It knows nothing of JSON-RPC framing; failures that must become JSON-RPC errors are
 * thrown as {@linkcode RpcFailure}.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import {
  jsonRpcCodeOf,
  McpConflictError,
  McpNotFoundError,
  McpTimeoutError,
  McpValidationError,
  MemoMcpError,
  toSafeError,
} from "../errors.ts";
import type { MemoMcpLogLevel } from "../logging.ts";
import type { ResolvedMemoMcpOptions } from "../options.ts";
import type { MemoMcpAuthInfo, MemoMcpTransportKind } from "../types.ts";
import type { Catalog } from "../catalog/catalog.ts";
import { Redaction } from "./_redact.ts";
import { authorizeWrite } from "./_authorize.ts";
import { RpcFailure } from "./rpc_failure.ts";
import { listResources, readResource } from "../catalog/resources.ts";
import { type PromptName, type PromptResult, PROMPTS } from "../catalog/prompts.ts";
import { complete, type CompletionResult } from "../catalog/completion.ts";
import { type Deadline, DeadlineQueue } from "./deadline_queue.ts";
import { type ON_ABORT, onAbortOf } from "./request_abort.ts";
import { withMcpErrors } from "./_runtime_errors.ts";
import { writeAnswerLimitError } from "./_write_answer.ts";
import { safeDetails } from "../scrub.ts";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";

/**
 * Per-call facts the core gets from a transport.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { type CoreContext, McpCore } from "./core.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime }));
 * const logged: string[] = [];
 * const ctx: CoreContext = {
 *   transport: "stdio",
 *   version: "2025-06-18",
 *   notify: (level, data) => void logged.push(`${level} ${data.message}`),
 * };
 * await core.callTool("memory_stats", {}, ctx);
 * assert.deepEqual(logged, ["info tools/call memory_stats"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface CoreContext {
  /** Transport of the call. */
  transport: MemoMcpTransportKind;
  /** The HTTP request, over HTTP. */
  request?: Request;
  /** What the transport learnt about the caller. */
  authInfo?: MemoMcpAuthInfo;
  /**
   * Aborted when the client cancels or goes away (or, with `abort`, when the call times out). It
   * may be made when first read: read it only to hand it to work that can stop.
   */
  signal?: AbortSignal;
  /**
   * Hears of the client's cancel or departure without making `signal` (see {@linkcode ON_ABORT});
   * without it, the core listens to `signal`.
   */
  [ON_ABORT]?: (listener: () => void) => () => void;
  /**
   * Aborts `signal` with `reason` (a timeout). Given when `signal` is this request's own, made for
   * it alone: the core then hands it to the call as it is, with no controller of its own.
   */
  abort?: (reason: unknown) => void;
  /** Protocol version in force. */
  version: string;
  /** Sends a log record to the client (set only when the client asked for logs). */
  notify?: (level: MemoMcpLogLevel, data: Record<string, unknown>) => void;
  /**
   * Sends `notifications/progress` for this request (set only when it carries `_meta.progressToken`
   * and the transport can deliver notifications). Values that do not increase are dropped.
   */
  progress?: (progress: number, total?: number, message?: string) => void;
}

/**
 * The result of a tool call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore, type ToolCallOutcome } from "./core.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime }));
 * const ctx = { transport: "stdio" as const, version: "2025-06-18" };
 * const outcome: ToolCallOutcome = await core.callTool("get_note", { id: "nope" }, ctx);
 * assert.equal(outcome.isError, true); // an unknown note is a tool error the model reads
 * assert.equal(JSON.parse(outcome.json).error.code, "MCP_NOT_FOUND");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface ToolCallOutcome {
  /** `structuredContent`. */
  structured: Record<string, unknown>;
  /** `structured`, serialized once. */
  json: string;
  /** A tool error the model should read. */
  isError: boolean;
  /**
   * The serialized result the tool kept from an earlier call with the same hits (`json` is its
   * `json`); `toolResultJson` keeps the escaped text content in it too.
   */
  rendered?: { readonly json: string; textJson?: string };
}

const CANCELLED = Symbol("cancelled");
/** The signal of a call whose context gives none. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * The core of one server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore } from "./core.ts";
 * import { RpcFailure } from "./rpc_failure.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime, readOnly: true }));
 * const ctx = { transport: "stdio" as const, version: "2025-06-18" };
 * const prompt = await core.getPrompt("capture_session", {}, ctx);
 * assert.equal(prompt.messages.length, 1);
 * await assert.rejects(core.callTool("remember", { text: "x" }, ctx), (e) => {
 *   assert.ok(e instanceof RpcFailure);
 *   assert.equal(e.code, -32010); // read-only
 *   return true;
 * });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class McpCore {
  readonly options: ResolvedMemoMcpOptions;
  /** The runtime, with its errors mapped to MCP errors. */
  readonly runtime: MemoMcpRuntime;
  #catalog: Catalog | undefined;
  #loading: Promise<Catalog> | undefined;
  /** The `requestTimeoutMs` deadlines of the calls in flight, behind one timer. */
  #deadlines: DeadlineQueue;

  constructor(options: ResolvedMemoMcpOptions) {
    this.options = options;
    this.runtime = withMcpErrors(options.runtime);
    this.#deadlines = new DeadlineQueue(options.requestTimeoutMs, { timer: options.timer });
  }

  /**
   * The catalog, loaded (with zod) at the first call, with the runtime's recall settings (read
   * without loading notes), which the `recall` tool's description names. A runtime that cannot tell
   * them, or fails to, gets the general description.
   */
  catalog(): Catalog | Promise<Catalog> {
    if (this.#catalog) return this.#catalog;
    return this.#loading ??= this.#loadCatalog();
  }

  async #loadCatalog(): Promise<Catalog> {
    const runtime = this.options.runtime;
    const [m, recall] = await Promise.all([
      import("../catalog/catalog.ts"),
      (runtime.recallProfile?.() ?? Promise.resolve(undefined)).catch(() => undefined),
    ]);
    this.#catalog = m.getCatalog({ ...this.options, recall });
    return this.#catalog;
  }

  /**
   * A connection of this server ended (stdio: its input closed): when no call is in flight, the
   * request timer is dropped, so a finished session leaves no timer behind.
   */
  connectionClosed(): void {
    this.#deadlines.release();
  }

  /** Whether anything listens to logs for this call. */
  logging(ctx: CoreContext): boolean {
    return this.options.logger !== undefined || ctx.notify !== undefined;
  }

  /** Sends one record to the injected logger and, when asked for, to the client. */
  log(
    ctx: CoreContext,
    level: MemoMcpLogLevel,
    message: string,
    data: Record<string, unknown>,
  ): void {
    try {
      this.options.logger?.({ level, message, data });
    } catch {
      // a logger must not break a request
    }
    ctx.notify?.(level, { message, ...data });
  }

  /**
   * Runs `fn` under `requestTimeoutMs` and the client's signal. Timeouts and cancellations become
   * {@linkcode RpcFailure}s. A `write` the deadline finds under way is stopped through its signal,
   * and its answer is what it did: the timeout when it stopped before writing, its result when it
   * was past that point and wrote after all (it is given another `requestTimeoutMs` to say; then
   * the answer is the timeout).
   */
  async guard<T>(
    action: string,
    ctx: CoreContext,
    fn: (signal: AbortSignal) => Promise<T>,
    write = false,
  ): Promise<T> {
    const { requestTimeoutMs } = this.options;
    // The call's signal: the request's own when the context can abort it (a passed-on context
    // makes it here, as it is read for the call; the transport's own signal is still not made),
    // else a controller of the guard's, which the context's abort reaches.
    const own = ctx.abort === undefined ? new AbortController() : undefined;
    // One promise settles the call: fn's outcome, or the timeout, or the client's cancellation,
    // whichever comes first (the later ones do nothing). Each settles it before it aborts the
    // call's signal, so that what the call then throws is never taken for the cause.
    let settle!: (value: T) => void;
    let fail!: (reason: unknown) => void;
    const outcome = new Promise<T>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    let late: Deadline | undefined;
    let timedOut = false;
    const deadline = this.#deadlines.add(() => {
      const error = new McpTimeoutError(
        `Cannot ${action}: timed out after ${requestTimeoutMs} ms`,
        { details: { timeoutMs: requestTimeoutMs } },
      );
      // A write settles the call itself: its signal's abort stops it before it writes, and then it
      // throws the timeout; one past that point finishes, and says what it wrote.
      timedOut = true;
      if (write) late = this.#deadlines.add(() => fail(error));
      else fail(error);
      if (own) own.abort(error);
      else ctx.abort!(error);
    });
    const cancel = () => {
      if (timedOut) return; // the deadline's own abort of the context
      fail(CANCELLED);
      own?.abort(CANCELLED);
    };
    const stop = onAbortOf(ctx, cancel);
    try {
      fn(own ? own.signal : ctx.signal ?? NEVER_ABORTED).then(settle, fail);
    } catch (e) {
      fail(e); // thrown at once (invalid arguments): the same path as a rejection
    }
    try {
      return await outcome;
    } catch (e) {
      if (e === CANCELLED) {
        throw new RpcFailure(
          JSON_RPC_CODES.internalError,
          toSafeError(new MemoMcpError(`Cannot ${action}: cancelled by the client`)),
          true,
        );
      }
      if (e instanceof McpTimeoutError) throw new RpcFailure(jsonRpcCodeOf(e), toSafeError(e));
      throw e;
    } finally {
      this.#deadlines.cancel(deadline);
      if (late) this.#deadlines.cancel(late);
      stop();
    }
  }

  /** Turns anything thrown into an {@linkcode RpcFailure}. */
  failure(error: unknown, redaction?: Redaction): RpcFailure {
    if (error instanceof RpcFailure) {
      return redaction
        ? new RpcFailure(error.code, redaction.scrubError(error.data), error.cancelled)
        : error;
    }
    const safe = toSafeError(error);
    return new RpcFailure(jsonRpcCodeOf(error), redaction ? redaction.scrubError(safe) : safe);
  }

  /**
   * `tools/call`. Unknown tools, authorization, timeouts and I/O failures throw
   * {@linkcode RpcFailure}; invalid arguments and domain failures (an unknown note) come back as
   * tool errors.
   */
  async callTool(name: unknown, args: unknown, ctx: CoreContext): Promise<ToolCallOutcome> {
    const loaded = this.catalog();
    // After the first call the catalog is there: no await (a turn of the microtask queue) for it.
    const catalog = loaded instanceof Promise ? await loaded : loaded;
    const tool = typeof name === "string" ? catalog.tools.get(name) : undefined;
    if (!tool) {
      throw this.failure(
        new McpNotFoundError(`Cannot call tool ${String(name).slice(0, 100)}: unknown tool`, {
          details: { kind: "tool" },
        }),
      );
    }
    // A write whose answer could not be sent is refused before it writes anything: its new text,
    // and the stored notes it names, which the answer carries (forget, update, correct, supersede).
    const action = `call ${tool.info.name}`;
    const limit = this.options.maxOutputBytes;
    let tooBig = tool.info.write ? writeAnswerLimitError(action, args, limit) : undefined;
    // (Read where reads are local: the cloud runtime's would cost a request a note.)
    if (!tooBig && tool.info.write && this.runtime.kind !== "cloud") {
      const stored = await this.#storedTexts(args);
      // Each stored note: its text twice, and its ids, times and labels (about 512 bytes).
      if (stored.length) {
        const text = ((args as { text?: unknown } | null)?.text ?? "") + stored.join("");
        tooBig = writeAnswerLimitError(action, { text }, limit, 512 * stored.length);
      }
    }
    if (tooBig) throw this.failure(tooBig);
    const redaction = new Redaction(args, this.options.redact);
    const logging = this.logging(ctx);
    if (logging) {
      // Arguments may hold a secret (a write's the runtime's guard will redact, a query typed with
      // one): the runtime's scrubber, every rule of the guard, masks it before the record is made.
      const runtime = this.runtime;
      this.log(ctx, "info", `tools/call ${tool.info.name}`, {
        tool: tool.info.name,
        arguments: runtime.scrubSecrets
          ? await runtime.scrubSecrets(redaction.args).catch(() => "[unavailable]")
          : safeDetails(redaction.args),
      });
    }
    try {
      const call = (signal: AbortSignal) =>
        tool.call(args, {
          runtime: this.runtime,
          signal,
          defaultPageSize: this.options.defaultPageSize,
          progress: ctx.progress,
        });
      const outcome = await this.guard(
        `call ${tool.info.name}`,
        ctx,
        tool.info.write
          ? async (signal) => {
            await authorizeWrite(this.options, tool.info.name, redaction, ctx);
            return await call(signal);
          }
          : call, // a sync throw (invalid arguments) lands in guard's catch all the same
        tool.info.write,
      );
      const rendered = outcome.rendered;
      if (rendered !== undefined && outcome.isError !== true) {
        return { structured: outcome.structured, json: rendered.json, isError: false, rendered };
      }
      return {
        structured: outcome.structured,
        json: JSON.stringify(outcome.structured),
        isError: outcome.isError === true,
      };
    } catch (e) {
      if (
        e instanceof McpValidationError || e instanceof McpNotFoundError ||
        e instanceof McpConflictError
      ) {
        const error = redaction.scrubError(toSafeError(e));
        if (logging) this.log(ctx, "warning", error.message, { tool: tool.info.name, error });
        const structured = { error };
        return { structured, json: JSON.stringify(structured), isError: true };
      }
      const failure = this.failure(e, redaction);
      if (logging && !failure.cancelled) {
        this.log(
          ctx,
          failure.code === JSON_RPC_CODES.internalError ? "error" : "warning",
          failure.data.message,
          {
            tool: tool.info.name,
            error: failure.data,
          },
        );
      }
      throw failure;
    }
  }

  /** `resources/list`. */
  listResources(cursor: string | undefined, ctx: CoreContext) {
    const size = Math.min(this.options.defaultPageSize, this.options.maxPageSize);
    return this.#wrap(
      "list resources",
      ctx,
      (signal) => listResources(this.runtime, cursor, size, signal),
    );
  }

  /** `resources/read`. */
  readResource(uri: string, ctx: CoreContext) {
    return this.#wrap(
      "read resource",
      ctx,
      (signal) => readResource(this.runtime, uri, signal),
    );
  }

  /** `prompts/get`. */
  /**
   * The texts of the stored notes a write's answer carries, for its size check: those its `id`,
   * `ids` and `by` name (a note that cannot be read is left out; the call then answers as it will).
   */
  async #storedTexts(args: unknown): Promise<string[]> {
    const a = (args ?? {}) as { id?: unknown; ids?: unknown; by?: unknown };
    const ids = [a.id, a.by, ...(Array.isArray(a.ids) ? a.ids.slice(0, 100) : [])]
      .filter((id): id is string => typeof id === "string");
    if (!ids.length) return [];
    const notes = await Promise.all(ids.map((id) => this.runtime.get(id).catch(() => undefined)));
    return notes.filter((n) => n !== undefined).map((n) => n!.body);
  }

  async getPrompt(name: unknown, args: unknown, ctx: CoreContext): Promise<PromptResult> {
    if (typeof name !== "string") {
      throw this.failure(
        new McpValidationError("Cannot get a prompt: params.name must be a string"),
      );
    }
    if (!Object.hasOwn(PROMPTS, name)) {
      throw this.failure(
        new McpNotFoundError(`Cannot get prompt ${name.slice(0, 100)}: unknown prompt`, {
          details: { kind: "prompt" },
        }),
      );
    }
    const catalog = await this.catalog();
    return await this.#wrap(`get prompt ${name}`, ctx, (signal) => {
      const parsed = catalog.parsePromptArgs(name as PromptName, args);
      return PROMPTS[name as PromptName].build(parsed, {
        runtime: this.runtime,
        signal,
        maxPageSize: this.options.maxPageSize,
      });
    });
  }

  /** `completion/complete`. */
  complete(params: Record<string, unknown>, ctx: CoreContext): Promise<CompletionResult> {
    return this.#wrap("complete", ctx, (signal) => complete(this.runtime, params, signal));
  }

  async #wrap<T>(
    action: string,
    ctx: CoreContext,
    fn: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.guard(action, ctx, fn);
    } catch (e) {
      const failure = this.failure(e);
      if (
        !failure.cancelled && failure.code === JSON_RPC_CODES.internalError && this.logging(ctx)
      ) {
        this.log(ctx, "error", failure.data.message, { error: failure.data });
      }
      throw failure;
    }
  }
}
