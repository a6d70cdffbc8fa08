/**
 * Header validation of the hosted endpoint: `Accept` (JSON or SSE, else 406), `Content-Type` (JSON,
 * else 415) and `MCP-Protocol-Version` (supported, else 400).
 *
 * @module
 */

import { SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.ts";

/**
 * How the answer is framed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateAccept, type ResponseMode } from "./_headers.ts";
 *
 * const mode: ResponseMode | undefined = negotiateAccept("text/event-stream");
 * assert.equal(mode, "sse");
 * ```
 */
export type ResponseMode = "json" | "sse";

/**
 * Protocol versions the server speaks, newest first (the protocol server's list).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SUPPORTED_PROTOCOL_VERSIONS } from "@memo/mcp-server";
 * import { HTTP_SUPPORTED_PROTOCOL_VERSIONS } from "./_headers.ts";
 *
 * assert.deepEqual(HTTP_SUPPORTED_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS);
 * ```
 */
export const HTTP_SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

/**
 * The version assumed when a request has no `MCP-Protocol-Version` header.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HTTP_DEFAULT_PROTOCOL_VERSION } from "./_headers.ts";
 *
 * assert.equal(HTTP_DEFAULT_PROTOCOL_VERSION, "2025-03-26");
 * ```
 */
export const HTTP_DEFAULT_PROTOCOL_VERSION = "2025-03-26";

/**
 * Picks the framing from an `Accept` header: missing, `*∕*` or a list naming `application/json` (or
 * `application/*`) gets JSON; a list naming only `text/event-stream` (or `text/*`) gets SSE;
 * anything else `undefined` (406).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateAccept } from "./_headers.ts";
 *
 * assert.equal(negotiateAccept(null), "json");
 * assert.equal(negotiateAccept("application/json, text/event-stream"), "json");
 * assert.equal(negotiateAccept("text/event-stream"), "sse");
 * assert.equal(negotiateAccept("text/html"), undefined);
 * ```
 */
export function negotiateAccept(accept: string | null): ResponseMode | undefined {
  if (accept === null) return "json";
  // Fast paths for what real clients send.
  if (accept === "application/json, text/event-stream" || accept === "application/json") {
    return "json";
  }
  if (accept === "*/*") return "json";
  let sse = false;
  let seen = false;
  for (const part of accept.split(",")) {
    const semi = part.indexOf(";");
    const type = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    if (type === "") continue;
    seen = true;
    if (semi !== -1 && isRefused(part.slice(semi))) continue;
    if (type === "application/json" || type === "application/*" || type === "*/*") return "json";
    if (type === "text/event-stream" || type === "text/*") sse = true;
  }
  if (!seen) return "json";
  return sse ? "sse" : undefined;
}

/**
 * Whether an `Accept` header lets the answer be an event stream (`text/event-stream`), for the
 * notifications a request asks for before its answer. The most specific range that matches decides
 * (`text/event-stream`, then `text/*`, then `*∕*`), and `q=0` refuses it (RFC 9110 §12.5.1); a
 * missing header accepts nothing in particular, so it does not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { acceptsEventStream } from "./_headers.ts";
 *
 * assert.equal(acceptsEventStream("application/json, text/event-stream"), true);
 * assert.equal(acceptsEventStream("application/json"), false);
 * assert.equal(acceptsEventStream("application/json, text/event-stream;q=0"), false);
 * assert.equal(acceptsEventStream("text/*, text/event-stream;q=0"), false);
 * assert.equal(acceptsEventStream("text/*;q=0.5"), true);
 * assert.equal(acceptsEventStream(null), false);
 * ```
 */
export function acceptsEventStream(accept: string | null): boolean {
  if (accept === null) return false;
  if (accept === "application/json, text/event-stream") return true;
  if (accept === "application/json") return false;
  // The q of the most specific matching range: 3 text/event-stream, 2 text/*, 1 */*.
  let rank = 0;
  let accepted = false;
  for (const part of accept.split(",")) {
    const semi = part.indexOf(";");
    const type = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    const r = type === "text/event-stream" ? 3 : type === "text/*" ? 2 : type === "*/*" ? 1 : 0;
    if (r <= rank) continue;
    rank = r;
    accepted = semi === -1 || !isRefused(part.slice(semi));
  }
  return accepted;
}

/** Whether a media range's parameters (from its first `;`) carry `q=0`. */
function isRefused(params: string): boolean {
  return /;\s*q\s*=\s*0(\.0*)?\s*(;|$)/i.test(params);
}

/**
 * Whether a `Content-Type` header names JSON (`application/json`, any parameters such as
 * `charset=utf-8`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isJsonContentType } from "./_headers.ts";
 *
 * assert.equal(isJsonContentType("application/json; charset=utf-8"), true);
 * assert.equal(isJsonContentType("text/plain"), false);
 * ```
 */
export function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  if (contentType === "application/json") return true;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === "application/json";
}
