/**
 * The checks of a request the endpoint and the web page share: the origin and Host rules
 * ({@linkcode originRefusal}) and the path ({@linkcode pathOf}). `handler.ts` re-exports them.
 *
 * @module
 */

import { isLoopbackHost, isSameOrigin, requestHost } from "./origin.ts";
import { httpErrorResponse } from "./responses.ts";
import { JSON_RPC_CODES } from "../errors.ts";

const INVALID_REQUEST = JSON_RPC_CODES.invalidRequest;

/**
 * The 403 of the origin and Host rules, or undefined when the request passes: an `Origin` must be
 * allowed (or, when `ownOriginPasses`, be the request's own); without authentication the `Host`
 * must be loopback (DNS-rebinding protection). The endpoint and the web page share these rules.
 * `origin` is the request's `Origin` header, for a caller that has read it already.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { originRefusal } from "./_request_checks.ts";
 *
 * const none = () => false;
 * const own = new Request("http://127.0.0.1:8787/", { headers: { origin: "http://127.0.0.1:8787" } });
 * assert.equal(originRefusal(own, none, false, true), undefined);
 * assert.equal(originRefusal(own, none, false, false)?.status, 403);
 * const rebinding = new Request("http://127.0.0.1/", { headers: { host: "evil.example" } });
 * assert.equal(originRefusal(rebinding, none, false, false)?.status, 403);
 * assert.equal(originRefusal(rebinding, none, true, false), undefined);
 * ```
 */
export function originRefusal(
  request: Request,
  originAllowed: (origin: string) => boolean,
  authRequired: boolean,
  ownOriginPasses: boolean,
  origin: string | null = request.headers.get("origin"),
): Response | undefined {
  if (
    origin !== null && !originAllowed(origin) && !(ownOriginPasses && isSameOrigin(origin, request))
  ) {
    return httpErrorResponse(
      403,
      INVALID_REQUEST,
      "Cannot accept the request: origin not allowed",
      null,
    );
  }
  if (!authRequired && !isLoopbackHost(requestHost(request))) {
    return httpErrorResponse(
      403,
      INVALID_REQUEST,
      "Cannot accept the request: the Host is not loopback and the endpoint has no authentication",
      null,
    );
  }
  return undefined;
}

/**
 * The path of a request URL, without query or fragment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathOf } from "./_request_checks.ts";
 *
 * assert.equal(pathOf("http://127.0.0.1:8787/mcp?x=1"), "/mcp");
 * assert.equal(pathOf("http://127.0.0.1:8787"), "/");
 * ```
 */
export function pathOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return "/";
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 63 || c === 35) break; // ? #
    end++;
  }
  return url.slice(start, end);
}
