/**
 * The HTML document of memo's web page: a shell that loads the bundled script, style sheet and icon
 * ({@linkcode WEB_ENTRY}) and hands the page its configuration in `<meta name="memo-config">`.
 *
 * @module
 */

import { WEB_ENTRY } from "./assets.ts";

/**
 * What the page is told about the endpoint that serves it, as JSON in `<meta name="memo-config">`.
 * It never holds a token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type WebPageConfig, webPageHtml } from "./page.ts";
 *
 * const config: WebPageConfig = {
 *   mcpPath: "/mcp",
 *   readOnly: true,
 *   authRequired: false,
 *   version: "0.1.0",
 * };
 * assert.match(webPageHtml(config), /&quot;readOnly&quot;:true/);
 * ```
 */
export interface WebPageConfig {
  /** The path of the MCP endpoint the page calls. */
  mcpPath: string;
  /** Whether the endpoint refuses writes. */
  readOnly: boolean;
  /** Whether calls need a bearer token. */
  authRequired: boolean;
  version: string;
  /**
   * The largest page `list_notes` and `recall` answer (the server's `maxPageSize`): the page asks
   * for no more. Absent: 100, the server's default.
   */
  maxPageSize?: number;
  /** How the page signs in when the endpoint is an OAuth protected resource. */
  oauth?: WebPageOAuthConfig;
}

/**
 * What the page needs to sign in with OAuth (the authorization code flow with PKCE, as a public
 * client): the issuer's endpoints, the page's client id, the resource and the scopes to ask for. It
 * never holds a secret.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type WebPageOAuthConfig, webPageHtml } from "./page.ts";
 *
 * const oauth: WebPageOAuthConfig = {
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 *   scopes: ["memo:read", "memo:write"],
 *   issParameter: true,
 *   clientId: "memo-page",
 *   authorizationEndpoint: "https://id.example.com/auth",
 *   tokenEndpoint: "https://id.example.com/token",
 * };
 * const html = webPageHtml({ mcpPath: "/mcp", readOnly: false, authRequired: true, version: "0", oauth });
 * assert.match(html, /&quot;clientId&quot;:&quot;memo-page&quot;/);
 * ```
 */
export interface WebPageOAuthConfig {
  /** The issuer the page expects in the callback's `iss` (RFC 9207). */
  issuer: string;
  /** The resource the page asks a token for (RFC 8707). */
  resource: string;
  /** The read scope and the write scope. */
  scopes: [string, string];
  /** Whether the issuer sends `iss` in its callbacks. */
  issParameter: boolean;
  /** The page's client id; without it the page asks for an access token to paste. */
  clientId?: string;
  /** Where the page sends the browser to sign in. */
  authorizationEndpoint?: string;
  /** Where the page trades the code for a token. */
  tokenEndpoint?: string;
}

/** The path the page's assets are served under. */
/**
 * The path the page's assets are served under: `/_memo/assets/<name>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WEB_ASSETS_PREFIX } from "./page.ts";
 *
 * assert.equal(WEB_ASSETS_PREFIX, "/_memo/assets/");
 * ```
 */
export const WEB_ASSETS_PREFIX = "/_memo/assets/";

/**
 * The HTML document of the page for one configuration. Only the keys of {@linkcode WebPageConfig}
 * reach the page, HTML-escaped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WEB_ENTRY, webPageHtml } from "./mod.ts";
 *
 * const html = webPageHtml({
 *   mcpPath: "/mcp",
 *   readOnly: false,
 *   authRequired: true,
 *   version: "0.1.0",
 * });
 * assert.ok(html.startsWith("<!doctype html>"));
 * assert.ok(html.includes(`<script type="module" src="/_memo/assets/${WEB_ENTRY.script}">`));
 * const meta = /<meta name="memo-config" content="([^"]*)">/.exec(html)![1];
 * const json = meta.replaceAll("&quot;", '"').replaceAll("&amp;", "&");
 * assert.deepEqual(JSON.parse(json), {
 *   mcpPath: "/mcp",
 *   readOnly: false,
 *   authRequired: true,
 *   version: "0.1.0",
 * });
 * ```
 */
export function webPageHtml(config: WebPageConfig): string {
  const json = JSON.stringify({
    mcpPath: config.mcpPath,
    readOnly: config.readOnly,
    authRequired: config.authRequired,
    version: config.version,
    ...(config.maxPageSize !== undefined ? { maxPageSize: config.maxPageSize } : {}),
    ...(config.oauth ? { oauth: config.oauth } : {}),
  });
  return '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>memo</title><meta name="memo-config" content="${escapeHtml(json)}">` +
    `<link rel="icon" href="${WEB_ASSETS_PREFIX}${
      escapeHtml(WEB_ENTRY.icon)
    }" type="image/svg+xml">` +
    `<link rel="stylesheet" href="${WEB_ASSETS_PREFIX}${escapeHtml(WEB_ENTRY.style)}">` +
    `<script type="module" src="${WEB_ASSETS_PREFIX}${escapeHtml(WEB_ENTRY.script)}"></script>` +
    '</head><body><div id="app"></div>' +
    "<noscript>memo's web page needs JavaScript.</noscript></body></html>";
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
