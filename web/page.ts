/**
 * The HTML document of memo's web page: a shell that loads the bundled
 * script, style sheet and icon ({@linkcode WEB_ENTRY}) and hands the page its
 * configuration in `<meta name="memo-config">`.
 *
 * @module
 */

import { WEB_ENTRY } from "./_assets.ts";

/**
 * What the page is told about the endpoint that serves it, as JSON in
 * `<meta name="memo-config">`. It never holds a token.
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
  /** memo's version. */
  version: string;
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
 * The HTML document of the page for one configuration. Only the keys of
 * {@linkcode WebPageConfig} reach the page, HTML-escaped.
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
