/**
 * Opaque access tokens checked by token introspection (RFC 7662): memo posts the token to the
 * authorization server's introspection endpoint, as a confidential client (HTTP Basic), and accepts
 * it when the answer is `active` with memo's resource in `aud`, the configured `iss` (when the
 * answer names one) and `exp`/`nbf` within the leeway. Answers are cached for
 * {@linkcode INTROSPECTION_CACHE_MS} at most (never past the token's `exp`), keyed by the token's
 * SHA-256, so the cache never holds a token.
 *
 * @module
 */

import type { MemoMcpOAuthIntrospection } from "./config.ts";
import { fetchJson, IssuerUnavailableError } from "./issuer.ts";
import { TokenCache } from "./_token_cache.ts";
import { audienceMatches, type TokenCheck, type TokenVerdict } from "./verdict.ts";

/**
 * How long an introspection answer is reused.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INTROSPECTION_CACHE_MS } from "./_introspection.ts";
 *
 * assert.equal(INTROSPECTION_CACHE_MS, 30_000);
 * ```
 */
export const INTROSPECTION_CACHE_MS = 30_000;

/**
 * Checks opaque tokens with the introspection endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Introspector } from "./_introspection.ts";
 *
 * let asked = 0;
 * const fake: typeof fetch = () => {
 *   asked++;
 *   return Promise.resolve(Response.json({
 *     active: true,
 *     aud: "https://memo.example.com/mcp",
 *     scope: "memo:read",
 *     sub: "ana",
 *   }));
 * };
 * const introspector = new Introspector(
 *   { url: "https://id.example.com/introspect", clientId: "memo", clientSecret: "s3cret" },
 *   { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", leewaySeconds: 30 },
 *   fake,
 * );
 * const verdict = await introspector.introspect("opaque-token");
 * assert.equal(verdict.ok && verdict.claims.sub, "ana");
 * await introspector.introspect("opaque-token");
 * assert.equal(asked, 1); // cached
 * ```
 */
export class Introspector {
  #cache: TokenCache<TokenVerdict>;
  #authorization: string;

  constructor(
    readonly config: MemoMcpOAuthIntrospection,
    readonly check: TokenCheck,
    readonly fetchFn: typeof fetch,
    readonly now: () => number = Date.now,
  ) {
    this.#cache = new TokenCache(now);
    const pair = `${formEncode(config.clientId)}:${formEncode(config.clientSecret)}`;
    this.#authorization = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(pair)))}`;
  }

  /** Checks one opaque token (an answer from the cache when there is a fresh one). */
  async introspect(token: string): Promise<TokenVerdict> {
    const key = await this.#cache.key(token);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const now = this.now();
    let answer: Record<string, unknown>;
    try {
      answer = await fetchJson(this.fetchFn, this.config.url, "the token's introspection", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: this.#authorization,
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
      });
    } catch (e) {
      return {
        ok: false,
        kind: "unavailable",
        reason: e instanceof IssuerUnavailableError ? e.message : "Cannot introspect the token",
      };
    }
    const verdict = this.#judge(answer, now);
    let until = now + INTROSPECTION_CACHE_MS;
    if (verdict.ok && typeof answer.exp === "number") {
      until = Math.min(until, answer.exp * 1000 + this.check.leewaySeconds * 1000);
    }
    this.#cache.set(key, verdict, until);
    return verdict;
  }

  #judge(answer: Record<string, unknown>, now: number): TokenVerdict {
    const refuse = (reason: string): TokenVerdict => ({ ok: false, kind: "invalid", reason });
    if (answer.active !== true) return refuse("the token is not active");
    if (answer.iss !== undefined && answer.iss !== this.check.issuer) {
      return refuse("the token is from another issuer");
    }
    if (!audienceMatches(answer.aud, this.check.resource)) {
      return refuse("the token is for another audience");
    }
    const leeway = this.check.leewaySeconds;
    const seconds = now / 1000;
    if (typeof answer.exp === "number" && answer.exp + leeway <= seconds) {
      return refuse("the token has expired");
    }
    if (typeof answer.nbf === "number" && answer.nbf - leeway > seconds) {
      return refuse("the token is not yet valid");
    }
    const { active: _active, ...claims } = answer;
    return { ok: true, claims };
  }
}

/** `application/x-www-form-urlencoded` encoding, as RFC 6749 §2.3.1 asks of Basic credentials. */
function formEncode(text: string): string {
  return new URLSearchParams({ x: text }).toString().slice(2);
}
