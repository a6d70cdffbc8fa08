/**
 * What the HTTP handler reads of a parsed JSON-RPC message before it dispatches it: whether it
 * asked for log records or progress on its own SSE stream, its id to echo in an early refusal, and
 * whether it is a `subscriptions/listen`.
 *
 * @module
 */

import { isValidId } from "../protocol/jsonrpc.ts";
import { versionFeatures } from "../protocol/versions.ts";
import { acceptsEventStream } from "./_headers.ts";

/**
 * Whether a stateless request asked for log records (`_meta` logLevel) and accepts SSE.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wantsLogs } from "./_message_meta.ts";
 *
 * const message = { params: { _meta: { "io.modelcontextprotocol/logLevel": "info" } } };
 * assert.equal(wantsLogs(message, "2026-07-28", "text/event-stream"), true);
 * assert.equal(wantsLogs(message, "2026-07-28", "application/json"), false);
 * assert.equal(wantsLogs(message, null, "text/event-stream"), false);
 * ```
 */
export function wantsLogs(
  message: unknown,
  versionHeader: string | null,
  accept: string | null,
): boolean {
  if (versionHeader === null || !versionFeatures(versionHeader).stateless) return false;
  if (!acceptsEventStream(accept)) return false;
  return typeof metaOf(message)?.["io.modelcontextprotocol/logLevel"] === "string";
}

/**
 * Whether a request asked for progress (`_meta.progressToken`, any protocol version) and accepts
 * SSE. The notifications go out before the answer, on its stream.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wantsProgress } from "./_message_meta.ts";
 *
 * const message = { params: { _meta: { progressToken: 7 } } };
 * assert.equal(wantsProgress(message, "application/json, text/event-stream"), true);
 * assert.equal(wantsProgress(message, "application/json"), false);
 * assert.equal(wantsProgress({ params: {} }, "text/*"), false);
 * ```
 */
export function wantsProgress(message: unknown, accept: string | null): boolean {
  const token = metaOf(message)?.progressToken;
  return (typeof token === "string" || typeof token === "number") && acceptsEventStream(accept);
}

/** `params._meta` of a single request. */
function metaOf(message: unknown): Record<string, unknown> | undefined {
  return (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
}

/**
 * The id of a single request, serialized, or `null` when there is none to echo.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { idJsonOf } from "./_message_meta.ts";
 *
 * assert.equal(idJsonOf({ id: "a" }), '"a"');
 * assert.equal(idJsonOf([{ id: 1 }]), "null");
 * ```
 */
export function idJsonOf(message: unknown): string {
  const id = (message as { id?: unknown } | null)?.id;
  return isValidId(id) ? JSON.stringify(id) : "null";
}

/**
 * Whether `message` is a stateless `subscriptions/listen` request (it answers in a stream).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isListen } from "./_message_meta.ts";
 *
 * const listen = { jsonrpc: "2.0", id: 1, method: "subscriptions/listen" };
 * assert.equal(isListen(listen, "2026-07-28"), true);
 * assert.equal(isListen(listen, "2025-11-25"), false);
 * ```
 */
export function isListen(message: unknown, versionHeader: string): boolean {
  const m = message as { method?: unknown; id?: unknown } | null;
  return m !== null && typeof m === "object" && m.method === "subscriptions/listen" &&
    m.id !== undefined && versionFeatures(versionHeader).stateless;
}
