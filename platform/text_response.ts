/**
 * The one way the HTTP endpoint builds an answer whose body is a string (or nothing): the host's
 * `Response`, except while memo's Node adapter serves, where it is a light one the adapter writes
 * from its parts without a web stream (`_light_response.ts`). Either behaves as
 * `new Response(body, { status, headers })` for every reader.
 *
 * @module
 */

import { type LightHeaderList, LightResponse, lightResponsesEnabled } from "./_light_response.ts";

/** `[name, value]` pairs, in order, as {@linkcode textResponse} takes them. */
export type TextResponseHeaders = LightHeaderList;

/**
 * `new Response(body, { status, headers })`, made cheaply when memo's Node adapter writes it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textResponse } from "./text_response.ts";
 *
 * const res = textResponse('{"ok":true}', 200, [["content-type", "application/json"]]);
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("content-type"), "application/json");
 * assert.deepEqual(await res.json(), { ok: true });
 * ```
 */
export function textResponse(
  body: string | null,
  status: number,
  headers: TextResponseHeaders,
): Response {
  // A status the constructor refuses, or a body on a null-body status, throws as it would.
  if (
    !lightResponsesEnabled() || status < 200 || status > 599 ||
    (body !== null && (status === 204 || status === 205 || status === 304))
  ) {
    return new Response(body, { status, headers: headers as [string, string][] });
  }
  return new LightResponse(body, status, headers);
}
