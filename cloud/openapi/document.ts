/**
 * The OpenAPI 3.1 document of the Memo Cloud API v1, as the server serves it
 * at `GET /v1/openapi.json`. `docs/cloud-api.openapi.json` holds the same
 * document (a test checks), and `docs/cloud-api.md` explains it.
 *
 * @module
 */

import { headers, parameters, responses } from "./_components.ts";
import { paths } from "./_paths.ts";
import { schemas } from "./_schemas.ts";

/**
 * The OpenAPI 3.1 document of the Memo Cloud API v1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CLOUD_OPENAPI_DOCUMENT } from "./document.ts";
 *
 * assert.equal(CLOUD_OPENAPI_DOCUMENT.openapi, "3.1.0");
 * assert.ok("/v1/workspaces/{workspaceId}/projects/{projectId}/notes:batch" in
 *   CLOUD_OPENAPI_DOCUMENT.paths);
 * ```
 */
export const CLOUD_OPENAPI_DOCUMENT: {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
  [key: string]: unknown;
} = {
  openapi: "3.1.0",
  info: {
    title: "Memo Cloud API",
    version: "1.0.0",
    description:
      "The Memo Cloud API v1: notes of memo (local-first memory for AI agents) kept by a server, per workspace and project, with revisions, idempotent writes and a change feed. HEAD is answered wherever GET is (the same status and headers, no body). See docs/cloud-api.md.",
    license: { name: "MIT", identifier: "MIT" },
  },
  jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
  servers: [{ url: "http://127.0.0.1:8788", description: "memo cloud serve (default)" }],
  security: [{ bearer: [] }],
  paths,
  components: {
    schemas,
    responses,
    parameters,
    headers,
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description:
          "An API key of MEMO_CLOUD_API_KEYS: `Authorization: Bearer <key>`. The key decides the workspace.",
      },
      operator: {
        type: "http",
        scheme: "bearer",
        description:
          "An operator key of MEMO_CLOUD_OPERATOR_KEYS: `Authorization: Bearer <key>`. It reads `GET /v1/stats` and nothing else.",
      },
    },
  },
};
