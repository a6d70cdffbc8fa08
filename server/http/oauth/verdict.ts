/**
 * What checking an access token gives, whichever way it was checked (a JWT's signature or
 * introspection): its claims, or why it is refused, or that the authorization server cannot be
 * reached; and the caller's {@linkcode MemoMcpAuthInfo} built from the claims.
 *
 * @module
 */

import type { MemoMcpAuthInfo } from "../../types.ts";
import { canonicalResource, type MemoMcpOAuthScopes } from "./config.ts";

/**
 * What a token is checked against.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TokenCheck } from "./verdict.ts";
 *
 * const check: TokenCheck = {
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 *   leewaySeconds: 30,
 * };
 * assert.equal(check.leewaySeconds, 30);
 * ```
 */
export interface TokenCheck {
  /** The expected `iss`. */
  issuer: string;
  /** The canonical resource URL `aud` must name. */
  resource: string;
  /** Allowed clock skew, in seconds. */
  leewaySeconds: number;
}

/**
 * The outcome of checking one token: its claims; `invalid` (401 `invalid_token`) with a reason that
 * never holds the token; or `unavailable` (503) when the authorization server cannot be reached.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TokenVerdict } from "./verdict.ts";
 *
 * const refused: TokenVerdict = { ok: false, kind: "invalid", reason: "the token has expired" };
 * assert.equal(refused.ok, false);
 * ```
 */
export type TokenVerdict =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; kind: "invalid" | "unavailable"; reason: string };

/**
 * Whether an `aud` claim (a string or an array) names the resource, compared in canonical form
 * (case of scheme and host, default port, trailing slash).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { audienceMatches } from "./verdict.ts";
 *
 * assert.equal(audienceMatches("HTTPS://memo.example.com/mcp/", "https://memo.example.com/mcp"), true);
 * assert.equal(audienceMatches(["a", "https://memo.example.com/mcp"], "https://memo.example.com/mcp"), true);
 * assert.equal(audienceMatches("https://memo.example.com/other", "https://memo.example.com/mcp"), false);
 * assert.equal(audienceMatches(undefined, "https://memo.example.com/mcp"), false);
 * assert.equal(audienceMatches("https://memo.example.com/mcp?tenant=b", "https://memo.example.com/mcp"), false);
 * assert.equal(audienceMatches("https://memo.example.com/mcp?", "https://memo.example.com/mcp"), false);
 * ```
 */
export function audienceMatches(aud: unknown, resource: string): boolean {
  const list = Array.isArray(aud) ? aud : [aud];
  for (const value of list) {
    if (typeof value !== "string") continue;
    if (value === resource) return true;
    try {
      const url = new URL(value);
      // A query, a fragment or user information names another resource (RFC 8707 §2), which the
      // canonical form would drop; an empty one too (`URL` reads `…/mcp?` as no query): the text
      // tells.
      if (/[?#]/.test(value) || /^[^/]*\/\/[^/]*@/.test(value)) continue;
      if (canonicalResource(url) === resource) return true;
    } catch {
      // not a URL: no match
    }
  }
  return false;
}

/**
 * The scopes a token grants: `scope` (space-separated, RFC 9068 and 7662), else `scp` (a string or
 * an array, as Entra ID and Okta write it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scopesOf } from "./verdict.ts";
 *
 * assert.deepEqual(scopesOf({ scope: "openid memo:read" }), ["openid", "memo:read"]);
 * assert.deepEqual(scopesOf({ scp: ["memo:write"] }), ["memo:write"]);
 * assert.deepEqual(scopesOf({}), []);
 * ```
 */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === "string") return raw.split(" ").filter((s) => s !== "");
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === "string");
  return [];
}

/**
 * The caller as memo's `authorize` sees it: scheme `oauth`, `sub`, `clientId` (`client_id`, else
 * `azp`), `scopes`, `claims`, and `readOnly` when the token has the read scope but not the write
 * scope (the write scope implies the read scope). Undefined when it has neither: such a token may
 * do nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authInfoOf } from "./verdict.ts";
 *
 * const scopes = { read: "memo:read", write: "memo:write" };
 * const reader = authInfoOf({ sub: "ana", azp: "claude", scope: "memo:read" }, scopes)!;
 * assert.equal(reader.scheme, "oauth");
 * assert.equal(reader.clientId, "claude");
 * assert.equal(reader.readOnly, true);
 * assert.equal(authInfoOf({ scope: "memo:write" }, scopes)!.readOnly, false);
 * assert.equal(authInfoOf({ scope: "openid" }, scopes), undefined);
 * ```
 */
export function authInfoOf(
  claims: Record<string, unknown>,
  scopes: Required<MemoMcpOAuthScopes>,
): MemoMcpAuthInfo | undefined {
  const granted = scopesOf(claims);
  const canWrite = granted.includes(scopes.write);
  if (!canWrite && !granted.includes(scopes.read)) return undefined;
  const info: MemoMcpAuthInfo = {
    scheme: "oauth",
    scopes: granted,
    claims: Object.freeze({ ...claims }),
    readOnly: !canWrite,
  };
  if (typeof claims.sub === "string") info.sub = claims.sub;
  const clientId = claims.client_id ?? claims.azp;
  if (typeof clientId === "string") info.clientId = clientId;
  return info;
}
