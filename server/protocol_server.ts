/**
 * {@linkcode createMemoMcpProtocolServer}: the transport-agnostic JSON-RPC 2.0
 * handler. It parses and checks messages, negotiates the protocol version,
 * enforces the input and output limits and dispatches to the MCP core.
 *
 * @module
 */

import { JSON_RPC_CODES, McpValidationError, toSafeError } from "./errors.ts";
import { type MemoMcpOptions, resolveMemoMcpOptions } from "./options.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "./types.ts";
import { McpCore } from "./core/core.ts";
import { RpcFailure } from "./core/rpc_failure.ts";
import {
  BATCH_REFUSED,
  EMPTY_BATCH,
  isValidId,
  PARSE_ERROR_JSON,
  resultResponse,
  rpcErrorJson,
  utf8Length,
} from "./protocol/jsonrpc.ts";
import { versionFeatures } from "./protocol/versions.ts";
import { statelessErrorCode, statelessErrorData, statelessResult } from "./protocol/stateless.ts";
import { outputLimitError } from "./tools/results.ts";
import { type Params, type RequestEra, requestEra } from "./protocol/request_era.ts";
import { Session } from "./protocol/session.ts";
import { RequestTracker } from "./_request_context.ts";
import { ListenStreams } from "./listen/listen_streams.ts";
import { Dispatcher } from "./_dispatch.ts";

export { LISTEN_LIMIT_CODE } from "./listen/listen_streams.ts";

const NO_PARAMS: Params = Object.freeze({}) as Params;
const decoder = new TextDecoder("utf-8", { fatal: true });

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
  #session: Session;
  #requests: RequestTracker;
  #dispatcher: Dispatcher;
  /** The connections seen (their `closed` signals), each watched once. */
  #connections = new WeakSet<AbortSignal>();

  constructor(options: MemoMcpOptions) {
    const resolved = resolveMemoMcpOptions(options);
    this.#core = new McpCore(resolved);
    this.name = resolved.name;
    this.version = resolved.version;
    this.#maxInput = resolved.maxInputBytes;
    this.#maxOutput = resolved.maxOutputBytes;
    this.#session = new Session(this.#core, this.#maxOutput);
    this.#requests = new RequestTracker(this.#session, this.name, this.#maxOutput);
    this.#dispatcher = new Dispatcher(
      this.#core,
      this.#session,
      this.#requests,
      new ListenStreams(this.#core, this.#maxOutput, { name: this.name, version: this.version }),
    );
  }

  /** When a connection ends, the core drops its idle request timer. */
  #watchConnection(closed: AbortSignal | undefined): void {
    if (!closed || this.#connections.has(closed)) return;
    this.#connections.add(closed);
    const core = this.#core;
    if (closed.aborted) core.connectionClosed();
    else closed.addEventListener("abort", () => core.connectionClosed(), { once: true });
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
      try {
        text = decoder.decode(raw);
      } catch {
        return PARSE_ERROR_JSON; // JSON-RPC messages MUST be UTF-8
      }
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

  /**
   * A batch's answers as one array, held to `maxOutputBytes` as a whole (each was held on its own):
   * while the array is over, its largest answer gives way to its id's -32012 (`MCP_OUTPUT_LIMIT`),
   * so that the client learns which answers it did not get; when even those are over, one -32012.
   */
  #batchWithin(replies: string[]): string {
    const joined = () => `[${replies.join(",")}]`;
    let over = outputLimitError(joined(), this.#maxOutput);
    const replaced = new Set<number>();
    while (over !== undefined && replaced.size < replies.length) {
      let largest = -1;
      for (let i = 0; i < replies.length; i++) {
        if (!replaced.has(i) && (largest < 0 || replies[i].length > replies[largest].length)) {
          largest = i;
        }
      }
      replaced.add(largest);
      const id = JSON.stringify((JSON.parse(replies[largest]) as { id?: unknown }).id ?? null);
      replies[largest] = rpcErrorJson(
        id,
        JSON_RPC_CODES.outputLimit,
        over.message,
        toSafeError(over),
      );
      over = outputLimitError(joined(), this.#maxOutput);
    }
    if (over === undefined) return joined();
    return rpcErrorJson("null", JSON_RPC_CODES.outputLimit, over.message, toSafeError(over));
  }

  async handleParsed(
    message: unknown,
    context: MemoMcpRequestContext = { transport: "stdio" },
  ): Promise<string | undefined> {
    this.#watchConnection(context.closed);
    try {
      const size = context.inputBytes;
      if (size !== undefined && size > this.#maxInput) return this.#tooLarge(message, size);
      if (!Array.isArray(message)) return await this.#one(message, context, false);
      if (!versionFeatures(this.#session.connectionVersion(context)).batches) return BATCH_REFUSED;
      if (message.length === 0) return EMPTY_BATCH;
      const replies = await Promise.all(message.map((m) => this.#one(m, context, true)));
      const out = replies.filter((r): r is string => r !== undefined);
      return out.length ? this.#batchWithin(out) : undefined;
    } catch (e) {
      // Never throws: anything unexpected becomes -32603 without an id.
      return rpcErrorJson(
        "null",
        JSON_RPC_CODES.internalError,
        toSafeError(e).message,
        toSafeError(e),
      );
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
    return rpcErrorJson(idJson, JSON_RPC_CODES.invalidParams, error.message, toSafeError(error));
  }

  async #one(
    message: unknown,
    context: MemoMcpRequestContext,
    inBatch: boolean,
  ): Promise<string | undefined> {
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      return rpcErrorJson(
        "null",
        JSON_RPC_CODES.invalidRequest,
        "Cannot handle the message: not a JSON-RPC object",
      );
    }
    const m = message as Params;
    const hasId = "id" in m;
    const validId = hasId && isValidId(m.id);
    const idJson = validId ? JSON.stringify(m.id) : "null";
    if (!("method" in m)) {
      if ("result" in m || "error" in m) return undefined; // a response: memo sends no requests
      return rpcErrorJson(
        idJson,
        JSON_RPC_CODES.invalidRequest,
        "Cannot handle the message: it has no method",
      );
    }
    if (!hasId) {
      if (m.jsonrpc === "2.0" && typeof m.method === "string") this.#notification(m, context);
      return undefined;
    }
    if (!validId) {
      return rpcErrorJson(
        "null",
        JSON_RPC_CODES.invalidRequest,
        "Cannot handle the request: id must be a string or an integer",
      );
    }
    if (m.jsonrpc !== "2.0" || typeof m.method !== "string") {
      return rpcErrorJson(
        idJson,
        JSON_RPC_CODES.invalidRequest,
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
        JSON_RPC_CODES.invalidRequest,
        "Cannot handle initialize: it must not be part of a batch",
      );
    }
    let request: RequestEra;
    try {
      request = requestEra(m.method, params as Params, context, this.#session.negotiated);
    } catch (e) {
      const failure = e as RpcFailure;
      return rpcErrorJson(idJson, failure.code, failure.data.message, failure.data);
    }
    let reply: string | undefined;
    try {
      const answering = this.#dispatcher.dispatch(
        m.method,
        m.id as string | number,
        idJson,
        params as Params,
        context,
        request,
      );
      // An answer from memory (ping, the lists) goes on without a turn of the microtask queue.
      let result = answering instanceof Promise ? await answering : answering;
      if (result === undefined) return undefined;
      // A stateless tools/call result comes with its stateless fields already (_dispatch.ts).
      if (request.stateless && m.method !== "subscriptions/listen" && m.method !== "tools/call") {
        result = statelessResult(this.#core.options, m.method, result);
      }
      reply = resultResponse(idJson, result);
    } catch (e) {
      if (e instanceof RpcFailure) {
        if (e.cancelled) return undefined;
        const code = request.stateless ? statelessErrorCode(e.code) : e.code;
        context.onError?.(code, e.data);
        if (!request.stateless) return rpcErrorJson(idJson, code, e.data.message, e.data);
        return rpcErrorJson(idJson, code, e.data.message, statelessErrorData(e));
      }
      const safe = toSafeError(e);
      return rpcErrorJson(idJson, JSON_RPC_CODES.internalError, safe.message, safe);
    }
    const error = outputLimitError(reply, this.#maxOutput);
    if (error === undefined) return reply;
    const code = request.stateless
      ? statelessErrorCode(JSON_RPC_CODES.outputLimit)
      : JSON_RPC_CODES.outputLimit;
    return rpcErrorJson(idJson, code, error.message, toSafeError(error));
  }

  #invalidParams(idJson: string, message: string): string {
    return rpcErrorJson(
      idJson,
      JSON_RPC_CODES.invalidParams,
      message,
      toSafeError(new McpValidationError(message)),
    );
  }

  #notification(m: Params, context: MemoMcpRequestContext): void {
    // Stateless transports (they pass a protocol version) have no connection:
    // request ids are not unique across their clients, so a cancellation
    // cannot name a request and is ignored.
    if (m.method === "notifications/cancelled" && context.protocolVersion === undefined) {
      const p = m.params as Params | undefined;
      if (p && isValidId(p.requestId)) {
        this.#requests.cancel(JSON.stringify(p.requestId));
      }
    }
    // A stdio session hears of changes from the end of its handshake on.
    if (m.method === "notifications/initialized") this.#session.watch(context);
  }
}
