/**
 * The OpenAPI 3.1 document of the Memo Cloud API v1 ({@linkcode CLOUD_OPENAPI_DOCUMENT}), served at
 * `GET /v1/openapi.json`: `document.ts` assembles it from its paths (`_paths.ts`), its shared
 * responses, parameters and headers (`_components.ts`) and its schemas (`_schemas.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CLOUD_OPENAPI_DOCUMENT } from "./mod.ts";
 *
 * assert.equal(CLOUD_OPENAPI_DOCUMENT.openapi, "3.1.0");
 * ```
 *
 * @module
 */

export { CLOUD_OPENAPI_DOCUMENT } from "./document.ts";
