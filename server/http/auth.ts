/**
 * Bearer-token authentication of the hosted endpoint: `auth.requireAuth`, `auth.bearerToken`
 * (compared in constant time, as SHA-256 digests), OAuth access tokens (`auth.oauth`, see `oauth/`)
 * and a custom `auth.authenticate(request)`.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../json_rpc_codes.ts";
import type { MemoMcpAuthInfo } from "../types.ts";
import type { HeaderList } from "./cors.ts";
import { httpErrorResponse } from "./responses.ts";
import type { AuthRefusal, MemoMcpOAuthOptions, OAuthResourceServer } from "./oauth/mod.ts";

/**
 * The `auth` options of the hosted endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import {
 *   createFrameworkMemoMcpHandler,
 *   type MemoMcpHttpAuthOptions,
 * } from "@memo/mcp-server/http";
 *
 * const auth: MemoMcpHttpAuthOptions = {
 *   bearerToken: "s3cret",
 *   // Also let in requests a gateway has already checked.
 *   authenticate: (request) => request.headers.get("x-gateway-user") !== null,
 * };
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const handler = createFrameworkMemoMcpHandler({ runtime, auth });
 * const post = (headers: Record<string, string>) =>
 *   handler(
 *     new Request("https://memo.example.com/mcp", {
 *       method: "POST",
 *       headers: { "content-type": "application/json", accept: "application/json", ...headers },
 *       body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 *     }),
 *   );
 * const ways: Record<string, string>[] = [
 *   { authorization: "Bearer s3cret" },
 *   { "x-gateway-user": "ana" },
 * ];
 * for (const headers of ways) {
 *   const response = await post(headers);
 *   assert.equal(response.status, 200);
 *   await response.body?.cancel();
 * }
 * const refused = await post({ authorization: "Bearer wrong" });
 * assert.equal(refused.status, 401);
 * await refused.body?.cancel();
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpHttpAuthOptions {
  /**
   * Whether every request must authenticate. When it is not required and the `Host` header is not
   * loopback, the request is refused (403).
   *
   * @default {true when `bearerToken` or `authenticate` is set, else false}
   */
  requireAuth?: boolean;
  /**
   * The token clients send as `Authorization: Bearer <token>`. Never echoed.
   *
   * @default {undefined}
   */
  bearerToken?: string;
  /**
   * Custom check, run when the bearer token is absent or does not match; `true` lets the request
   * through.
   *
   * @default {undefined}
   */
  authenticate?: (request: Request) => boolean | Promise<boolean>;
  /**
   * OAuth 2.1: the endpoint is a protected resource of the authorization server `issuer` names (see
   * `docs/oauth.md`). Each field wins over its `MEMO_OAUTH_*` variable; it cannot be used with
   * `bearerToken`.
   *
   * @default {undefined, unless MEMO_OAUTH_ISSUER (or another MEMO_OAUTH_* variable) is set}
   */
  oauth?: MemoMcpOAuthOptions;
}

/**
 * The outcome of {@linkcode HttpAuthenticator.check}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type AuthOutcome, createAuthenticator } from "./auth.ts";
 *
 * const auth = createAuthenticator({ bearerToken: "s3cret" });
 * const missing: AuthOutcome = await auth.check(new Request("http://localhost/mcp"));
 * assert.deepEqual(missing, { ok: false, reason: "missing" });
 * ```
 */
export type AuthOutcome =
  | { ok: true; info: MemoMcpAuthInfo }
  | { ok: false; reason: "missing" | "invalid"; refusal?: AuthRefusal };

/**
 * The compiled auth policy of one endpoint.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createAuthenticator, type HttpAuthenticator } from "./auth.ts";
 *
 * const open: HttpAuthenticator = createAuthenticator({});
 * assert.equal(open.required, false); // loopback only, then (the origin check sees to it)
 * assert.deepEqual(await open.check(new Request("http://localhost/mcp")), {
 *   ok: true,
 *   info: { scheme: "none" },
 * });
 * ```
 */
export interface HttpAuthenticator {
  /** Whether requests must authenticate. */
  readonly required: boolean;
  /** Checks one request (call only when {@linkcode required}). */
  check(request: Request): Promise<AuthOutcome>;
  /** The OAuth resource server, when OAuth is on. */
  readonly oauth?: OAuthResourceServer;
}

const NONE: MemoMcpAuthInfo = Object.freeze({ scheme: "none" as const });
const BEARER: MemoMcpAuthInfo = Object.freeze({ scheme: "bearer" as const });
const CUSTOM: MemoMcpAuthInfo = Object.freeze({ scheme: "custom" as const });
const encoder = new TextEncoder();

/**
 * Compiles the `auth` options. Throws a "Cannot configure authentication: …" error when
 * authentication is required but there is no way to pass it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createAuthenticator } from "./auth.ts";
 *
 * const auth = createAuthenticator({ bearerToken: "s3cret" });
 * assert.equal(auth.required, true);
 * const outcome = await auth.check(
 *   new Request("http://localhost/mcp", { headers: { authorization: "Bearer s3cret" } }),
 * );
 * assert.deepEqual(outcome, { ok: true, info: { scheme: "bearer" } });
 * assert.throws(
 *   () => createAuthenticator({ requireAuth: true }),
 *   /Cannot configure authentication/,
 * );
 * ```
 */
export function createAuthenticator(
  options: MemoMcpHttpAuthOptions = {},
  oauth?: OAuthResourceServer,
): HttpAuthenticator {
  const token = options.bearerToken === "" ? undefined : options.bearerToken;
  const authenticate = options.authenticate;
  if (oauth !== undefined) return oauthAuthenticator(options, token, oauth);
  const required = options.requireAuth ?? (token !== undefined || authenticate !== undefined);
  if (required && token === undefined && authenticate === undefined) {
    throw new Error(
      "Cannot configure authentication: auth.requireAuth is true but neither " +
        "auth.bearerToken (MEMO_MCP_BEARER_TOKEN) nor auth.authenticate is set",
    );
  }
  const expected = token === undefined ? undefined : digest(token);
  return {
    required,
    async check(request: Request): Promise<AuthOutcome> {
      if (!required) return { ok: true, info: NONE };
      const presented = bearerOf(request.headers.get("authorization"));
      if (presented !== undefined && expected !== undefined) {
        if (equalBytes(await digest(presented), await expected)) return { ok: true, info: BEARER };
      }
      if (authenticate !== undefined) {
        const verdict = await customVerdict(authenticate, request);
        if (verdict === true) return { ok: true, info: CUSTOM };
        if (verdict !== false) return verdict;
      }
      return { ok: false, reason: presented === undefined ? "missing" : "invalid" };
    },
  };
}

/**
 * With OAuth on, every request needs an access token (or a custom `authenticate` that lets it
 * through); a static token cannot be used too.
 */
function oauthAuthenticator(
  options: MemoMcpHttpAuthOptions,
  token: string | undefined,
  oauth: OAuthResourceServer,
): HttpAuthenticator {
  if (token !== undefined) {
    throw new Error(
      "Cannot configure authentication: OAuth (MEMO_OAUTH_ISSUER) and a static bearer token " +
        "(MEMO_MCP_BEARER_TOKEN) cannot be used together; keep one",
    );
  }
  if (options.requireAuth === false) {
    throw new Error(
      "Cannot configure authentication: auth.requireAuth is false (MEMO_MCP_REQUIRE_AUTH, " +
        "--no-auth) but OAuth (MEMO_OAUTH_ISSUER) is configured",
    );
  }
  const authenticate = options.authenticate;
  return {
    required: true,
    oauth,
    async check(request: Request): Promise<AuthOutcome> {
      const outcome = await oauth.authenticate(
        request,
        bearerOf(request.headers.get("authorization")),
      );
      if (outcome.ok || outcome.refusal.status === 400 || authenticate === undefined) {
        return outcome;
      }
      const verdict = await customVerdict(authenticate, request);
      return verdict === true ? { ok: true, info: CUSTOM } : verdict === false ? outcome : verdict;
    },
  };
}

/**
 * What a custom `authenticate` says of a request: true or false, or, when it throws or rejects, a
 * 503 refusal. The request is not let through, and the error is not shown: its message may hold a
 * secret (a connection string, a token).
 */
async function customVerdict(
  authenticate: (request: Request) => boolean | Promise<boolean>,
  request: Request,
): Promise<boolean | AuthOutcome> {
  try {
    return await authenticate(request) === true;
  } catch {
    return {
      ok: false,
      reason: "invalid",
      refusal: {
        status: 503,
        code: JSON_RPC_CODES.internalError,
        message: "Cannot check the request's credentials: auth.authenticate failed",
        headers: [],
      },
    };
  }
}

const WWW_AUTH_MISSING: HeaderList = [["www-authenticate", 'Bearer realm="memo"']];
const WWW_AUTH_INVALID: HeaderList = [
  ["www-authenticate", 'Bearer realm="memo", error="invalid_token"'],
];

/**
 * The answer to a request that failed authentication: the refusal the OAuth check built (400, 401,
 * 403 or 503 with its challenge), else 401 with `WWW-Authenticate: Bearer realm="memo"` (and
 * `error="invalid_token"` when a token was sent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authRefusalResponse } from "./auth.ts";
 *
 * const response = authRefusalResponse({ ok: false, reason: "invalid" }, null);
 * assert.equal(response.status, 401);
 * assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="memo", error="invalid_token"');
 * ```
 */
export function authRefusalResponse(
  outcome: Extract<AuthOutcome, { ok: false }>,
  origin: string | null,
): Response {
  const r = outcome.refusal;
  if (r !== undefined) {
    return httpErrorResponse(r.status, r.code, r.message, origin, r.headers, r.data);
  }
  const missing = outcome.reason === "missing";
  return httpErrorResponse(
    401,
    JSON_RPC_CODES.invalidRequest,
    missing
      ? "Cannot accept the request: authentication required"
      : "Cannot accept the request: invalid credentials",
    origin,
    missing ? WWW_AUTH_MISSING : WWW_AUTH_INVALID,
  );
}

function bearerOf(header: string | null): string | undefined {
  if (header === null) return undefined;
  const h = header.trim();
  if (h.length < 7 || h.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const value = h.slice(7).trim();
  return value === "" ? undefined : value;
}

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Compares two byte arrays in time that depends only on their length. Both are SHA-256 digests
 * here, so the length never varies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { equalBytes } from "./auth.ts";
 *
 * assert.equal(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
 * assert.equal(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
 * ```
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
