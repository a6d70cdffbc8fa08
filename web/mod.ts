/**
 * memo's web page: the bundled assets (generated from `web/src/` by
 * `scripts/build_web.ts`) and the HTML document that loads them. It knows no
 * other part of memo; the hosted endpoint serves it (`server/http/page.ts`).
 *
 * @module
 */

export { WEB_ASSETS, WEB_ENTRY, type WebAsset } from "./assets.ts";
export {
  WEB_ASSETS_PREFIX,
  type WebPageConfig,
  webPageHtml,
  type WebPageOAuthConfig,
} from "./page.ts";
