/**
 * What the endpoint tells clients about itself as a protected resource: the Protected Resource
 * Metadata document (RFC 9728), served at `/.well-known/oauth-protected-resource` and at its form
 * suffixed with the resource's path, and the `WWW-Authenticate: Bearer` challenges (RFC 6750) of
 * its 400, 401 and 403 answers. The document needs no token, skips the origin check, answers any
 * origin and may be cached.
 *
 * @module
 */

import type { HeaderList } from "../cors.ts";
import { PROTECTED_RESOURCE_WELL_KNOWN, type ResolvedOAuthConfig } from "./config.ts";

/**
 * The Protected Resource Metadata document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { protectedResourceMetadata } from "./metadata.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 * }, {})!;
 * assert.deepEqual(protectedResourceMetadata(config), {
 *   resource: "https://memo.example.com/mcp",
 *   authorization_servers: ["https://id.example.com"],
 *   scopes_supported: ["memo:read", "memo:write"],
 *   bearer_methods_supported: ["header"],
 *   resource_name: "memo",
 * });
 * ```
 */
export function protectedResourceMetadata(config: ResolvedOAuthConfig): Record<string, unknown> {
  return {
    resource: config.resource,
    authorization_servers: [config.issuer],
    scopes_supported: [config.scopes.read, config.scopes.write],
    bearer_methods_supported: ["header"],
    resource_name: "memo",
  };
}

/**
 * The paths the document is served on: the root form, and the form suffixed with the resource's
 * path when it has one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { metadataPaths } from "./metadata.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 * }, {})!;
 * assert.deepEqual([...metadataPaths(config)], [
 *   "/.well-known/oauth-protected-resource",
 *   "/.well-known/oauth-protected-resource/mcp",
 * ]);
 * ```
 */
export function metadataPaths(config: ResolvedOAuthConfig): ReadonlySet<string> {
  const paths = new Set([PROTECTED_RESOURCE_WELL_KNOWN]);
  if (config.resourcePath !== "/") paths.add(PROTECTED_RESOURCE_WELL_KNOWN + config.resourcePath);
  return paths;
}

const METADATA_CORS: HeaderList = [
  ["access-control-allow-origin", "*"],
  ["access-control-allow-methods", "GET, HEAD, OPTIONS"],
  ["access-control-allow-headers", "*"],
  ["access-control-max-age", "600"],
];

/**
 * Builds the handler of the metadata paths: GET and HEAD get the document (`Cache-Control: public,
 * max-age=3600`), OPTIONS the preflight, anything else 405. Any origin, no token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { createMetadataHandler } from "./metadata.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 * }, {})!;
 * const handle = createMetadataHandler(config);
 * const response = handle(
 *   new Request("https://memo.example.com/.well-known/oauth-protected-resource/mcp", {
 *     headers: { origin: "https://anywhere.example" },
 *   }),
 * );
 * assert.equal(response.headers.get("access-control-allow-origin"), "*");
 * assert.equal((await response.json()).resource, "https://memo.example.com/mcp");
 * ```
 */
export function createMetadataHandler(config: ResolvedOAuthConfig): (request: Request) => Response {
  const body = JSON.stringify(protectedResourceMetadata(config));
  const headers: HeaderList = [
    ["content-type", "application/json"],
    ["cache-control", "public, max-age=3600"],
    ...METADATA_CORS,
  ];
  return (request) => {
    const method = request.method;
    if (method === "GET") return new Response(body, { headers: headers as [string, string][] });
    if (method === "HEAD") return new Response(null, { headers: headers as [string, string][] });
    if (method === "OPTIONS") {
      return new Response(null, { status: 204, headers: METADATA_CORS as [string, string][] });
    }
    return new Response(
      JSON.stringify({
        error: "invalid_request",
        error_description: `Cannot accept ${method}: use GET`,
      }),
      {
        status: 405,
        headers: [
          ["content-type", "application/json"],
          ["allow", "GET, HEAD, OPTIONS"],
          ...METADATA_CORS,
        ] as [string, string][],
      },
    );
  };
}

/**
 * What a challenge says: no `error` for a request without a token, else the RFC 6750 error code
 * and, optionally, a short description (never the token).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { type Challenge, challengeHeader } from "./metadata.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 * }, {})!;
 * const challenge: Challenge = { error: "invalid_token", description: "the token has expired" };
 * assert.match(challengeHeader(config, challenge), /error="invalid_token"/);
 * ```
 */
export interface Challenge {
  /** `invalid_request`, `invalid_token` or `insufficient_scope`; absent when no token was sent. */
  error?: "invalid_request" | "invalid_token" | "insufficient_scope";
  /** `error_description`. */
  description?: string;
  /**
   * The scopes the request needs.
   * @default {the read scope and the write scope}
   */
  scope?: string;
}

/**
 * The `WWW-Authenticate` value of a challenge: `Bearer resource_metadata="…", scope="…"` and, when
 * there is one, `error="…"` with its `error_description`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { challengeHeader } from "./metadata.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 * }, {})!;
 * assert.equal(
 *   challengeHeader(config, {}),
 *   'Bearer resource_metadata="https://memo.example.com/.well-known/oauth-protected-resource/mcp", ' +
 *     'scope="memo:read memo:write"',
 * );
 * assert.equal(
 *   challengeHeader(config, { error: "insufficient_scope", scope: "memo:write" }),
 *   'Bearer resource_metadata="https://memo.example.com/.well-known/oauth-protected-resource/mcp", ' +
 *     'scope="memo:write", error="insufficient_scope"',
 * );
 * ```
 */
export function challengeHeader(config: ResolvedOAuthConfig, challenge: Challenge): string {
  const scope = challenge.scope ?? `${config.scopes.read} ${config.scopes.write}`;
  let value = `Bearer resource_metadata="${config.metadataUrl}", scope="${scope}"`;
  if (challenge.error !== undefined) value += `, error="${challenge.error}"`;
  if (challenge.description !== undefined) {
    value += `, error_description="${challenge.description.replace(/["\\]/g, "")}"`;
  }
  return value;
}
