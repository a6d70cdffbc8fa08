/**
 * The types of the OAuth configuration: the `auth.oauth` option ({@linkcode MemoMcpOAuthOptions})
 * and its parts, the `oauth` block of `.memo/config.json`, and the configuration once resolved.
 * `config.ts` re-exports them.
 *
 * @module
 */

/**
 * The two scopes memo knows: one to read, one to read and write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoMcpOAuthScopes, resolveOAuthConfig } from "./config.ts";
 *
 * const scopes: MemoMcpOAuthScopes = { read: "notes.read", write: "notes.write" };
 * const config = resolveOAuthConfig(
 *   { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", scopes },
 *   {},
 * )!;
 * assert.deepEqual(config.scopes, scopes);
 * ```
 */
export interface MemoMcpOAuthScopes {
  /**
   * The scope that lets a caller read.
   * @default "memo:read"
   */
  read?: string;
  /**
   * The scope that lets a caller write (and read: it implies the read scope).
   * @default "memo:write"
   */
  write?: string;
}

/**
 * How memo asks the authorization server about an opaque token (RFC 7662), authenticating as a
 * confidential client with HTTP Basic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoMcpOAuthIntrospection, resolveOAuthConfig } from "./config.ts";
 *
 * const introspection: MemoMcpOAuthIntrospection = {
 *   url: "https://id.example.com/introspect",
 *   clientId: "memo",
 *   clientSecret: "s3cret",
 * };
 * const config = resolveOAuthConfig(
 *   { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", introspection },
 *   {},
 * )!;
 * assert.equal(config.introspection?.url, "https://id.example.com/introspect");
 * ```
 */
export interface MemoMcpOAuthIntrospection {
  /** The introspection endpoint (`MEMO_OAUTH_INTROSPECTION_URL`). */
  url: string;
  /** memo's client id at the authorization server (`MEMO_OAUTH_INTROSPECTION_CLIENT_ID`). */
  clientId: string;
  /** Its secret (`MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET`); never from `.memo/config.json`. */
  clientSecret: string;
}

/**
 * `auth.oauth`: the endpoint is an OAuth 2.1 protected resource. memo never issues tokens: it
 * trusts the authorization server `issuer` names, checks each access token (a JWT against the
 * issuer's keys, or an opaque token by introspection), publishes its Protected Resource Metadata
 * (RFC 9728) and answers 401 and 403 with the challenges MCP clients follow. Each field wins over
 * its `MEMO_OAUTH_*` variable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoMcpOAuthOptions } from "@memo/mcp-server/http";
 * import { resolveOAuthConfig } from "./config.ts";
 *
 * const oauth: MemoMcpOAuthOptions = {
 *   issuer: "https://id.example.com/realms/team",
 *   resource: "https://memo.example.com/mcp",
 * };
 * const config = resolveOAuthConfig(oauth, { MEMO_OAUTH_PAGE_CLIENT_ID: "memo-page" })!;
 * assert.equal(config.pageClientId, "memo-page");
 * assert.equal(
 *   config.metadataUrl,
 *   "https://memo.example.com/.well-known/oauth-protected-resource/mcp",
 * );
 * ```
 */
export interface MemoMcpOAuthOptions {
  /** The authorization server's issuer identifier (`MEMO_OAUTH_ISSUER`): https, or http on loopback. */
  issuer: string;
  /**
   * The endpoint's canonical URL (`MEMO_OAUTH_RESOURCE`), the audience every token must carry (RFC
   * 8707): https, or http on loopback; its path is the MCP path.
   */
  resource: string;
  /**
   * The read and write scopes (`MEMO_OAUTH_SCOPES`, `read,write`).
   * @default {{ read: "memo:read", write: "memo:write" }}
   */
  scopes?: MemoMcpOAuthScopes;
  /**
   * Where the issuer's signing keys are (`MEMO_OAUTH_JWKS_URI`).
   * @default {the `jwks_uri` of the issuer's metadata}
   */
  jwksUri?: string;
  /**
   * Introspection of opaque tokens (RFC 7662).
   * @default {undefined: only JWT access tokens are accepted}
   */
  introspection?: MemoMcpOAuthIntrospection;
  /**
   * The client id of memo's web page (`MEMO_OAUTH_PAGE_CLIENT_ID`), a public client whose redirect
   * URI is the page's own URL.
   * @default {undefined: the page asks for an access token to paste}
   */
  pageClientId?: string;
  /**
   * Clock skew allowed on `exp` and `nbf`, in seconds (0–300).
   * @default 30
   */
  leewaySeconds?: number;
  /**
   * The fetch memo calls the authorization server with (metadata, keys, introspection). It never
   * carries a client's token anywhere else.
   * @default {globalThis.fetch}
   */
  fetch?: typeof fetch;
}

/**
 * The `oauth` block of `.memo/config.json`: every field of {@linkcode MemoMcpOAuthOptions} but
 * `fetch`, with no client secret.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProjectOAuthConfig, readProjectOAuthConfig } from "./config.ts";
 *
 * const block: ProjectOAuthConfig = readProjectOAuthConfig({
 *   oauth: { issuer: "https://id.example.com", scopes: "notes.read,notes.write" },
 * })!;
 * assert.deepEqual(block.scopes, { read: "notes.read", write: "notes.write" });
 * ```
 */
export type ProjectOAuthConfig =
  & Partial<Omit<MemoMcpOAuthOptions, "fetch" | "introspection">>
  & { introspection?: Partial<Omit<MemoMcpOAuthIntrospection, "clientSecret">> };

/**
 * An OAuth configuration with every default applied and every URL checked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ResolvedOAuthConfig, resolveOAuthConfig } from "./config.ts";
 *
 * const config: ResolvedOAuthConfig = resolveOAuthConfig(undefined, {
 *   MEMO_OAUTH_ISSUER: "http://127.0.0.1:9000",
 *   MEMO_OAUTH_RESOURCE: "http://127.0.0.1:8787/mcp",
 * })!;
 * assert.deepEqual(config.scopes, { read: "memo:read", write: "memo:write" });
 * assert.equal(config.leewaySeconds, 30);
 * assert.equal(config.resourcePath, "/mcp");
 * ```
 */
export interface ResolvedOAuthConfig {
  /** The issuer, exactly as configured (it is compared as a string). */
  issuer: string;
  /** The canonical resource URL (no trailing slash unless it is the origin's `/`). */
  resource: string;
  /** The path of {@linkcode resource} (`/` for an origin). */
  resourcePath: string;
  /** The Protected Resource Metadata URL (path-suffixed when the resource has a path). */
  metadataUrl: string;
  /** The read and write scopes. */
  scopes: Required<MemoMcpOAuthScopes>;
  /** Configured JWKS URL, if any. */
  jwksUri?: string;
  /** Introspection, if configured. */
  introspection?: MemoMcpOAuthIntrospection;
  /** The web page's client id, if any. */
  pageClientId?: string;
  /** Allowed clock skew in seconds. */
  leewaySeconds: number;
  /** The fetch for the authorization server. */
  fetch: typeof fetch;
}
