/**
 * {@linkcode createMemoMcpProtocolServer}: the transport-agnostic JSON-RPC 2.0
 * handler. It parses and checks messages, negotiates the protocol version,
 * enforces the input and output limits and dispatches to the MCP core.
 *
 * @module
 */

import {
  JSON_RPC_CODES,
  McpNotFoundError,
  McpValidationError,
  MemoMcpError,
  toSafeError,
} from "./errors.ts";
import { type MemoMcpLogLevel, type MemoMcpOptions, resolveMemoMcpOptions } from "./options.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "./types.ts";
import { type CoreContext, McpCore, RpcFailure } from "./_core.ts";
import {
  BATCH_REFUSED,
  EMPTY_BATCH,
  isValidId,
  PARSE_ERROR_JSON,
  resultResponse,
  rpcErrorJson,
  utf8Length,
} from "./_jsonrpc.ts";
import {
  isSupportedVersion,
  LATEST_LEGACY_PROTOCOL_VERSION,
  negotiateVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  versionFeatures,
} from "./_versions.ts";
import { acknowledgedFilter, isWatchableUri, notificationsFor, parseFilter } from "./_listen.ts";
import {
  checkModernMeta,
  discoverJson,
  isObject,
  LEGACY_ONLY_METHODS,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_ERROR_CODES,
  modernErrorCode,
  modernErrorData,
  modernResult,
  unsupportedVersionError,
} from "./_modern.ts";
import { initializeJson, LOG_LEVELS } from "./_methods.ts";
import { outputLimitError, toolResultJson } from "./_results.ts";

type Params = Record<string, unknown>;
const NO_PARAMS: Params = Object.freeze({}) as Params;
const EMPTY_RESULT = "{}";
const decoder = new TextDecoder();

/**
 * Creates the protocol server. One instance serves one stdio connection, or
 * any number of stateless HTTP requests (which carry their protocol version).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 * const reply = await server.handle('{"jsonrpc":"2.0","id":1,"method":"ping"}');
 * assert.equal(reply, '{"jsonrpc":"2.0","id":1,"result":{}}');
 *
 * const call = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 2,
 *   method: "tools/call",
 *   params: { name: "remember", arguments: { text: "Deploys run with make deploy" } },
 * }));
 * assert.equal(JSON.parse(call!).result.structuredContent.status, "written");
 * await runtime.close(); // the server does not own the runtime
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpProtocolServer(options: MemoMcpOptions): MemoMcpProtocolServer {
  return new ProtocolServer(options);
}

class ProtocolServer implements MemoMcpProtocolServer {
  readonly name: string;
  readonly version: string;
  #core: McpCore;
  #maxInput: number;
  #maxOutput: number;
  #negotiated: string | undefined;
  #logLevel = -1;
  #inFlight = new Map<string, AbortController>();
  #listening = 0;
  #legacySubscriptions = new Set<string>();
  #legacyWatching = false;

  constructor(options: MemoMcpOptions) {
    const resolved = resolveMemoMcpOptions(options);
    this.#core = new McpCore(resolved);
    this.name = resolved.name;
    this.version = resolved.version;
    this.#maxInput = resolved.maxInputBytes;
    this.#maxOutput = resolved.maxOutputBytes;
  }

  async handle(
    raw: string | Uint8Array,
    context: MemoMcpRequestContext = { transport: "stdio" },
  ): Promise<string | undefined> {
    let text: string;
    let size = context.inputBytes;
    if (typeof raw === "string") text = raw;
    else {
      size ??= raw.byteLength;
      text = decoder.decode(raw);
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return PARSE_ERROR_JSON;
    }
    if (size === undefined && text.length * 3 > this.#maxInput) size = utf8Length(text);
    return await this.handleParsed(
      message,
      size === context.inputBytes ? context : { ...context, inputBytes: size },
    );
  }

  async handleParsed(
    message: unknown,
    context: MemoMcpRequestContext = { transport: "stdio" },
  ): Promise<string | undefined> {
    try {
      const size = context.inputBytes;
      if (size !== undefined && size > this.#maxInput) return this.#tooLarge(message, size);
      if (!Array.isArray(message)) return await this.#one(message, context, false);
      if (!versionFeatures(this.#connectionVersion(context)).batches) return BATCH_REFUSED;
      if (message.length === 0) return EMPTY_BATCH;
      const replies = await Promise.all(message.map((m) => this.#one(m, context, true)));
      const out = replies.filter((r): r is string => r !== undefined);
      return out.length ? `[${out.join(",")}]` : undefined;
    } catch (e) {
      // Never throws: anything unexpected becomes -32603 without an id.
      return rpcErrorJson("null", -32603, toSafeError(e).message, toSafeError(e));
    }
  }

  #tooLarge(message: unknown, size: number): string | undefined {
    const error = new McpValidationError(
      `Cannot handle the message: ${size} bytes is over the input limit of ${this.#maxInput}`,
      { details: { limit: this.#maxInput, size } },
    );
    let idJson = "null";
    if (message !== null && typeof message === "object" && !Array.isArray(message)) {
      const m = message as Params;
      // Notifications and responses get no answer, as below the limit.
      if ("method" in m ? !("id" in m) : ("result" in m || "error" in m)) return undefined;
      if (isValidId(m.id)) idJson = JSON.stringify(m.id);
    }
    return rpcErrorJson(idJson, -32602, error.message, toSafeError(error));
  }

  async #one(
    message: unknown,
    context: MemoMcpRequestContext,
    inBatch: boolean,
  ): Promise<string | undefined> {
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      return rpcErrorJson("null", -32600, "Cannot handle the message: not a JSON-RPC object");
    }
    const m = message as Params;
    const hasId = "id" in m;
    const validId = hasId && isValidId(m.id);
    const idJson = validId ? JSON.stringify(m.id) : "null";
    if (!("method" in m)) {
      if ("result" in m || "error" in m) return undefined; // a response: memo sends no requests
      return rpcErrorJson(idJson, -32600, "Cannot handle the message: it has no method");
    }
    if (!hasId) {
      if (m.jsonrpc === "2.0" && typeof m.method === "string") this.#notification(m, context);
      return undefined;
    }
    if (!validId) {
      return rpcErrorJson(
        "null",
        -32600,
        "Cannot handle the request: id must be a string or an integer",
      );
    }
    if (m.jsonrpc !== "2.0" || typeof m.method !== "string") {
      return rpcErrorJson(
        idJson,
        -32600,
        'Cannot handle the request: it needs jsonrpc "2.0" and a method name',
      );
    }
    const params = m.params ?? NO_PARAMS;
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      return this.#invalidParams(
        idJson,
        `Cannot handle ${m.method.slice(0, 100)}: params must be an object`,
      );
    }
    if (inBatch && m.method === "initialize") {
      return rpcErrorJson(
        idJson,
        -32600,
        "Cannot handle initialize: it must not be part of a batch",
      );
    }
    let request: RequestEra;
    try {
      request = this.#era(m.method, params as Params, context);
    } catch (e) {
      const failure = e as RpcFailure;
      return rpcErrorJson(idJson, failure.code, failure.data.message, failure.data);
    }
    let reply: string | undefined;
    try {
      let result = await this.#dispatch(
        m.method,
        m.id as string | number,
        idJson,
        params as Params,
        context,
        request,
      );
      if (result === undefined) return undefined;
      if (request.modern && m.method !== "subscriptions/listen") {
        result = modernResult(this.#core.options, m.method, result);
      }
      reply = resultResponse(idJson, result);
    } catch (e) {
      if (e instanceof RpcFailure) {
        if (e.cancelled) return undefined;
        const code = request.modern ? modernErrorCode(e.code) : e.code;
        context.onError?.(code);
        if (!request.modern) return rpcErrorJson(idJson, code, e.data.message, e.data);
        return rpcErrorJson(idJson, code, e.data.message, modernErrorData(e));
      }
      const safe = toSafeError(e);
      return rpcErrorJson(idJson, -32603, safe.message, safe);
    }
    const error = outputLimitError(reply, this.#maxOutput);
    if (error === undefined) return reply;
    const code = request.modern
      ? modernErrorCode(JSON_RPC_CODES.outputLimit)
      : JSON_RPC_CODES.outputLimit;
    return rpcErrorJson(idJson, code, error.message, toSafeError(error));
  }

  /**
   * The version a message without its own is served with: the transport's
   * (HTTP's header), else the one `initialize` negotiated on this
   * connection, else the latest legacy one.
   */
  #connectionVersion(context: MemoMcpRequestContext): string {
    return context.protocolVersion ?? this.#negotiated ?? LATEST_LEGACY_PROTOCOL_VERSION;
  }

  /**
   * Classifies a request into an era, as the 2026-07-28 revision says: one
   * that carries `_meta["io.modelcontextprotocol/protocolVersion"]` is served
   * statelessly in that version; `initialize` and a request without it are
   * legacy. A stdio connection that opened with `initialize` stays in the
   * version it negotiated. Throws an {@linkcode RpcFailure} for an
   * unsupported version (-32022) or a malformed modern `_meta` (-32602).
   */
  #era(method: string, params: Params, context: MemoMcpRequestContext): RequestEra {
    const meta = params._meta;
    const requested = isObject(meta) ? meta[META_PROTOCOL_VERSION] : undefined;
    let version: string;
    if (context.protocolVersion !== undefined) {
      // A stateless transport names the version (HTTP: MCP-Protocol-Version,
      // which its handler has checked against the body).
      version = context.protocolVersion;
    } else if (requested !== undefined && method !== "initialize") {
      if (!isSupportedVersion(requested)) throw unsupportedVersion(requested);
      if (this.#negotiated !== undefined && requested !== this.#negotiated) {
        // This connection opened with initialize: it stays in that version.
        throw unsupportedVersion(requested, [this.#negotiated]);
      }
      version = requested;
    } else {
      version = this.#negotiated ?? LATEST_LEGACY_PROTOCOL_VERSION;
    }
    if (!versionFeatures(version).modern) {
      if (method === "server/discover" && requested === undefined) {
        // The one method that exists only in the modern era: without its
        // _meta it is a malformed modern request, not an unknown method.
        throw invalidParams(
          `Cannot handle server/discover: params._meta["${META_PROTOCOL_VERSION}"] is required`,
        );
      }
      return { version, modern: false, logLevel: -1, progressToken: progressTokenOf(meta) };
    }
    const checked = checkModernMeta(meta);
    if (typeof checked === "string") {
      throw invalidParams(`Cannot handle ${method.slice(0, 100)}: ${checked}`);
    }
    return {
      version,
      modern: true,
      logLevel: checked.logLevel,
      progressToken: progressTokenOf(meta),
    };
  }

  #invalidParams(idJson: string, message: string): string {
    return rpcErrorJson(idJson, -32602, message, toSafeError(new McpValidationError(message)));
  }

  #notification(m: Params, context: MemoMcpRequestContext): void {
    // Stateless transports (they pass a protocol version) have no connection:
    // request ids are not unique across their clients, so a cancellation
    // cannot name a request and is ignored.
    if (m.method === "notifications/cancelled" && context.protocolVersion === undefined) {
      const p = m.params as Params | undefined;
      if (p && isValidId(p.requestId)) {
        this.#inFlight.get(JSON.stringify(p.requestId))?.abort();
      }
    }
    // A legacy stdio session hears of changes from the end of its handshake on.
    if (m.method === "notifications/initialized") this.#watchForLegacy(context);
    // Anything else needs no action.
  }

  /**
   * Whether changes of the notes can reach this client outside of
   * `subscriptions/listen`: on a connection (stdio, which can notify) to a
   * runtime that can watch. Stateless HTTP cannot (its GET stream is 405).
   */
  #canSendChanges(context: MemoMcpRequestContext): boolean {
    return context.protocolVersion === undefined && context.notify !== undefined &&
      this.#core.runtime.watch !== undefined;
  }

  /**
   * Starts, once per connection, the watch that sends a legacy session
   * `notifications/resources/list_changed` and, for the URIs it subscribed
   * to, `notifications/resources/updated`. It stops when the connection ends.
   */
  #watchForLegacy(context: MemoMcpRequestContext): void {
    if (this.#legacyWatching || !this.#canSendChanges(context)) return;
    if (this.#negotiated === undefined) return; // only a session that opened with initialize
    this.#legacyWatching = true;
    const notify = context.notify!;
    const maxOutput = this.#maxOutput;
    const send = (method: string, params?: Record<string, unknown>) =>
      notifyWithin(
        notify,
        maxOutput,
        params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
      );
    let stop: () => void;
    try {
      stop = this.#core.runtime.watch!((change) => {
        const filter = {
          resourcesListChanged: true,
          resourceSubscriptions: [...this.#legacySubscriptions],
        };
        for (const n of notificationsFor(change, filter)) {
          send(n.method, n.uri ? { uri: n.uri } : undefined);
        }
      });
    } catch {
      this.#legacyWatching = false; // a closed runtime: nothing to watch
      return;
    }
    const closed = context.closed;
    if (closed?.aborted) stop();
    else closed?.addEventListener("abort", stop, { once: true });
  }

  #coreContext(
    context: MemoMcpRequestContext,
    request: RequestEra,
    signal: AbortSignal | undefined,
  ): CoreContext {
    const ctx: CoreContext = {
      transport: context.transport,
      request: context.request,
      authInfo: context.authInfo,
      signal,
      version: request.version,
    };
    const notify = context.notify;
    // A modern request names its own log level; a legacy connection sets one
    // with logging/setLevel.
    const threshold = request.modern ? request.logLevel : this.#logLevel;
    if (notify && threshold >= 0) {
      const logger = this.name;
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

  /** Runs `fn` with a signal that the client's cancellation also aborts. */
  async #tracked<T>(
    idJson: string,
    context: MemoMcpRequestContext,
    request: RequestEra,
    fn: (ctx: CoreContext) => Promise<T>,
  ): Promise<T> {
    // Cancellation is per connection: only stateful transports register, and a
    // client that reuses an id in flight cannot cancel the second request.
    // The others just pass their transport's signal on.
    if (context.protocolVersion !== undefined || this.#inFlight.has(idJson)) {
      return await fn(this.#coreContext(context, request, context.signal));
    }
    const controller = new AbortController();
    const outer = context.signal;
    const onAbort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    this.#inFlight.set(idJson, controller);
    try {
      return await fn(this.#coreContext(context, request, controller.signal));
    } finally {
      outer?.removeEventListener("abort", onAbort);
      this.#inFlight.delete(idJson);
    }
  }

  #cursor(method: string, params: Params, allowed: boolean): string | undefined {
    const cursor = params.cursor;
    if (cursor === undefined) return undefined;
    if (typeof cursor !== "string" || !allowed) {
      throw new RpcFailure(
        -32602,
        toSafeError(new McpValidationError(`Cannot handle ${method}: invalid cursor`)),
      );
    }
    return cursor;
  }

  /**
   * `subscriptions/listen`: acknowledges the filter memo honours, then sends
   * the change notifications it asked for until the client cancels (no
   * answer) or the connection ends (a completion result). Exempt from
   * `requestTimeoutMs` and `maxOutputBytes`; each notification is held to
   * the output limit on its own.
   */
  async #listen(
    id: string | number,
    params: Params,
    context: MemoMcpRequestContext,
    ctx: CoreContext,
  ): Promise<string | undefined> {
    const filter = parseFilter(params);
    if (typeof filter === "string") throw invalidParams(`Cannot listen: ${filter}`);
    const notify = context.notify;
    if (notify === undefined) {
      throw new RpcFailure(
        -32603,
        toSafeError(new MemoMcpError("Cannot listen: this transport cannot stream notifications")),
      );
    }
    const max = this.#core.options.maxListenStreams;
    if (this.#listening >= max) {
      throw new RpcFailure(
        LISTEN_LIMIT_CODE,
        toSafeError(
          new MemoMcpError(
            `Cannot listen: ${max} streams are open, the most allowed; retry later`,
            {
              details: { limit: max },
            },
          ),
        ),
      );
    }
    const runtime = this.#core.runtime;
    const ack = acknowledgedFilter(filter, runtime.watch !== undefined);
    const meta = { [META_SUBSCRIPTION_ID]: id };
    const send = (method: string, extra: Record<string, unknown>) =>
      notifyWithin(notify, this.#maxOutput, {
        jsonrpc: "2.0",
        method,
        params: { _meta: meta, ...extra },
      });
    this.#listening++;
    let stop = () => {};
    try {
      send("notifications/subscriptions/acknowledged", { notifications: ack });
      if (ack.resourcesListChanged || ack.resourceSubscriptions) {
        stop = runtime.watch!((change) => {
          for (const n of notificationsFor(change, ack)) {
            send(n.method, n.uri ? { uri: n.uri } : {});
          }
        });
      }
      const ended = await untilAborted(ctx.signal, context.closed);
      if (ended === "cancelled") {
        throw new RpcFailure(
          -32603,
          toSafeError(new MemoMcpError("Cannot listen: cancelled")),
          true,
        );
      }
      return `{"resultType":"complete","_meta":${
        JSON.stringify({ ...meta, [META_SERVER_INFO]: { name: this.name, version: this.version } })
      }}`;
    } finally {
      stop();
      this.#listening--;
    }
  }

  async #dispatch(
    method: string,
    id: string | number,
    idJson: string,
    params: Params,
    context: MemoMcpRequestContext,
    request: RequestEra,
  ): Promise<string | undefined> {
    const core = this.#core;
    const version = request.version;
    if (request.modern ? LEGACY_ONLY_METHODS.has(method) : MODERN_ONLY_METHODS.has(method)) {
      throw methodNotFound(method);
    }
    switch (method) {
      case "server/discover":
        return discoverJson(core.options);
      case "subscriptions/listen":
        return await this.#tracked(
          idJson,
          context,
          request,
          (ctx) => this.#listen(id, params, context, ctx),
        );
      case "ping":
        return EMPTY_RESULT;
      case "initialize": {
        if (typeof params.protocolVersion !== "string") {
          throw new RpcFailure(
            -32602,
            toSafeError(
              new McpValidationError("Cannot initialize: params.protocolVersion must be a string"),
            ),
          );
        }
        const negotiated = negotiateVersion(params.protocolVersion);
        if (context.protocolVersion === undefined) this.#negotiated = negotiated;
        return initializeJson(core.options, negotiated, this.#canSendChanges(context));
      }
      case "resources/subscribe":
      case "resources/unsubscribe": {
        if (!this.#canSendChanges(context)) throw methodNotFound(method);
        if (typeof params.uri !== "string") {
          throw invalidParams(`Cannot handle ${method}: params.uri must be a string`);
        }
        if (method === "resources/unsubscribe") this.#legacySubscriptions.delete(params.uri);
        else {
          if (!isWatchableUri(params.uri)) {
            throw new RpcFailure(
              -32002,
              toSafeError(
                new McpNotFoundError(`Cannot subscribe to ${params.uri.slice(0, 300)}: not found`, {
                  details: { kind: "resource", uri: params.uri.slice(0, 300) },
                }),
              ),
            );
          }
          this.#legacySubscriptions.add(params.uri);
          this.#watchForLegacy(context);
        }
        return EMPTY_RESULT;
      }
      case "tools/list": {
        this.#cursor(method, params, false);
        return (await core.catalog()).toolsList(version);
      }
      case "tools/call": {
        if (typeof params.name !== "string") {
          throw new RpcFailure(
            -32602,
            toSafeError(new McpValidationError("Cannot call a tool: params.name must be a string")),
          );
        }
        const outcome = await this.#tracked(
          idJson,
          context,
          request,
          (ctx) => core.callTool(params.name, params.arguments, ctx),
        );
        return toolResultJson(outcome, versionFeatures(version).structured);
      }
      case "resources/list": {
        const cursor = this.#cursor(method, params, true);
        return JSON.stringify(
          await this.#tracked(idJson, context, request, (ctx) => core.listResources(cursor, ctx)),
        );
      }
      case "resources/templates/list":
        this.#cursor(method, params, false);
        return (await core.catalog()).templatesList;
      case "resources/read": {
        if (typeof params.uri !== "string") {
          throw new RpcFailure(
            -32602,
            toSafeError(
              new McpValidationError("Cannot read a resource: params.uri must be a string"),
            ),
          );
        }
        return JSON.stringify(
          await this.#tracked(
            idJson,
            context,
            request,
            (ctx) => core.readResource(params.uri as string, ctx),
          ),
        );
      }
      case "prompts/list":
        this.#cursor(method, params, false);
        return (await core.catalog()).promptsList(version);
      case "prompts/get":
        return JSON.stringify(
          await this.#tracked(
            idJson,
            context,
            request,
            (ctx) => core.getPrompt(params.name, params.arguments, ctx),
          ),
        );
      case "completion/complete":
        return JSON.stringify(
          await this.#tracked(idJson, context, request, (ctx) => core.complete(params, ctx)),
        );
      case "logging/setLevel": {
        const level = LOG_LEVELS.indexOf(params.level as MemoMcpLogLevel);
        if (level < 0) {
          throw new RpcFailure(
            -32602,
            toSafeError(
              new McpValidationError(
                `Cannot set the log level: level must be one of ${LOG_LEVELS.join(", ")}`,
              ),
            ),
          );
        }
        if (context.protocolVersion === undefined) this.#logLevel = level;
        return EMPTY_RESULT;
      }
      default:
        throw methodNotFound(method);
    }
  }
}

/** The era a request is served in, and what its modern `_meta` asked for. */
interface RequestEra {
  /** The protocol version it is served with. */
  version: string;
  /** Whether it is a modern (2026-07-28) request. */
  modern: boolean;
  /** A modern request's log level (an index into the levels); -1 for none. */
  logLevel: number;
  /** `_meta.progressToken`, when the request asks for progress. */
  progressToken?: string | number;
}

/** `_meta.progressToken` when it is a string or an integer, else undefined. */
function progressTokenOf(meta: unknown): string | number | undefined {
  if (!isObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || (typeof token === "number" && Number.isFinite(token))
    ? token
    : undefined;
}

/** Methods only the modern era has (-32601 for a legacy request). */
const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "subscriptions/listen",
]);

/** `_meta` key of everything on a listen stream: the listen request's id. */
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/**
 * JSON-RPC code of a listen refused because `maxListenStreams` are open
 * (outside the JSON-RPC reserved range, like memo's other modern codes).
 */
export const LISTEN_LIMIT_CODE = -31503;

/**
 * Resolves when `signal` aborts ("cancelled": the client cancelled or went
 * away) or `closed` does ("closed": the connection ended).
 */
function untilAborted(
  signal: AbortSignal | undefined,
  closed: AbortSignal | undefined,
): Promise<"cancelled" | "closed"> {
  if (signal?.aborted) return Promise.resolve("cancelled");
  if (closed?.aborted) return Promise.resolve("closed");
  return new Promise((resolve) => {
    const done = (why: "cancelled" | "closed") => () => {
      signal?.removeEventListener("abort", onCancel);
      closed?.removeEventListener("abort", onClose);
      resolve(why);
    };
    const onCancel = done("cancelled");
    const onClose = done("closed");
    signal?.addEventListener("abort", onCancel, { once: true });
    closed?.addEventListener("abort", onClose, { once: true });
  });
}

/** Sends a notification, unless it alone is over the output limit (then it is dropped). */
function notifyWithin(notify: (json: string) => void, limit: number, message: unknown): void {
  const json = JSON.stringify(message);
  if (outputLimitError(json, limit) === undefined) notify(json);
}

function methodNotFound(method: string): RpcFailure {
  return new RpcFailure(-32601, {
    name: "McpNotFoundError",
    message: `Cannot handle method ${method.slice(0, 100)}: method not found`,
    code: "MCP_NOT_FOUND",
    status: 404,
  });
}

function invalidParams(message: string): RpcFailure {
  return new RpcFailure(-32602, toSafeError(new McpValidationError(message)));
}

/**
 * -32022 for a protocol version memo does not speak (or, on a stdio
 * connection that opened with `initialize`, one other than it negotiated).
 * `data` carries the revision's `supported` and `requested` beside the safe
 * error.
 */
function unsupportedVersion(
  requested: unknown,
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): RpcFailure {
  const { data } = unsupportedVersionError(requested, supported);
  return new RpcFailure(MODERN_ERROR_CODES.unsupportedProtocolVersion, data);
}
