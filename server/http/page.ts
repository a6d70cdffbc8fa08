/**
 * Serves memo's web page beside the MCP endpoint: the HTML on the UI path (default `/`) and its
 * assets under `/_memo/assets/`. They hold no data, so no token is asked; the endpoint's origin and
 * Host rules apply. Each body is gzipped once, at its first request that accepts gzip.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import {
  WEB_ASSETS,
  WEB_ASSETS_PREFIX,
  type WebAsset,
  type WebPageConfig,
  webPageHtml,
  type WebPageOAuthConfig,
} from "../../web/mod.ts";
import { acceptsGzip, gzip, PRECOMPRESSED } from "./_compress.ts";
import type { HeaderList } from "./cors.ts";
import { originRefusal, pathOf } from "./handler.ts";
import { createOriginMatcher } from "./origin.ts";
import { httpErrorResponse } from "./responses.ts";

/**
 * What {@linkcode createPageHandler} serves, with every default applied.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createPageHandler, type PageHandlerConfig } from "./page.ts";
 *
 * const config: PageHandlerConfig = {
 *   uiPath: "/",
 *   allowedOrigins: [],
 *   page: { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0.1.0" },
 * };
 * const response = createPageHandler(config)(new Request("http://127.0.0.1:8787/"));
 * assert.equal(response?.status, 200);
 * await response?.body?.cancel();
 * ```
 */
export interface PageHandlerConfig {
  /** The path of the HTML document (starts with `/`, not under `/_memo/`). */
  uiPath: string;
  /** Allowed browser origins (patterns, see `createOriginMatcher`). */
  allowedOrigins: readonly string[];
  /** What the page is told; `authRequired` also turns the Host check off. */
  page: WebPageConfig;
}

/**
 * {@linkcode PageHandlerConfig} with OAuth on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { OAuthPageHandlerConfig } from "./page.ts";
 *
 * const config: OAuthPageHandlerConfig = {
 *   uiPath: "/",
 *   allowedOrigins: [],
 *   page: { mcpPath: "/mcp", readOnly: false, authRequired: true, version: "0.1.0" },
 *   oauth: () =>
 *     Promise.resolve({
 *       issuer: "https://id.example.com",
 *       resource: "https://memo.example.com/mcp",
 *       scopes: ["memo:read", "memo:write"],
 *       issParameter: true,
 *     }),
 * };
 * assert.equal(typeof config.oauth, "function");
 * ```
 */
export interface OAuthPageHandlerConfig extends PageHandlerConfig {
  /**
   * How the page signs in, known once the issuer's metadata is; the HTML is built at the first
   * request after that (503 until then).
   */
  oauth: () => Promise<WebPageOAuthConfig>;
}

/**
 * Answers the page's requests: a `Response` for the UI path and the asset paths, `undefined` for
 * any other path (for the MCP handler to answer).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createPageHandler, type PageHandler } from "./page.ts";
 *
 * const handler: PageHandler = createPageHandler({
 *   uiPath: "/",
 *   allowedOrigins: [],
 *   page: { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0.1.0" },
 * });
 * assert.equal(handler(new Request("http://127.0.0.1:8787/mcp")), undefined);
 * ```
 */
export type PageHandler = (request: Request) => Response | undefined;

/**
 * A page handler with OAuth on: the HTML waits for the issuer's metadata (once), so its answer may
 * be a promise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AsyncPageHandler, createPageHandler } from "./page.ts";
 *
 * const handler: AsyncPageHandler = createPageHandler({
 *   uiPath: "/",
 *   allowedOrigins: [],
 *   page: { mcpPath: "/mcp", readOnly: false, authRequired: true, version: "0.1.0" },
 *   oauth: () => Promise.reject(new Error("the issuer is down")),
 * });
 * const response = await handler(new Request("http://127.0.0.1:8787/"))!;
 * assert.equal(response.status, 503);
 * await response.body?.cancel();
 * ```
 */
export type AsyncPageHandler = (request: Request) => Response | Promise<Response> | undefined;

const INVALID_REQUEST = JSON_RPC_CODES.invalidRequest;
const ALLOW: HeaderList = [["allow", "GET, HEAD"]];

/**
 * The Content-Security-Policy of the page and its assets: scripts, styles, images and fetches from
 * its own origin only, no framing, no forms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PAGE_CSP } from "./page.ts";
 *
 * assert.match(PAGE_CSP, /^default-src 'none'; script-src 'self';/);
 * ```
 */
export const PAGE_CSP = pageCsp([]);

/**
 * The page's Content-Security-Policy when it also fetches from `origins` (the OAuth token
 * endpoint's origin).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageCsp } from "./page.ts";
 *
 * assert.match(pageCsp(["https://id.example.com"]), /connect-src 'self' https:\/\/id\.example\.com;/);
 * ```
 */
export function pageCsp(origins: readonly string[]): string {
  return "default-src 'none'; script-src 'self'; style-src 'self'; " +
    `img-src 'self'; connect-src ${["'self'", ...origins].join(" ")}; base-uri 'none'; ` +
    "form-action 'none'; frame-ancestors 'none'";
}

/** One body served in two encodings: its identity bytes and, once asked for, gzip. */
class Served {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  readonly gzipEtag: string;
  #gzip: Uint8Array<ArrayBuffer> | undefined;
  #gzipping: Promise<Uint8Array<ArrayBuffer>> | undefined;
  constructor(text: string, readonly headers: HeaderList) {
    this.bytes = new TextEncoder().encode(text);
    const hash = hashOf(text);
    this.etag = `"${hash}"`;
    this.gzipEtag = `"${hash}-gz"`;
  }
  /** The gzip bytes, once computed. */
  get gzipped(): Uint8Array<ArrayBuffer> | undefined {
    return this.#gzip;
  }
  /** The gzip bytes, or a stream that yields them once they are computed. */
  gzipBody(): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> {
    if (this.#gzip !== undefined) return this.#gzip;
    this.#gzipping ??= gzip(this.bytes).then((bytes) => (this.#gzip = bytes), (e) => {
      this.#gzipping = undefined; // not cached: a later request tries again
      throw e;
    });
    const pending = this.#gzipping;
    return new ReadableStream<Uint8Array<ArrayBuffer>>({
      async pull(controller) {
        controller.enqueue(await pending);
        controller.close();
      },
    });
  }
}

/**
 * Compiles the page's configuration into its handler: the HTML is built here, once. Throws a
 * "Cannot configure the web page: …" error for a UI path that does not start with `/` or lies under
 * `/_memo/`, and a "Cannot configure allowed origins" error for a bad origin pattern.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WEB_ENTRY } from "../../web/mod.ts";
 * import { createPageHandler } from "./page.ts";
 *
 * const handler = createPageHandler({
 *   uiPath: "/",
 *   allowedOrigins: [],
 *   page: { mcpPath: "/mcp", readOnly: true, authRequired: false, version: "0.1.0" },
 * });
 * const page = handler(new Request("http://127.0.0.1:8787/?q=deploy"))!;
 * assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
 * assert.match(await page.text(), /<title>memo<\/title>/);
 * const asset = handler(new Request(`http://127.0.0.1:8787/_memo/assets/${WEB_ENTRY.script}`))!;
 * assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
 * await asset.body?.cancel();
 * const rebinding = handler(
 *   new Request("http://127.0.0.1:8787/", { headers: { host: "evil.example" } }),
 * )!;
 * assert.equal(rebinding.status, 403);
 * await rebinding.body?.cancel();
 * assert.throws(
 *   () => createPageHandler({ uiPath: "/_memo/ui", allowedOrigins: [], page: { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0" } }),
 *   /Cannot configure the web page/,
 * );
 * ```
 */
export function createPageHandler(config: OAuthPageHandlerConfig): AsyncPageHandler;
export function createPageHandler(config: PageHandlerConfig): PageHandler;
export function createPageHandler(
  config: PageHandlerConfig & { oauth?: OAuthPageHandlerConfig["oauth"] },
): AsyncPageHandler {
  const uiPath = config.uiPath;
  checkUiPath(uiPath, config.page.mcpPath);
  const originAllowed = createOriginMatcher(config.allowedOrigins);
  const authRequired = config.page.authRequired;
  const oauth = config.oauth;
  let html = oauth === undefined ? servedHtml(config.page, []) : undefined;
  let building: Promise<Served> | undefined;
  const page = (): Served | Promise<Served> =>
    html ?? (building ??= oauth!().then((o) => {
      const connect = o.tokenEndpoint === undefined ? [] : [new URL(o.tokenEndpoint).origin];
      return html = servedHtml({ ...config.page, oauth: o }, connect);
    }, (e) => {
      building = undefined; // not cached: a later request tries again
      throw e;
    }));
  const assets = new Map<string, Served>();
  for (const asset of WEB_ASSETS) assets.set(asset.name, servedAsset(asset));

  return function handlePage(request: Request): Response | Promise<Response> | undefined {
    const path = pathOf(request.url);
    const isPage = path === uiPath;
    if (!isPage && !path.startsWith(WEB_ASSETS_PREFIX)) return undefined;
    // The endpoint's origin and Host rules; the page's own origin always passes.
    const refused = originRefusal(request, originAllowed, authRequired, true);
    if (refused) return refused;
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") {
      return httpErrorResponse(
        405,
        INVALID_REQUEST,
        `Cannot accept ${method}: use GET`,
        null,
        ALLOW,
      );
    }
    const served = isPage ? page() : assets.get(path.slice(WEB_ASSETS_PREFIX.length));
    if (served === undefined) {
      return httpErrorResponse(404, INVALID_REQUEST, "Cannot find the asset", null);
    }
    if (served instanceof Promise) {
      return served.then(
        (s) => respond(s, request, method === "HEAD"),
        () =>
          httpErrorResponse(
            503,
            JSON_RPC_CODES.internalError,
            "Cannot show the page: the authorization server cannot be reached",
            null,
            [["retry-after", "5"]],
          ),
      );
    }
    return respond(served, request, method === "HEAD");
  };
}

function servedHtml(page: WebPageConfig, connect: readonly string[]): Served {
  return new Served(webPageHtml(page), [
    ["content-type", "text/html; charset=utf-8"],
    ["cache-control", "no-cache"],
    ["content-security-policy", pageCsp(connect)],
    ["x-content-type-options", "nosniff"],
    ["referrer-policy", "no-referrer"],
    ["x-frame-options", "DENY"],
  ]);
}

function checkUiPath(uiPath: string, mcpPath: string): void {
  const reason = !uiPath.startsWith("/")
    ? "the path must start with /"
    : new URL(uiPath, "http://localhost").pathname !== uiPath
    ? `the path ${JSON.stringify(uiPath)} is not a URL path as a browser sends it ` +
      "(no space, ?, #, .. or other character a URL encodes)"
    : uiPath === mcpPath
    ? `the path ${uiPath} is the MCP endpoint's`
    : uiPath === "/_memo" || uiPath.startsWith("/_memo/")
    ? `the path ${uiPath} is under /_memo/, which memo keeps for the page's assets`
    : undefined;
  if (reason !== undefined) throw new Error(`Cannot configure the web page: ${reason}`);
}

function servedAsset(asset: WebAsset): Served {
  return new Served(asset.text, [
    ["content-type", asset.type],
    ["cache-control", "public, max-age=31536000, immutable"],
    ["content-security-policy", PAGE_CSP],
    ["x-content-type-options", "nosniff"],
  ]);
}

function respond(served: Served, request: Request, head: boolean): Response {
  // A HEAD states the length of what a GET sends: gzip when it is computed
  // already, else the identity body (also a valid answer to Accept-Encoding).
  const gzipped = acceptsGzip(request.headers.get("accept-encoding")) &&
    (!head || served.gzipped !== undefined);
  const etag = gzipped ? served.gzipEtag : served.etag;
  const headers: [string, string][] = [
    ...served.headers as [string, string][],
    ["etag", etag],
    ["vary", "accept-encoding"],
  ];
  if (matchesEtag(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  if (gzipped) headers.push(["content-encoding", "gzip"]);
  if (head) {
    headers.push(["content-length", String((gzipped ? served.gzipped! : served.bytes).length)]);
    return new Response(null, { status: 200, headers });
  }
  if (!gzipped) return new Response(served.bytes, { status: 200, headers });
  return new Response(served.gzipBody(), { status: 200, headers, ...PRECOMPRESSED });
}

function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  for (const part of header.split(",")) {
    const tag = part.trim();
    if (tag === "*" || tag === etag || tag === `W/${etag}`) return true;
  }
  return false;
}

/** A 53-bit hash of a text (cyrb53), as hex: the ETag of a body built in memory. */
function hashOf(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}
