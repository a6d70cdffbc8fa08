/**
 * Internal: the state of a session (the 2025 handshake revisions) on one connection: the version
 * `initialize` negotiated, the log level set with `logging/setLevel`, and the resource
 * subscriptions, with the watch that sends them `notifications/resources/list_changed` and
 * `notifications/resources/updated`.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import { McpNotFoundError, McpValidationError, toSafeError } from "../errors.ts";
import type { MemoMcpLogLevel } from "../logging.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import type { McpCore } from "../core/core.ts";
import { RpcFailure } from "../core/rpc_failure.ts";
import { LATEST_SESSION_PROTOCOL_VERSION, negotiateVersion } from "./versions.ts";
import { canonicalUri, isWatchableUri, notificationsFor } from "../listen/subscriptions.ts";
import { initializeJson, LOG_LEVELS } from "./capabilities.ts";
import { notifyWithin } from "../tools/results.ts";
import { invalidParams, methodNotFound, type Params } from "./request_era.ts";

/**
 * The session of one protocol server (one stdio connection; a stateless transport names its version
 * on each request and keeps none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore } from "../core/core.ts";
 * import { Session } from "./session.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime }));
 * const session = new Session(core, 1_000_000);
 * const context = { transport: "stdio" as const };
 * assert.equal(session.connectionVersion(context), "2025-11-25"); // the latest session version
 * session.initialize({ protocolVersion: "2025-06-18" }, context);
 * assert.equal(session.connectionVersion(context), "2025-06-18");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class Session {
  /** The version `initialize` negotiated on this connection; undefined before. */
  negotiated: string | undefined;
  /** The level `logging/setLevel` set (an index into the levels); -1 for none. */
  logLevel = -1;
  readonly #core: McpCore;
  readonly #maxOutput: number;
  /** The resources subscribed to, by canonical URI, each as the client spelled it. */
  readonly #subscriptions = new Map<string, string>();
  #watching = false;

  /** A session over `core` whose notifications are held to `maxOutput` bytes each. */
  constructor(core: McpCore, maxOutput: number) {
    this.#core = core;
    this.#maxOutput = maxOutput;
  }

  /**
   * The version a message without its own is served with: the transport's (HTTP's header), else the
   * one `initialize` negotiated on this connection, else the latest session version.
   */
  connectionVersion(context: MemoMcpRequestContext): string {
    return context.protocolVersion ?? this.negotiated ?? LATEST_SESSION_PROTOCOL_VERSION;
  }

  /**
   * Whether changes of the notes can reach this client outside of `subscriptions/listen`: on a
   * connection (stdio, which can notify) to a runtime that can watch. Stateless HTTP cannot (its
   * GET stream is 405).
   */
  canSendChanges(context: MemoMcpRequestContext): boolean {
    return context.protocolVersion === undefined && context.notify !== undefined &&
      this.#core.runtime.watch !== undefined;
  }

  /**
   * Starts, once per connection, the watch that sends a session
   * `notifications/resources/list_changed` and, for the URIs it subscribed to,
   * `notifications/resources/updated`. It stops when the connection ends.
   */
  watch(context: MemoMcpRequestContext): void {
    if (this.#watching || !this.canSendChanges(context)) return;
    if (this.negotiated === undefined) return; // only a session that opened with initialize
    this.#watching = true;
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
          resourceSubscriptions: [...this.#subscriptions.values()],
        };
        for (const n of notificationsFor(change, filter)) {
          send(n.method, n.uri ? { uri: n.uri } : undefined);
        }
      });
    } catch {
      this.#watching = false; // a closed runtime: nothing to watch
      return;
    }
    const closed = context.closed;
    if (closed?.aborted) stop();
    else closed?.addEventListener("abort", stop, { once: true });
  }

  /** `initialize`: negotiates the version (kept on a connection) and answers. */
  initialize(params: Params, context: MemoMcpRequestContext): string {
    if (typeof params.protocolVersion !== "string") {
      throw new RpcFailure(
        JSON_RPC_CODES.invalidParams,
        toSafeError(
          new McpValidationError("Cannot initialize: params.protocolVersion must be a string"),
        ),
      );
    }
    if (context.protocolVersion === undefined && this.negotiated !== undefined) {
      // A connection keeps the version it negotiated (docs/protocol.md): no second handshake.
      throw new RpcFailure(
        JSON_RPC_CODES.invalidRequest,
        toSafeError(
          new McpValidationError(
            `Cannot initialize: this connection is initialized already (protocol version ${this.negotiated})`,
          ),
        ),
      );
    }
    const negotiated = negotiateVersion(params.protocolVersion);
    if (context.protocolVersion === undefined) this.negotiated = negotiated;
    return initializeJson(this.#core.options, negotiated, this.canSendChanges(context));
  }

  /** `resources/subscribe` and `resources/unsubscribe`. */
  subscribe(method: string, params: Params, context: MemoMcpRequestContext): void {
    if (!this.canSendChanges(context)) throw methodNotFound(method);
    if (typeof params.uri !== "string") {
      throw invalidParams(`Cannot handle ${method}: params.uri must be a string`);
    }
    // One note is one subscription, however its URI is encoded.
    if (method === "resources/unsubscribe") this.#subscriptions.delete(canonicalUri(params.uri));
    else {
      if (!isWatchableUri(params.uri)) {
        throw new RpcFailure(
          JSON_RPC_CODES.resourceNotFound,
          toSafeError(
            new McpNotFoundError(`Cannot subscribe to ${params.uri.slice(0, 300)}: not found`, {
              details: { kind: "resource", uri: params.uri.slice(0, 300) },
            }),
          ),
        );
      }
      this.#subscriptions.set(canonicalUri(params.uri), params.uri);
      this.watch(context);
    }
  }

  /** `logging/setLevel` (kept on a connection only). */
  setLogLevel(params: Params, context: MemoMcpRequestContext): void {
    const level = LOG_LEVELS.indexOf(params.level as MemoMcpLogLevel);
    if (level < 0) {
      throw new RpcFailure(
        JSON_RPC_CODES.invalidParams,
        toSafeError(
          new McpValidationError(
            `Cannot set the log level: level must be one of ${LOG_LEVELS.join(", ")}`,
          ),
        ),
      );
    }
    if (context.protocolVersion === undefined) this.logLevel = level;
  }
}
