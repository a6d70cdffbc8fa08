/**
 * {@linkcode createMemoMcpProtocolServer}: the transport-agnostic JSON-RPC 2.0
 * handler. It parses and checks messages, negotiates the protocol version,
 * enforces the input and output limits and dispatches to the MCP core.
 *
 * @module
 */

import { JSON_RPC_CODES, McpValidationError, toSafeError } from "./errors.ts";
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
import { LATEST_PROTOCOL_VERSION, negotiateVersion, versionFeatures } from "./_versions.ts";
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
      const version = context.protocolVersion ?? this.#negotiated ?? LATEST_PROTOCOL_VERSION;
      if (!versionFeatures(version).batches) return BATCH_REFUSED;
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
    let reply: string | undefined;
    try {
      const result = await this.#dispatch(
        m.method,
        m.id as string | number,
        idJson,
        params as Params,
        context,
      );
      if (result === undefined) return undefined;
      reply = resultResponse(idJson, result);
    } catch (e) {
      if (e instanceof RpcFailure) {
        if (e.cancelled) return undefined;
        return rpcErrorJson(idJson, e.code, e.data.message, e.data);
      }
      const safe = toSafeError(e);
      return rpcErrorJson(idJson, -32603, safe.message, safe);
    }
    const error = outputLimitError(reply, this.#maxOutput);
    if (error === undefined) return reply;
    return rpcErrorJson(idJson, JSON_RPC_CODES.outputLimit, error.message, toSafeError(error));
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
    // notifications/initialized and anything else need no action.
  }

  #coreContext(context: MemoMcpRequestContext, signal: AbortSignal | undefined): CoreContext {
    const version = context.protocolVersion ?? this.#negotiated ?? LATEST_PROTOCOL_VERSION;
    const ctx: CoreContext = {
      transport: context.transport,
      request: context.request,
      authInfo: context.authInfo,
      signal,
      version,
    };
    const notify = context.notify;
    if (notify && this.#logLevel >= 0) {
      const threshold = this.#logLevel;
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
    return ctx;
  }

  /** Runs `fn` with a signal that the client's cancellation also aborts. */
  async #tracked<T>(
    idJson: string,
    context: MemoMcpRequestContext,
    fn: (ctx: CoreContext) => Promise<T>,
  ): Promise<T> {
    // Cancellation is per connection: only stateful transports register, and a
    // client that reuses an id in flight cannot cancel the second request.
    // The others just pass their transport's signal on.
    if (context.protocolVersion !== undefined || this.#inFlight.has(idJson)) {
      return await fn(this.#coreContext(context, context.signal));
    }
    const controller = new AbortController();
    const outer = context.signal;
    const onAbort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    this.#inFlight.set(idJson, controller);
    try {
      return await fn(this.#coreContext(context, controller.signal));
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

  async #dispatch(
    method: string,
    _id: string | number,
    idJson: string,
    params: Params,
    context: MemoMcpRequestContext,
  ): Promise<string | undefined> {
    const core = this.#core;
    const version = context.protocolVersion ?? this.#negotiated ?? LATEST_PROTOCOL_VERSION;
    switch (method) {
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
        return initializeJson(core.options, negotiated);
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
          (ctx) => core.callTool(params.name, params.arguments, ctx),
        );
        return toolResultJson(outcome, versionFeatures(version).structured);
      }
      case "resources/list": {
        const cursor = this.#cursor(method, params, true);
        return JSON.stringify(
          await this.#tracked(idJson, context, (ctx) => core.listResources(cursor, ctx)),
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
            (ctx) => core.getPrompt(params.name, params.arguments, ctx),
          ),
        );
      case "completion/complete":
        return JSON.stringify(
          await this.#tracked(idJson, context, (ctx) => core.complete(params, ctx)),
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
        throw new RpcFailure(-32601, {
          name: "McpNotFoundError",
          message: `Cannot handle method ${method.slice(0, 100)}: method not found`,
          code: "MCP_NOT_FOUND",
          status: 404,
        });
    }
  }
}
