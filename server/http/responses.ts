/**
 * The responses of the hosted endpoint's transport layer: JSON-RPC answers
 * (JSON or one SSE event) and the non-2xx refusals, each with a small
 * JSON-RPC error body that never echoes a request header.
 *
 * @module
 */

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
 * An answer (200 unless `status` says otherwise: a modern unknown method is
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
  if (mode === "json") {
    const headers = origin === null
      ? JSON_NO_ORIGIN as [string, string][]
      : withType(JSON_TYPE, origin);
    return new Response(json, {
      status,
      headers: extra === undefined ? headers : [...headers, ...extra as [string, string][]],
    });
  }
  return new Response(sseEvent(json), {
    status,
    headers: origin === null
      ? SSE_NO_ORIGIN as [string, string][]
      : [...withType(SSE_TYPE, origin), NO_CACHE as [string, string]],
  });
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
    headers: origin === null
      ? SSE_NO_ORIGIN as [string, string][]
      : [...withType(SSE_TYPE, origin), NO_CACHE as [string, string]],
  });
}

function withType(type: readonly [string, string], origin: string): [string, string][] {
  return [type, ...corsHeaders(origin)] as [string, string][];
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
  return new Response(null, { status, headers: headers as [string, string][] });
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
  return new Response(body, {
    status,
    headers: [JSON_TYPE, ...corsHeaders(origin), ...extra] as [string, string][],
  });
}
