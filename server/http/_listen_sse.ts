/**
 * `subscriptions/listen` over Streamable HTTP (2026-07-28): the answer is a long-lived SSE stream
 * on the POST's response. The protocol server writes the acknowledgement and the change
 * notifications through the context's `notify`; the stream also carries a keep-alive comment every
 * 15 s, and ends when the client goes away (the listen is then cancelled and its watch released).
 * The number of open streams is bounded: one past `maxListenStreams` is refused with 503 and
 * `Retry-After`.
 *
 * @module
 */

import { MemoMcpError, toSafeError } from "../errors.ts";
import type { MemoMcpProtocolServer, MemoMcpRequestContext } from "../types.ts";
import { rpcErrorJson } from "../protocol/jsonrpc.ts";
import { LISTEN_LIMIT_CODE } from "../protocol_server.ts";
import { corsHeaders } from "./cors.ts";
import { rpcResponse, sseEvent } from "./responses.ts";

/** Seconds a refused listen is told to wait (`Retry-After`). */
export const LISTEN_RETRY_AFTER_SECONDS = 5;

/** What {@linkcode createListenStreams} needs. */
export interface ListenStreamsConfig {
  /** Most streams open at once. */
  maxStreams: number;
  /**
   * Milliseconds between keep-alive comments.
   * @default 15000
   */
  keepAliveMs?: number;
  /**
   * Aborted when the endpoint shuts down: every open stream then ends with its completion result
   * (and a listen opened later ends at once).
   */
  closed?: AbortSignal;
}

/** The facts of one listen request that the protocol server reads. */
export interface ListenRequest {
  request: Request;
  /** What authentication learnt. */
  authInfo: MemoMcpRequestContext["authInfo"];
  /** The `MCP-Protocol-Version` header. */
  protocolVersion: string;
  inputBytes: number;
  /** The parsed `subscriptions/listen` request. */
  message: unknown;
  /** Its id, serialized. */
  idJson: string;
  /** The request's `Origin`, for CORS. */
  origin: string | null;
}

const encoder = new TextEncoder();
const SSE_HEADERS: [string, string][] = [
  ["content-type", "text/event-stream"],
  ["cache-control", "no-cache"],
  ["x-accel-buffering", "no"],
];

/**
 * The listen streams of one endpoint: `open(server, listen)` answers one `subscriptions/listen`
 * request with its stream, or with 503 past the bound.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createListenStreams } from "./_listen_sse.ts";
 *
 * const streams = createListenStreams({ maxStreams: 0 });
 * const res = streams.open({} as never, {
 *   request: new Request("http://127.0.0.1/mcp"),
 *   authInfo: undefined,
 *   protocolVersion: "2026-07-28",
 *   inputBytes: 0,
 *   message: {},
 *   idJson: "1",
 *   origin: null,
 * });
 * assert.equal(res.status, 503);
 * assert.equal(res.headers.get("retry-after"), "5");
 * assert.equal((await res.json()).error.code, -31503);
 * assert.equal(streams.open.length, 2);
 * ```
 */
export function createListenStreams(config: ListenStreamsConfig): {
  open(server: MemoMcpProtocolServer, listen: ListenRequest): Response;
  readonly count: number;
} {
  const keepAliveMs = config.keepAliveMs ?? 15_000;
  let count = 0;
  return {
    get count() {
      return count;
    },
    open(server, listen) {
      if (count >= config.maxStreams) {
        const error = new MemoMcpError(
          `Cannot listen: ${config.maxStreams} streams are open, the most this endpoint allows; ` +
            `retry in ${LISTEN_RETRY_AFTER_SECONDS} s`,
          { details: { limit: config.maxStreams } },
        );
        const safe = toSafeError(error);
        const res = rpcResponse(
          rpcErrorJson(listen.idJson, LISTEN_LIMIT_CODE, safe.message, safe),
          "json",
          listen.origin,
          503,
        );
        res.headers.set("retry-after", String(LISTEN_RETRY_AFTER_SECONDS));
        return res;
      }
      count++;
      const cancel = new AbortController();
      let timer: ReturnType<typeof setInterval> | undefined;
      let finished = false;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const write = (text: string) => {
            if (finished) return;
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              // the client went away; the cancel below ends the listen
            }
          };
          const context: MemoMcpRequestContext = {
            transport: "http",
            request: listen.request,
            authInfo: listen.authInfo,
            protocolVersion: listen.protocolVersion,
            inputBytes: listen.inputBytes,
            signal: cancel.signal,
            closed: config.closed,
            notify: (json) => write(sseEvent(json)),
          };
          timer = setInterval(() => write(": keep-alive\n\n"), keepAliveMs);
          server.handleParsed(listen.message, context)
            .then((reply) => {
              if (reply !== undefined) write(sseEvent(reply));
            }, () => {})
            .finally(() => {
              finished = true;
              clearInterval(timer);
              count--;
              try {
                controller.close();
              } catch {
                // already cancelled by the client
              }
            });
        },
        cancel() {
          cancel.abort();
        },
      });
      const headers = listen.origin === null
        ? [...SSE_HEADERS, ["vary", "Origin"] as [string, string]]
        : [...SSE_HEADERS, ...corsHeaders(listen.origin) as [string, string][]];
      return new Response(stream, { status: 200, headers });
    },
  };
}
