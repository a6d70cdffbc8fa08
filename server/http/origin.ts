/**
 * Origin and Host checks of the hosted endpoint: which browser origins may call it
 * (`allowedOrigins`, loopback by default) and, when authentication is not required, whether the
 * `Host` header names this machine (DNS-rebinding protection). When authentication is required, a
 * request from its own origin ({@linkcode isSameOrigin}) passes too.
 *
 * @module
 */

/**
 * The default `allowedOrigins`: the loopback origins, where `*` is any port or none. A configured
 * list replaces it; spread it to extend it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createFrameworkMemoMcpHandler, DEFAULT_ALLOWED_ORIGINS } from "@memo/mcp-server/http";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler = createFrameworkMemoMcpHandler({
 *   runtime,
 *   allowedOrigins: [...DEFAULT_ALLOWED_ORIGINS, "https://app.example.com"],
 * });
 * const preflight = (origin: string) =>
 *   handler(new Request("http://127.0.0.1:8787/mcp", { method: "OPTIONS", headers: { origin } }));
 * for (const origin of ["http://localhost:5173", "https://app.example.com"]) {
 *   const response = await preflight(origin);
 *   assert.equal(response.headers.get("access-control-allow-origin"), origin);
 * }
 * assert.equal((await preflight("https://evil.example")).status, 403);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = Object.freeze([
  "http://localhost:*",
  "http://127.0.0.1:*",
  "http://[::1]:*",
]);

/**
 * Decides whether a request's `Origin` header value is allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOriginMatcher, type OriginMatcher } from "./origin.ts";
 *
 * const allowed: OriginMatcher = createOriginMatcher(["*"]);
 * assert.equal(allowed("https://anything.example"), true);
 * ```
 */
export type OriginMatcher = (origin: string) => boolean;

/**
 * Compiles an `allowedOrigins` list into a matcher. Entries are exact origins
 * (`https://app.example.com`), origins whose port is `*` (any port or none: `http://localhost:*`),
 * or `*` alone (any origin). Comparison ignores case and a trailing slash.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOriginMatcher } from "./origin.ts";
 *
 * const allowed = createOriginMatcher(["http://localhost:*", "https://app.example.com"]);
 * assert.equal(allowed("http://localhost:5173"), true);
 * assert.equal(allowed("http://localhost"), true);
 * assert.equal(allowed("HTTPS://APP.EXAMPLE.COM/"), true);
 * assert.equal(allowed("https://evil.example"), false);
 * assert.throws(() => createOriginMatcher(["app.example.com"]), /is not an origin/);
 * ```
 */
export function createOriginMatcher(patterns: readonly string[]): OriginMatcher {
  const exact = new Set<string>();
  const anyPort: string[] = [];
  let any = false;
  for (const raw of patterns) {
    const pattern = normalizeOrigin(raw.trim());
    if (pattern === "") continue;
    if (pattern === "*") {
      any = true;
      continue;
    }
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/.test(pattern) && pattern !== "null") {
      throw new Error(
        `Cannot configure allowed origins: ${JSON.stringify(raw)} is not an origin ` +
          `(scheme://host[:port], with * as the port for any port)`,
      );
    }
    if (pattern.endsWith(":*")) anyPort.push(pattern.slice(0, -2));
    else exact.add(pattern);
  }
  if (any) return () => true;
  return (origin: string): boolean => {
    const o = normalizeOrigin(origin);
    if (exact.has(o)) return true;
    for (const prefix of anyPort) {
      if (o === prefix) return true;
      if (o.length > prefix.length + 1 && o.startsWith(prefix) && o[prefix.length] === ":") {
        if (isPort(o, prefix.length + 1)) return true;
      }
    }
    return false;
  };
}

function normalizeOrigin(origin: string): string {
  const lower = origin.toLowerCase();
  return lower.endsWith("/") ? lower.slice(0, -1) : lower;
}

function isPort(s: string, from: number): boolean {
  if (s.length - from > 5) return false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * Whether a `Host` header value (host with optional port) names the loopback interface:
 * `localhost`, `*.localhost`, `127.0.0.0/8` or `[::1]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLoopbackHost } from "./origin.ts";
 *
 * assert.equal(isLoopbackHost("127.0.0.1:8787"), true);
 * assert.equal(isLoopbackHost("[::1]:8787"), true);
 * assert.equal(isLoopbackHost("evil.example.com"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  // Requests of one server carry the same Host, request after request: the last answer is kept.
  if (host === lastHost) return lastLoopback;
  const loopback = loopbackHost(host);
  lastHost = host;
  lastLoopback = loopback;
  return loopback;
}

let lastHost: string | undefined;
let lastLoopback = false;

function loopbackHost(host: string): boolean {
  let name: string;
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end === -1) return false;
    if (end + 1 < host.length && (host[end + 1] !== ":" || !isPort(host, end + 2))) return false;
    name = host.slice(0, end + 1);
  } else {
    const colon = host.indexOf(":");
    if (colon !== -1 && !isPort(host, colon + 1)) return false;
    name = colon === -1 ? host : host.slice(0, colon);
  }
  name = name.toLowerCase();
  if (name === "localhost" || name === "[::1]" || name.endsWith(".localhost")) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * The host part of a request: its `Host` header, else the authority of its URL (a `Request` built
 * in-process has no `Host` header).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestHost } from "./origin.ts";
 *
 * assert.equal(requestHost(new Request("http://127.0.0.1:8787/mcp")), "127.0.0.1:8787");
 * assert.equal(
 *   requestHost(
 *     new Request("http://127.0.0.1:8787/mcp", { headers: { host: "memo.example.com" } }),
 *   ),
 *   "memo.example.com",
 * );
 * ```
 */
export function requestHost(request: Request): string {
  const host = request.headers.get("host");
  if (host !== null) return host;
  const url = request.url;
  const start = url.indexOf("://");
  if (start === -1) return "";
  let end = start + 3;
  while (end < url.length) {
    const c = url[end];
    if (c === "/" || c === "?" || c === "#") break;
    end++;
  }
  const authority = url.slice(start + 3, end);
  const at = authority.lastIndexOf("@");
  return at === -1 ? authority : authority.slice(at + 1);
}

/**
 * Whether a request's `Origin` header value equals the request's own origin: the scheme of the
 * request URL and its host ({@linkcode requestHost}: the `Host` header, else the URL's authority).
 * The hosted endpoint lets such a request through the origin check when authentication is required,
 * so that a page served by the endpoint can call it from any address; the bearer token is still
 * checked after.
 *
 * Both sides are compared as URL origins: scheme and host ignore case, and a default port is the
 * same as none (`http://h:80` equals `Host: h`, and `https://h:443` equals `Host: h` on an https
 * request). `X-Forwarded-Proto` is not trusted: behind a proxy that terminates TLS, the request URL
 * is `http:` and a page at `https://…` does not match (list its origin in `allowedOrigins`).
 * `null`, a value that is not `scheme://host[:port]`, and a `Host` that is not a plain host with an
 * optional port never match.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSameOrigin } from "./origin.ts";
 *
 * const request = new Request("http://10.0.0.5:8787/mcp", {
 *   headers: { host: "Memo.Example:80" },
 * });
 * assert.equal(isSameOrigin("http://memo.example", request), true);
 * assert.equal(isSameOrigin("https://memo.example", request), false);
 * assert.equal(isSameOrigin("http://evil.example", request), false);
 * assert.equal(isSameOrigin("null", request), false);
 * ```
 */
export function isSameOrigin(origin: string, request: Request): boolean {
  if (!ORIGIN_SHAPE.test(origin)) return false;
  const host = requestHost(request);
  if (host === "" || !HOST_SHAPE.test(host)) return false;
  const url = request.url;
  const colon = url.indexOf(":");
  if (colon === -1) return false;
  const own = canonicalOrigin(`${url.slice(0, colon)}://${host}`);
  return own !== undefined && own === canonicalOrigin(origin);
}

/** `scheme://authority`, nothing else (no path, query, fragment or user info). */
const ORIGIN_SHAPE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@\\\s]+\/?$/i;
/** A host with an optional port: no path, query, fragment, user info or space. */
const HOST_SHAPE = /^[^/?#@\\\s]+$/;

/** The serialized origin of `scheme://host[:port]`, or undefined if it is not one. */
function canonicalOrigin(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}
