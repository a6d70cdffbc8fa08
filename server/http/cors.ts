/**
 * CORS headers of the hosted endpoint, precomputed: only the `Access-Control-Allow-Origin` value
 * changes per request, and only for an origin that passed the origin check.
 *
 * @module
 */

/**
 * A response's header list, as `[name, value]` pairs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corsHeaders, type HeaderList } from "./cors.ts";
 *
 * const list: HeaderList = corsHeaders(null);
 * const headers = new Headers(list as [string, string][]);
 * assert.equal(headers.get("vary"), "Origin");
 * ```
 */
export type HeaderList = readonly (readonly [string, string])[];

/**
 * Methods the endpoint answers (GET and DELETE get 405 with this `Allow`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ALLOW_METHODS } from "./cors.ts";
 *
 * assert.equal(ALLOW_METHODS, "POST, OPTIONS");
 * ```
 */
export const ALLOW_METHODS = "POST, OPTIONS";

/**
 * Request headers a browser may send (the preflight's `Access-Control-Allow-Headers`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ALLOW_HEADERS } from "./cors.ts";
 *
 * assert.ok(ALLOW_HEADERS.split(", ").includes("MCP-Protocol-Version"));
 * ```
 */
export const ALLOW_HEADERS =
  "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id, Last-Event-ID";

/**
 * Response headers a browser page may read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EXPOSE_HEADERS } from "./cors.ts";
 *
 * assert.ok(EXPOSE_HEADERS.split(", ").includes("WWW-Authenticate"));
 * ```
 */
export const EXPOSE_HEADERS =
  "WWW-Authenticate, Retry-After, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id";

/**
 * `Vary: Origin`, sent on every response: answers differ by origin.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corsHeaders, VARY_ORIGIN } from "./cors.ts";
 *
 * assert.deepEqual(VARY_ORIGIN, [["vary", "Origin"]]);
 * assert.equal(corsHeaders(null), VARY_ORIGIN); // no allowed origin: nothing else
 * ```
 */
export const VARY_ORIGIN: HeaderList = Object.freeze([["vary", "Origin"] as const]);

/**
 * The CORS headers of an actual (non-preflight) response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corsHeaders } from "./cors.ts";
 *
 * assert.deepEqual(corsHeaders(null), [["vary", "Origin"]]);
 * assert.deepEqual(corsHeaders("http://localhost:5173")[1], [
 *   "access-control-allow-origin",
 *   "http://localhost:5173",
 * ]);
 * ```
 */
export function corsHeaders(allowedOrigin: string | null): HeaderList {
  if (allowedOrigin === null) return VARY_ORIGIN;
  return [
    ["vary", "Origin"],
    ["access-control-allow-origin", allowedOrigin],
    ["access-control-expose-headers", EXPOSE_HEADERS],
  ];
}

const PREFLIGHT_STATIC: HeaderList = Object.freeze([
  ["vary", "Origin"] as const,
  ["access-control-allow-methods", ALLOW_METHODS] as const,
  ["access-control-allow-headers", ALLOW_HEADERS] as const,
  ["access-control-max-age", "600"] as const,
  ["allow", ALLOW_METHODS] as const,
]);

/**
 * The headers of a preflight (OPTIONS) answer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { preflightHeaders } from "./cors.ts";
 *
 * const headers = new Headers(preflightHeaders("http://localhost:5173") as [string, string][]);
 * assert.equal(headers.get("access-control-allow-methods"), "POST, OPTIONS");
 * assert.equal(headers.get("access-control-allow-origin"), "http://localhost:5173");
 * ```
 */
export function preflightHeaders(allowedOrigin: string | null): HeaderList {
  if (allowedOrigin === null) return PREFLIGHT_STATIC;
  return [...PREFLIGHT_STATIC, ["access-control-allow-origin", allowedOrigin]];
}
