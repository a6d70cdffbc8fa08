/**
 * Internal: `subscriptions/listen` streams (2026-07-28). A listen acknowledges the filter memo
 * honours, then sends the change notifications it asked for until the client cancels or the
 * connection ends; at most `maxListenStreams` are open at once.
 *
 * @module
 */

import { JSON_RPC_CODES, STATELESS_MEMO_CODES } from "../json_rpc_codes.ts";
import { MemoMcpError, toSafeError } from "../errors.ts";
import type { MemoMcpRequestContext } from "../types.ts";
import type { CoreContext, McpCore } from "../core/core.ts";
import { RpcFailure } from "../core/rpc_failure.ts";
import { acknowledgedFilter, notificationsFor, parseFilter } from "./subscriptions.ts";
import { META_SERVER_INFO } from "../protocol/stateless.ts";
import { notifyWithin } from "../tools/results.ts";
import { invalidParams, type Params } from "../protocol/request_era.ts";

/** `_meta` key of everything on a listen stream: the listen request's id. */
const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/**
 * JSON-RPC code of a listen refused because `maxListenStreams` are open (outside the JSON-RPC
 * reserved range, like memo's other stateless-era codes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LISTEN_LIMIT_CODE } from "../protocol_server.ts";
 *
 * assert.equal(LISTEN_LIMIT_CODE, -31503);
 * ```
 */
export const LISTEN_LIMIT_CODE = STATELESS_MEMO_CODES.listenLimit;

/**
 * The listen streams of one protocol server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { McpCore } from "../core/core.ts";
 * import { ListenStreams } from "./listen_streams.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const core = new McpCore(resolveMemoMcpOptions({ runtime }));
 * const streams = new ListenStreams(core, 1_000_000, { name: "memo", version: "0.0.0" });
 * const sent: string[] = [];
 * const closed = new AbortController();
 * const context = { transport: "stdio" as const, notify: (json: string) => void sent.push(json), closed: closed.signal };
 * const ctx = { transport: "stdio" as const, version: "2026-07-28" };
 * const answer = streams.listen(1, { notifications: { resourcesListChanged: true } }, context, ctx);
 * closed.abort(); // the connection ends
 * assert.match((await answer)!, /"resultType":"complete"/);
 * assert.match(sent[0], /notifications\/subscriptions\/acknowledged/);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export class ListenStreams {
  readonly #core: McpCore;
  readonly #maxOutput: number;
  readonly #serverInfo: { name: string; version: string };
  #open = 0;

  /**
   * Streams over `core`; each notification is held to `maxOutput` bytes, and a stream's completion
   * names `serverInfo`.
   */
  constructor(core: McpCore, maxOutput: number, serverInfo: { name: string; version: string }) {
    this.#core = core;
    this.#maxOutput = maxOutput;
    this.#serverInfo = serverInfo;
  }

  /**
   * `subscriptions/listen`: acknowledges the filter memo honours, then sends the change
   * notifications it asked for until the client cancels (no answer) or the connection ends (a
   * completion result). Exempt from `requestTimeoutMs` and `maxOutputBytes`; each notification is
   * held to the output limit on its own.
   */
  async listen(
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
        JSON_RPC_CODES.internalError,
        toSafeError(new MemoMcpError("Cannot listen: this transport cannot stream notifications")),
      );
    }
    const max = this.#core.options.maxListenStreams;
    if (this.#open >= max) {
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
    this.#open++;
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
          JSON_RPC_CODES.internalError,
          toSafeError(new MemoMcpError("Cannot listen: cancelled")),
          true,
        );
      }
      return `{"resultType":"complete","_meta":${
        JSON.stringify({ ...meta, [META_SERVER_INFO]: this.#serverInfo })
      }}`;
    } finally {
      stop();
      this.#open--;
    }
  }
}

/**
 * Resolves when `signal` aborts ("cancelled": the client cancelled or went away) or `closed` does
 * ("closed": the connection ended).
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
