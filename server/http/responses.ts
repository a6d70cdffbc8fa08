/**
 * The responses of the hosted endpoint's transport layer: JSON-RPC answers
 * (JSON or one SSE event) and the non-2xx refusals, each with a small
 * JSON-RPC error body that never echoes a request header.
 *
 * @module
 */

import { textResponse } from "../../platform/mod.ts";
import { encodedResponse } from "./_compress.ts";
import { corsHeaders, type HeaderList } from "./cors.ts";

const JSON_TYPE = ["content-type", "application/json"] as const;
const SSE_TYPE = ["content-type", "text/event-stream"] as const;
const NO_CACHE = ["cache-control", "no-cache"] as const;
const JSON_NO_ORIGIN: HeaderList = Object.freeze([JSON_TYPE, ["vary", "Origin"] as const]);
const SSE_NO_ORIGIN: HeaderList = Object.freeze([
  SSE_TYPE,
  NO_CACHE,
  ["vary", "Origin"] as const,
]);

/**
 * Frames one JSON-RPC message as a server-sent event (`event: message`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sseEvent } from "./responses.ts";
 *
 * assert.equal(
 *   sseEvent('{"jsonrpc":"2.0","id":1,"result":{}}'),
 *   'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
 * );
 * ```
 */
export function sseEvent(json: string): string {
  if (json.indexOf("\n") === -1 && json.indexOf("\r") === -1) {
    return `event: message\ndata: ${json}\n\n`;
  }
  return `event: message\n${json.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join("\n")}\n\n`;
}

/**
 * An answer (200 unless `status` says otherwise: a stateless unknown method is
 * 404) carrying a serialized JSON-RPC response, as JSON or as SSE.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rpcResponse } from "./responses.ts";
 *
 * const res = rpcResponse('{"jsonrpc":"2.0","id":1,"result":{}}', "json", null);
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("content-type"), "application/json");
 * assert.deepEqual(await res.json(), { jsonrpc: "2.0", id: 1, result: {} });
 * const sse = rpcResponse('{"jsonrpc":"2.0","id":1,"result":{}}', "sse", "http://localhost:5173");
 * assert.equal(sse.headers.get("content-type"), "text/event-stream");
 * assert.equal(sse.headers.get("access-control-allow-origin"), "http://localhost:5173");
 * await sse.body?.cancel();
 * ```
 */
export function rpcResponse(
  json: string,
  mode: "json" | "sse",
  origin: string | null,
  status = 200,
  extra?: HeaderList,
): Response {
  const headers = answerHeaders(mode, origin);
  return textResponse(
    mode === "json" ? json : sseEvent(json),
    status,
    extra === undefined ? headers : [...headers, ...extra],
  );
}

/**
 * The answer to a request, as {@linkcode rpcResponse} (one message) or
 * {@linkcode sseResponse} (several: notifications, then the response) build
 * it, gzipped when `requestHeaders` accept gzip and the body is over 1 KB
 * (`_compress.ts`). `null` for `requestHeaders` keeps it plain (an error).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerResponse } from "./responses.ts";
 *
 * const json = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "memo ".repeat(400) } });
 * const gzipOk = new Headers({ "accept-encoding": "gzip" });
 * const res = await answerResponse(json, "json", null, 200, gzipOk);
 * assert.equal(res.headers.get("content-encoding"), "gzip");
 * assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
 * const sse = await answerResponse(['{"jsonrpc":"2.0","method":"notifications/message"}', json], "json", null, 200, null);
 * assert.equal(sse.headers.get("content-type"), "text/event-stream");
 * assert.equal((await sse.text()).split("event: message").length, 3);
 * ```
 */
export function answerResponse(
  messages: string | readonly string[],
  mode: "json" | "sse",
  origin: string | null,
  status: number,
  requestHeaders: Headers | null,
): Response | Promise<Response> {
  const sse = typeof messages !== "string" || mode === "sse";
  const body = typeof messages === "string"
    ? (sse ? sseEvent(messages) : messages)
    : messages.map(sseEvent).join("");
  return encodedResponse(body, status, answerHeaders(sse ? "sse" : "json", origin), requestHeaders);
}

/**
 * An SSE answer carrying several serialized messages in order: a request's
 * notifications (its log records, its progress), then its response. Given
 * a stream of events instead, it answers with that stream as it is written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sseResponse } from "./responses.ts";
 *
 * const res = sseResponse(['{"jsonrpc":"2.0","method":"notifications/message"}', '{"jsonrpc":"2.0","id":1,"result":{}}'], null);
 * assert.equal(res.headers.get("content-type"), "text/event-stream");
 * assert.equal((await res.text()).split("event: message").length, 3);
 * ```
 */
export function sseResponse(
  messages: readonly string[] | ReadableStream<Uint8Array>,
  origin: string | null,
  status = 200,
): Response {
  const body = Array.isArray(messages) ? messages.map(sseEvent).join("") : messages;
  return new Response(body as BodyInit, {
    status,
    headers: answerHeaders("sse", origin) as [string, string][],
  });
}

/** The headers of an answer: its type, `no-cache` for SSE, and CORS. */
function answerHeaders(mode: "json" | "sse", origin: string | null): HeaderList {
  if (origin === null) return mode === "json" ? JSON_NO_ORIGIN : SSE_NO_ORIGIN;
  return mode === "json"
    ? [JSON_TYPE, ...corsHeaders(origin)]
    : [SSE_TYPE, ...corsHeaders(origin), NO_CACHE];
}

/**
 * An answer with no body (202 for notifications, 204 for a preflight).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { emptyResponse } from "./responses.ts";
 *
 * const res = emptyResponse(202, [["vary", "Origin"]]);
 * assert.equal(res.status, 202);
 * assert.equal(res.body, null);
 * ```
 */
export function emptyResponse(status: number, headers: HeaderList): Response {
  return textResponse(null, status, headers);
}

/**
 * A transport-level refusal: `status` with a JSON-RPC error body
 * `{"jsonrpc":"2.0","id":null,"error":{code,message}}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { httpErrorResponse } from "./responses.ts";
 *
 * const message = "Cannot accept the request: Content-Type must be application/json";
 * const res = httpErrorResponse(415, -32600, message, null);
 * assert.equal(res.status, 415);
 * assert.deepEqual(await res.json(), {
 *   jsonrpc: "2.0",
 *   id: null,
 *   error: { code: -32600, message },
 * });
 * ```
 */
export function httpErrorResponse(
  status: number,
  code: number,
  message: string,
  origin: string | null,
  extra: HeaderList = [],
  data?: unknown,
): Response {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  const body = JSON.stringify({ jsonrpc: "2.0", id: null, error });
  return textResponse(body, status, [JSON_TYPE, ...corsHeaders(origin), ...extra]);
}
