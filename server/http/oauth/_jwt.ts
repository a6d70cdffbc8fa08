/**
 * JWT access tokens (RFC 9068) verified with `jose` against the authorization server's keys; loaded
 * only when OAuth is on (a dynamic `import()`). A token signed with an unknown key makes memo fetch
 * the key set again, at most once per {@linkcode UNKNOWN_KEY_COOLDOWN_MS}; the set is also
 * fetched again once it is {@linkcode JWKS_MAX_AGE_MS} old, before the next token is verified, so
 * removed keys stop working.
 *
 * @module
 */

import {
  createLocalJWKSet,
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { fetchJson, IssuerUnavailableError } from "./issuer.ts";
import { audienceMatches, type TokenCheck, type TokenVerdict } from "./verdict.ts";

/**
 * Age after which the cached key set is refreshed (in the background).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JWKS_MAX_AGE_MS } from "./_jwt.ts";
 *
 * assert.equal(JWKS_MAX_AGE_MS, 600_000);
 * ```
 */
export const JWKS_MAX_AGE_MS = 10 * 60_000;

/**
 * After a fetch for an unknown key found it missing, how long other unknown keys are refused
 * without fetching again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UNKNOWN_KEY_COOLDOWN_MS } from "./_jwt.ts";
 *
 * assert.equal(UNKNOWN_KEY_COOLDOWN_MS, 30_000);
 * ```
 */
export const UNKNOWN_KEY_COOLDOWN_MS = 30_000;

/**
 * After a failed fetch of the key set, how long memo waits before it tries again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FAILURE_BACKOFF_MS } from "./_jwt.ts";
 *
 * assert.equal(FAILURE_BACKOFF_MS, 5_000);
 * ```
 */
export const FAILURE_BACKOFF_MS = 5_000;

/**
 * The signature algorithms memo accepts: asymmetric only (never `none`, never HS*), and each key
 * used only with its own algorithm.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ACCEPTED_ALGORITHMS } from "./_jwt.ts";
 *
 * assert.ok(ACCEPTED_ALGORITHMS.includes("RS256"));
 * assert.ok(!ACCEPTED_ALGORITHMS.includes("HS256"));
 * ```
 */
export const ACCEPTED_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** `typ` values of an access token: RFC 9068's, and the plain `JWT` many servers send. */
const ACCEPTED_TYPES = new Set(["at+jwt", "application/at+jwt", "jwt"]);

/**
 * The authorization server's signing keys, fetched from `jwksUri()` and cached.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JwksKeys } from "./_jwt.ts";
 *
 * let fetched = 0;
 * const fake: typeof fetch = () => {
 *   fetched++;
 *   return Promise.resolve(Response.json({ keys: [] }));
 * };
 * const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fake);
 * await keys.current();
 * await keys.current();
 * assert.equal(fetched, 1); // cached
 * assert.equal(await keys.refetchForUnknownKey(), true); // a key it does not know: fetch again
 * keys.noteMissing();
 * assert.equal(await keys.refetchForUnknownKey(), false); // not again so soon
 * ```
 */
export class JwksKeys {
  #set: JWTVerifyGetKey | undefined;
  #fetchedAt = 0;
  #missUntil = 0;
  #failedUntil = 0;
  #failure: IssuerUnavailableError | undefined;
  #inflight: Promise<JWTVerifyGetKey> | undefined;
  /** How many times the set was fetched. */
  fetches = 0;

  constructor(
    readonly jwksUri: () => Promise<string>,
    readonly fetchFn: typeof fetch,
    readonly now: () => number = Date.now,
  ) {}

  /**
   * The cached set, fetched when there is none or it is {@linkcode JWKS_MAX_AGE_MS} old (throws
   * `IssuerUnavailableError` when there is none and it cannot be fetched). A set past its age is
   * used only while its refresh fails. After a failed fetch, nothing is fetched for
   * {@linkcode FAILURE_BACKOFF_MS}: the failure (or the old set) answers meanwhile.
   */
  async current(): Promise<JWTVerifyGetKey> {
    const set = this.#set;
    if (set !== undefined && this.now() - this.#fetchedAt <= JWKS_MAX_AGE_MS) return set;
    if (this.#inflight === undefined && this.now() < this.#failedUntil) {
      if (set !== undefined) return set;
      if (this.#failure) throw this.#failure;
    }
    if (set === undefined) return await this.#fetch();
    try {
      return await this.#fetch();
    } catch {
      return set; // the authorization server cannot be reached: keep the keys memo has
    }
  }

  /**
   * When the set in use was fetched (milliseconds, the injected clock): a token verified with it
   * stays verified no longer than {@linkcode JWKS_MAX_AGE_MS} after that, so a key removed at the
   * authorization server stops working within that time.
   */
  get fetchedAt(): number {
    return this.#fetchedAt;
  }

  /**
   * Fetches the set again for a token whose key it lacks; false when the cooldown forbids it.
   */
  async refetchForUnknownKey(): Promise<boolean> {
    const now = this.now();
    if (now < this.#missUntil) return false;
    if (now < this.#failedUntil && this.#failure) throw this.#failure;
    await this.#fetch();
    return true;
  }

  /** Records that a fresh set did not hold the key a token asked for. */
  noteMissing(): void {
    this.#missUntil = this.now() + UNKNOWN_KEY_COOLDOWN_MS;
  }

  #fetch(): Promise<JWTVerifyGetKey> {
    this.#inflight ??= (async () => {
      try {
        const url = await this.jwksUri();
        const body = await fetchJson(this.fetchFn, url, "the authorization server's keys");
        let set: JWTVerifyGetKey;
        try {
          set = createLocalJWKSet(body as unknown as JSONWebKeySet);
        } catch {
          throw new IssuerUnavailableError(`Cannot use the keys at ${url}: not a JSON Web Key Set`);
        }
        this.fetches++;
        this.#set = set;
        this.#fetchedAt = this.now();
        this.#failure = undefined;
        return set;
      } catch (e) {
        const failure = e instanceof IssuerUnavailableError
          ? e
          : new IssuerUnavailableError(`Cannot fetch the authorization server's keys: ${e}`);
        this.#failure = failure;
        this.#failedUntil = this.now() + FAILURE_BACKOFF_MS;
        throw failure;
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }
}

/**
 * Verifies a JWT access token: its algorithm (asymmetric, the key's own), its `typ` (`at+jwt`,
 * `application/at+jwt`, `JWT` or none), the signature against the issuer's keys, `iss`, `aud` (the
 * resource), `exp` (required) and `nbf`, within the leeway.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportJWK, generateKeyPair, SignJWT } from "jose";
 * import { JwksKeys, verifyJwt } from "./_jwt.ts";
 *
 * const { publicKey, privateKey } = await generateKeyPair("ES256");
 * const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
 * const keys = new JwksKeys(
 *   () => Promise.resolve("https://id.example.com/jwks"),
 *   () => Promise.resolve(Response.json({ keys: [jwk] })),
 * );
 * const check = { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", leewaySeconds: 30 };
 * const token = await new SignJWT({ scope: "memo:read" })
 *   .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
 *   .setIssuer(check.issuer)
 *   .setAudience(check.resource)
 *   .setSubject("ana")
 *   .setExpirationTime("5m")
 *   .sign(privateKey);
 * const verdict = await verifyJwt(token, keys, check);
 * assert.equal(verdict.ok && verdict.claims.sub, "ana");
 * const other = await verifyJwt(token, keys, { ...check, resource: "https://elsewhere.example/mcp" });
 * assert.deepEqual(other, { ok: false, kind: "invalid", reason: "the token is for another audience" });
 * ```
 */
export async function verifyJwt(
  token: string,
  keys: JwksKeys,
  check: TokenCheck,
): Promise<TokenVerdict> {
  let header: { alg?: unknown; typ?: unknown; kid?: unknown };
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return invalid("the token is malformed");
  }
  if (typeof header.alg !== "string" || !ACCEPTED_ALGORITHMS.includes(header.alg)) {
    return invalid(`the algorithm ${safeWord(header.alg)} is not accepted`);
  }
  if (header.typ !== undefined && !ACCEPTED_TYPES.has(String(header.typ).toLowerCase())) {
    return invalid(`a token of type ${safeWord(header.typ)} is not an access token`);
  }
  let set: JWTVerifyGetKey;
  try {
    set = await keys.current();
  } catch (e) {
    return unavailable(e);
  }
  // A token without a kid signed by a key memo has not fetched yet shows as a signature that no
  // key of its type verifies: it is an unknown key all the same (a rotation), and is fetched for.
  const unknownKey = (o: TokenVerdict | typeof NO_KEY) =>
    o === NO_KEY || (header.kid === undefined && !o.ok && o.reason === BAD_SIGNATURE);
  let outcome = await attempt(token, set, check);
  if (unknownKey(outcome)) {
    let refetched: boolean;
    try {
      refetched = await keys.refetchForUnknownKey();
    } catch (e) {
      return unavailable(e);
    }
    if (refetched) outcome = await attempt(token, await keys.current(), check);
    if (unknownKey(outcome)) {
      if (refetched) keys.noteMissing();
      if (outcome === NO_KEY) return invalid("the token is signed with an unknown key");
    }
  }
  return outcome as TokenVerdict;
}

const NO_KEY = Symbol("no key");
const BAD_SIGNATURE = "the signature does not verify";

async function attempt(
  token: string,
  set: JWTVerifyGetKey,
  check: TokenCheck,
): Promise<TokenVerdict | typeof NO_KEY> {
  try {
    return verdictOf(await jwtVerify(token, set, verifyOptions(check)), check);
  } catch (e) {
    if (e instanceof errors.JWKSNoMatchingKey) return NO_KEY;
    if (e instanceof errors.JWKSMultipleMatchingKeys) return await eachKey(token, e, check);
    return invalid(reasonOf(e));
  }
}

/**
 * A token without a `kid` that more than one key of the set could have signed (two keys of one
 * type, as during a rotation): each candidate key in turn, the first that verifies wins.
 */
async function eachKey(
  token: string,
  candidates: AsyncIterable<unknown>,
  check: TokenCheck,
): Promise<TokenVerdict> {
  let failure: unknown;
  for await (const key of candidates) {
    try {
      const verified = await jwtVerify(token, key as VerifyKey, verifyOptions(check));
      return verdictOf(verified, check);
    } catch (e) {
      // A claim is checked only once the signature verified: it fails with every key. Anything else
      // (a signature this key does not verify, a key jose will not use, such as RSA under 2048
      // bits) says nothing about the other keys.
      if (e instanceof errors.JWTClaimValidationFailed || e instanceof errors.JWTExpired) {
        return invalid(reasonOf(e));
      }
      if (!(failure instanceof errors.JWSSignatureVerificationFailed)) failure = e;
    }
  }
  return invalid(failure === undefined ? BAD_SIGNATURE : reasonOf(failure));
}

/** A key `jwtVerify` takes (jose's own type: node's and the DOM's `CryptoKey` differ). */
type VerifyKey = Parameters<typeof jwtVerify>[1] & object;

function verifyOptions(check: TokenCheck) {
  return {
    issuer: check.issuer,
    algorithms: ACCEPTED_ALGORITHMS as string[],
    clockTolerance: check.leewaySeconds,
    requiredClaims: ["exp"],
  };
}

function verdictOf(
  verified: { payload: Record<string, unknown> },
  check: TokenCheck,
): TokenVerdict {
  if (!audienceMatches(verified.payload.aud, check.resource)) {
    return invalid("the token is for another audience");
  }
  return { ok: true, claims: verified.payload };
}

function reasonOf(e: unknown): string {
  if (e instanceof errors.JWTExpired) return "the token has expired";
  if (e instanceof errors.JWTClaimValidationFailed) {
    if (e.claim === "nbf" || e.claim === "iat") return "the token is not yet valid";
    if (e.claim === "iss") return "the token is from another issuer";
    if (e.claim === "exp") return "the token has no expiry";
    return `the token's ${safeWord(e.claim)} claim is not valid`;
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return BAD_SIGNATURE;
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) {
    return "the token's algorithm does not fit its key";
  }
  return "the token is malformed";
}

function invalid(reason: string): TokenVerdict {
  return { ok: false, kind: "invalid", reason };
}

function unavailable(e: unknown): TokenVerdict {
  return {
    ok: false,
    kind: "unavailable",
    reason: e instanceof Error ? e.message : "Cannot reach the authorization server",
  };
}

/** A header value fit for a message: a short word, else a placeholder. */
function safeWord(value: unknown): string {
  const text = String(value);
  return /^[A-Za-z0-9+._:/-]{1,40}$/.test(text) ? JSON.stringify(text) : "(unreadable)";
}
