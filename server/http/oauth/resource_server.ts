/**
 * The endpoint as an OAuth 2.1 resource server: it finds the authorization server's metadata (once,
 * retried after a failure), checks each request's access token and turns the outcome into the
 * caller's `authInfo` or a refusal with its challenge:
 *
 * - a token in the query string: 400 `invalid_request`;
 * - no token: 401 with `resource_metadata` and `scope`;
 * - a token that does not check out: 401 `invalid_token`;
 * - a token with neither memo scope: 403 `insufficient_scope`;
 * - the authorization server cannot be reached: 503 with `Retry-After`.
 *
 * `jose` loads only with the first JWT (or {@linkcode OAuthResourceServer.preload}). A client's
 * token goes nowhere but to the configured introspection endpoint.
 *
 * @module
 */

import { JSON_RPC_CODES } from "../../json_rpc_codes.ts";
import type { MemoMcpAuthInfo } from "../../types.ts";
import { McpAuthorizationError, toSafeError } from "../../errors.ts";
import { versionFeatures } from "../../protocol/versions.ts";
import { statelessErrorCode } from "../../protocol/stateless.ts";
import type { HeaderList } from "../cors.ts";
import type { ResolvedOAuthConfig } from "./config.ts";
import { discoverIssuer, type IssuerMetadata, IssuerUnavailableError } from "./issuer.ts";
import { Introspector } from "./_introspection.ts";
import {
  type Challenge,
  challengeHeader,
  createMetadataHandler,
  metadataPaths,
} from "./metadata.ts";
import { authInfoOf, type TokenCheck, type TokenVerdict } from "./verdict.ts";
import { TokenCache } from "./_token_cache.ts";
import type { JwksKeys } from "./_jwt.ts";
import type { WebPageOAuthConfig } from "../../../web/mod.ts";

/**
 * A request refused by the authentication step: its status, message and headers (the challenge),
 * and the JSON-RPC error it carries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { AuthRefusal } from "./resource_server.ts";
 *
 * const refusal: AuthRefusal = {
 *   status: 401,
 *   code: -32600,
 *   message: "Cannot accept the request: authentication required",
 *   headers: [["www-authenticate", "Bearer"]],
 * };
 * assert.equal(refusal.status, 401);
 * ```
 */
export interface AuthRefusal {
  /** HTTP status: 400, 401, 403 or 503. */
  status: number;
  /** JSON-RPC error code of the body. */
  code: number;
  /** The error message ("Cannot …"), never with the token. */
  message: string;
  /** Extra headers: `WWW-Authenticate`, `Retry-After`. */
  headers: HeaderList;
  /** `error.data`, when there is one. */
  data?: unknown;
}

/**
 * What checking a request's token gives: the caller, or a refusal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { OAuthOutcome } from "./resource_server.ts";
 *
 * const outcome: OAuthOutcome = { ok: true, info: { scheme: "oauth", scopes: ["memo:read"] } };
 * assert.equal(outcome.ok, true);
 * ```
 */
export type OAuthOutcome =
  | { ok: true; info: MemoMcpAuthInfo }
  | { ok: false; reason: "missing" | "invalid"; refusal: AuthRefusal };

/** Seconds a client is told to wait while the authorization server cannot be reached. */
const RETRY_AFTER_SECONDS = 5;
/** Milliseconds between two attempts to fetch the issuer's metadata after a failure. */
const DISCOVERY_BACKOFF_MS = 2_000;
const INVALID_REQUEST = JSON_RPC_CODES.invalidRequest;
const AUTHORIZATION_ERROR = JSON_RPC_CODES.authorization;

type JwtModule = typeof import("./_jwt.ts");

/**
 * One endpoint's resource server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 * import { OAuthResourceServer } from "./resource_server.ts";
 *
 * const config = resolveOAuthConfig({
 *   issuer: "https://id.example.com",
 *   resource: "https://memo.example.com/mcp",
 *   fetch: () => Promise.reject(new TypeError("unreachable")),
 * }, {})!;
 * const server = new OAuthResourceServer(config);
 * const missing = await server.authenticate(new Request("https://memo.example.com/mcp"), undefined);
 * assert.equal(!missing.ok && missing.refusal.status, 401);
 * const query = await server.authenticate(
 *   new Request("https://memo.example.com/mcp?access_token=x"),
 *   undefined,
 * );
 * assert.equal(!query.ok && query.refusal.status, 400);
 * const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2ln"; // a JWT, whose keys cannot be fetched
 * const down = await server.authenticate(new Request("https://memo.example.com/mcp"), jwt);
 * assert.equal(!down.ok && down.refusal.status, 503);
 * ```
 */
export class OAuthResourceServer {
  /** The metadata paths (root and suffixed). */
  readonly metadataPaths: ReadonlySet<string>;
  /** Answers the metadata paths. */
  readonly handleMetadata: (request: Request) => Response;
  /** The `WWW-Authenticate` of a write refused for its scope (403). */
  readonly writeChallenge: HeaderList;
  #metadata: IssuerMetadata | undefined;
  #discovering: Promise<IssuerMetadata> | undefined;
  #failure: { error: IssuerUnavailableError; at: number } | undefined;
  #jwt: Promise<JwtModule> | undefined;
  #keys: JwksKeys | undefined;
  #introspector: Introspector | undefined;
  readonly #verified: TokenCache<Record<string, unknown>>;
  readonly #check: TokenCheck;

  constructor(readonly config: ResolvedOAuthConfig, readonly now: () => number = Date.now) {
    this.metadataPaths = metadataPaths(config);
    this.handleMetadata = createMetadataHandler(config);
    this.writeChallenge = [[
      "www-authenticate",
      challengeHeader(config, {
        error: "insufficient_scope",
        scope: config.scopes.write,
        description: "writing needs the scope " + config.scopes.write,
      }),
    ]];
    this.#verified = new TokenCache(now);
    this.#check = {
      issuer: config.issuer,
      resource: config.resource,
      leewaySeconds: config.leewaySeconds,
    };
    if (config.introspection) {
      this.#introspector = new Introspector(config.introspection, this.#check, config.fetch, now);
    }
  }

  /**
   * The authorization server's metadata, fetched once; after a failure, the same error for
   * {@linkcode DISCOVERY_BACKOFF_MS}, then a new attempt. Rejects with `IssuerUnavailableError`.
   */
  issuerMetadata(): Promise<IssuerMetadata> {
    if (this.#metadata) return Promise.resolve(this.#metadata);
    const failure = this.#failure;
    if (failure && this.now() - failure.at < DISCOVERY_BACKOFF_MS) {
      return Promise.reject(failure.error);
    }
    this.#discovering ??= discoverIssuer(this.config.issuer, this.config.fetch).then(
      (metadata) => {
        this.#metadata = metadata;
        this.#failure = undefined;
        this.#discovering = undefined;
        return metadata;
      },
      (e) => {
        const error = e instanceof IssuerUnavailableError
          ? e
          : new IssuerUnavailableError(String(e));
        this.#failure = { error, at: this.now() };
        this.#discovering = undefined;
        throw error;
      },
    );
    return this.#discovering;
  }

  /** Loads the JWT verifier (`jose`) now rather than at the first token. */
  async preload(): Promise<void> {
    await this.#jwtModule();
  }

  /**
   * Checks one token. A JWT that verified is remembered (by its SHA-256) until its `exp`, and never
   * past the age of the keys it was verified with (`JWKS_MAX_AGE_MS` after their fetch, so 10
   * minutes at most): a removed key stops working within that time.
   */
  async verify(token: string): Promise<TokenVerdict> {
    if (looksLikeJwt(token)) {
      const key = await this.#verified.key(token);
      // Valid once, valid until the entry's end (never past `exp`; time only moves past `nbf`).
      const cached = this.#verified.get(key);
      if (cached !== undefined) return { ok: true, claims: cached };
      const jwt = await this.#jwtModule();
      this.#keys ??= new jwt.JwksKeys(() => this.#jwksUri(), this.config.fetch, this.now);
      const verdict = await jwt.verifyJwt(token, this.#keys, this.#check);
      if (verdict.ok) {
        const exp = (verdict.claims.exp as number) * 1000 + this.config.leewaySeconds * 1000;
        // Never past the age of the keys it was verified with (fetched at or before now, so this
        // is also at most JWKS_MAX_AGE_MS from now): a removed key stops working then.
        const keysEnd = this.#keys.fetchedAt + jwt.JWKS_MAX_AGE_MS;
        this.#verified.set(key, verdict.claims, Math.min(exp, keysEnd));
      }
      return verdict;
    }
    if (this.#introspector) return await this.#introspector.introspect(token);
    return {
      ok: false,
      kind: "invalid",
      reason: "the token is not a JWT and memo has no introspection endpoint",
    };
  }

  /**
   * Authenticates a request whose `Authorization: Bearer` value is `token` (undefined when there is
   * none).
   */
  async authenticate(request: Request, token: string | undefined): Promise<OAuthOutcome> {
    if (hasQueryToken(request.url)) {
      return this.#refuse(
        "invalid",
        400,
        INVALID_REQUEST,
        {
          error: "invalid_request",
          description: "send the access token in the Authorization header, never in the URL",
        },
        "Cannot accept the request: an access token in the URL is refused; send it in the Authorization header",
      );
    }
    if (token === undefined) {
      return this.#refuse(
        "missing",
        401,
        INVALID_REQUEST,
        {},
        "Cannot accept the request: authentication required",
      );
    }
    const verdict = await this.verify(token);
    if (!verdict.ok) {
      if (verdict.kind === "unavailable") {
        return this.#refuse(
          "invalid",
          503,
          JSON_RPC_CODES.internalError,
          undefined,
          "Cannot verify the access token: " +
            "the authorization server cannot be reached",
          [["retry-after", String(RETRY_AFTER_SECONDS)]],
        );
      }
      return this.#refuse("invalid", 401, INVALID_REQUEST, {
        error: "invalid_token",
        description: verdict.reason,
      }, `Cannot accept the request: invalid access token (${verdict.reason})`);
    }
    const info = authInfoOf(verdict.claims, this.config.scopes);
    if (info === undefined) {
      const { read } = this.config.scopes;
      const message =
        `Cannot accept the request: the access token has neither ${read} nor ${this.config.scopes.write}`;
      // The era's code for memo's authorization error (-31403 under 2026-07-28), as a write refused
      // for its scope answers.
      const version = request.headers.get("mcp-protocol-version");
      const code = version !== null && versionFeatures(version).stateless
        ? statelessErrorCode(AUTHORIZATION_ERROR)
        : AUTHORIZATION_ERROR;
      return this.#refuse(
        "invalid",
        403,
        code,
        {
          error: "insufficient_scope",
          scope: read,
          description: `reading needs the scope ${read}`,
        },
        message,
        [],
        toSafeError(
          new McpAuthorizationError(message, {
            details: { reason: "insufficient_scope", scope: read },
          }),
        ),
      );
    }
    return { ok: true, info };
  }

  /**
   * What the web page needs to sign in: the issuer's endpoints and the page's client id. Rejects
   * when the issuer cannot be reached.
   */
  async pageConfig(): Promise<WebPageOAuthConfig> {
    const metadata = await this.issuerMetadata();
    const out: WebPageOAuthConfig = {
      issuer: this.config.issuer,
      resource: this.config.resource,
      scopes: [this.config.scopes.read, this.config.scopes.write],
      issParameter: metadata.issParameterSupported,
    };
    if (this.config.pageClientId !== undefined) out.clientId = this.config.pageClientId;
    if (metadata.authorizationEndpoint) out.authorizationEndpoint = metadata.authorizationEndpoint;
    if (metadata.tokenEndpoint) out.tokenEndpoint = metadata.tokenEndpoint;
    return out;
  }

  #refuse(
    reason: "missing" | "invalid",
    status: number,
    code: number,
    challenge: Challenge | undefined,
    message: string,
    extra: HeaderList = [],
    data?: unknown,
  ): OAuthOutcome {
    const headers: HeaderList = challenge === undefined
      ? extra
      : [["www-authenticate", challengeHeader(this.config, challenge)], ...extra];
    const refusal: AuthRefusal = { status, code, message, headers };
    if (data !== undefined) refusal.data = data;
    return { ok: false, reason, refusal };
  }

  #jwtModule(): Promise<JwtModule> {
    return this.#jwt ??= import("./_jwt.ts");
  }

  async #jwksUri(): Promise<string> {
    if (this.config.jwksUri !== undefined) return this.config.jwksUri;
    const metadata = await this.issuerMetadata();
    if (metadata.jwksUri === undefined) {
      throw new IssuerUnavailableError(
        `Cannot verify JWTs: the metadata of ${this.config.issuer} has no jwks_uri ` +
          "(set MEMO_OAUTH_JWKS_URI)",
      );
    }
    return metadata.jwksUri;
  }
}

/**
 * Whether a token has the shape of a JWS compact serialization whose header is a JSON object with
 * an `alg` (else it is opaque).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { looksLikeJwt } from "./resource_server.ts";
 *
 * assert.equal(looksLikeJwt("eyJhbGciOiJFUzI1NiJ9.e30.c2ln"), true);
 * assert.equal(looksLikeJwt("opaque-token-value"), false);
 * ```
 */
export function looksLikeJwt(token: string): boolean {
  const dot = token.indexOf(".");
  if (dot <= 0 || token.indexOf(".", dot + 1) === -1) return false;
  try {
    const json = atob(token.slice(0, dot).replace(/-/g, "+").replace(/_/g, "/"));
    const header = JSON.parse(json);
    return header !== null && typeof header === "object" && typeof header.alg === "string";
  } catch {
    return false;
  }
}

/** Whether the URL carries `access_token` in its query (RFC 6750 §2.3: refused). */
function hasQueryToken(url: string): boolean {
  const q = url.indexOf("?");
  if (q === -1) return false;
  return new URLSearchParams(url.slice(q + 1).split("#")[0]).has("access_token");
}
