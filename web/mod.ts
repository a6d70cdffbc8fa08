/**
 * memo's web page: the bundled assets (generated from `web/src/` by
 * `scripts/build_web.ts`) and the HTML document that loads them. It knows no
 * other part of memo; the hosted endpoint serves it (`server/http/page.ts`).
 *
 * @module
 */

export { WEB_ASSETS, WEB_ENTRY, type WebAsset } from "./_assets.ts";
export { type WebPageConfig, webPageHtml } from "./page.ts";

/**
 * The path the page's assets are served under: `/_memo/assets/<name>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WEB_ASSETS, WEB_ASSETS_PREFIX } from "./mod.ts";
 *
 * assert.equal(WEB_ASSETS_PREFIX, "/_memo/assets/");
 * assert.ok(WEB_ASSETS.length > 0);
 * ```
 */
export const WEB_ASSETS_PREFIX = "/_memo/assets/";
