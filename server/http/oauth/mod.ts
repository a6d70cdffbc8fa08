/**
 * The hosted endpoint as an OAuth 2.1 protected resource (the MCP authorization spec, 2025-11-25
 * and 2026-07-28): its configuration (`auth.oauth`, `MEMO_OAUTH_*`, the `oauth` block of
 * `.memo/config.json`), its Protected Resource Metadata (RFC 9728) and challenges (RFC 6750), the
 * issuer's metadata (RFC 8414, OpenID Connect Discovery), and the checks of JWT access tokens (RFC
 * 9068, with `jose`, loaded only when OAuth is on) and of opaque ones (introspection, RFC 7662).
 * memo never issues tokens.
 *
 * @module
 */

export {
  canonicalResource,
  type MemoMcpOAuthIntrospection,
  type MemoMcpOAuthOptions,
  type MemoMcpOAuthScopes,
  OAUTH_ENV_VARIABLES,
  type ProjectOAuthConfig,
  PROTECTED_RESOURCE_WELL_KNOWN,
  readProjectOAuthConfig,
  type ResolvedOAuthConfig,
  resolveOAuthConfig,
} from "./config.ts";
export { type Challenge, challengeHeader, protectedResourceMetadata } from "./metadata.ts";
export { discoverIssuer, type IssuerMetadata, IssuerUnavailableError } from "./issuer.ts";
export { type AuthRefusal, type OAuthOutcome, OAuthResourceServer } from "./resource_server.ts";
export { authInfoOf, scopesOf, type TokenVerdict } from "./verdict.ts";
