/**
 * Finds the authorization server's metadata from its issuer identifier, the way MCP clients do: RFC
 * 8414 (`/.well-known/oauth-authorization-server`, inserted before the issuer's path), then OpenID
 * Connect Discovery (`/.well-known/openid-configuration`, inserted, then appended). A document
 * counts only when its `issuer` is the configured one, character for character.
 *
 * @module
 */

/**
 * What memo uses of the authorization server's metadata.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { discoverIssuer, type IssuerMetadata } from "./issuer.ts";
 *
 * const fake: typeof fetch = (input) =>
 *   Promise.resolve(
 *     String(input) === "https://id.example.com/.well-known/openid-configuration"
 *       ? Response.json({ issuer: "https://id.example.com", jwks_uri: "https://id.example.com/jwks" })
 *       : new Response("not found", { status: 404 }),
 *   );
 * const metadata: IssuerMetadata = await discoverIssuer("https://id.example.com", fake);
 * assert.equal(metadata.jwksUri, "https://id.example.com/jwks");
 * ```
 */
export interface IssuerMetadata {
  /** `issuer`. */
  issuer: string;
  /** `jwks_uri`, when the server publishes keys. */
  jwksUri?: string;
  /** `authorization_endpoint`. */
  authorizationEndpoint?: string;
  /** `token_endpoint`. */
  tokenEndpoint?: string;
  /** `authorization_response_iss_parameter_supported` (RFC 9207). */
  issParameterSupported: boolean;
}

/**
 * Milliseconds memo waits for the authorization server (metadata, keys, introspection) before it
 * gives up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AUTHORIZATION_SERVER_TIMEOUT_MS } from "./issuer.ts";
 *
 * assert.equal(AUTHORIZATION_SERVER_TIMEOUT_MS, 5000);
 * ```
 */
export const AUTHORIZATION_SERVER_TIMEOUT_MS = 5000;

/**
 * The authorization server could not be reached or gave nothing usable; the message says why, never
 * with a token.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { discoverIssuer, IssuerUnavailableError } from "./issuer.ts";
 *
 * const down: typeof fetch = () => Promise.reject(new TypeError("connection refused"));
 * await assert.rejects(discoverIssuer("https://id.example.com", down), IssuerUnavailableError);
 * ```
 */
export class IssuerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IssuerUnavailableError";
  }
}

/**
 * The metadata URLs to try for an issuer, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { metadataCandidates } from "./issuer.ts";
 *
 * assert.deepEqual(metadataCandidates("https://id.example.com/realms/team"), [
 *   "https://id.example.com/.well-known/oauth-authorization-server/realms/team",
 *   "https://id.example.com/.well-known/openid-configuration/realms/team",
 *   "https://id.example.com/realms/team/.well-known/openid-configuration",
 * ]);
 * assert.deepEqual(metadataCandidates("https://id.example.com"), [
 *   "https://id.example.com/.well-known/oauth-authorization-server",
 *   "https://id.example.com/.well-known/openid-configuration",
 * ]);
 * ```
 */
export function metadataCandidates(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, "");
  const out = [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
  ];
  if (path !== "") out.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return out;
}

/**
 * Fetches a JSON document from the authorization server with the timeout; throws
 * {@linkcode IssuerUnavailableError} on a network failure, a timeout, a non-2xx status or a body
 * that is not a JSON object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fetchJson } from "./issuer.ts";
 *
 * const fake: typeof fetch = () => Promise.resolve(Response.json({ keys: [] }));
 * assert.deepEqual(await fetchJson(fake, "https://id.example.com/jwks", "the keys"), { keys: [] });
 * ```
 */
export async function fetchJson(
  fetchFn: typeof fetch,
  url: string,
  what: string,
  init: RequestInit = {},
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetchFn(url, {
      ...init,
      headers: { accept: "application/json", ...init.headers as Record<string, string> },
      redirect: "error",
      signal: AbortSignal.timeout(AUTHORIZATION_SERVER_TIMEOUT_MS),
    });
  } catch (e) {
    const reason = (e as Error)?.name === "TimeoutError"
      ? `no answer within ${AUTHORIZATION_SERVER_TIMEOUT_MS} ms`
      : (e as Error)?.message ?? String(e);
    throw new IssuerUnavailableError(`Cannot fetch ${what} from ${url}: ${reason}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new IssuerUnavailableError(`Cannot fetch ${what} from ${url}: HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new IssuerUnavailableError(`Cannot fetch ${what} from ${url}: the answer is not JSON`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new IssuerUnavailableError(
      `Cannot fetch ${what} from ${url}: the answer is not a JSON object`,
    );
  }
  return body as Record<string, unknown>;
}

/**
 * Finds the issuer's metadata. Throws {@linkcode IssuerUnavailableError} with the reason of the
 * last candidate when none gives a document whose `issuer` is `issuer`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { discoverIssuer } from "./issuer.ts";
 *
 * const impostor: typeof fetch = () => Promise.resolve(Response.json({ issuer: "https://evil.example" }));
 * await assert.rejects(
 *   discoverIssuer("https://id.example.com", impostor),
 *   /its issuer is "https:\/\/evil.example"/,
 * );
 * ```
 */
export async function discoverIssuer(
  issuer: string,
  fetchFn: typeof fetch,
): Promise<IssuerMetadata> {
  let last = "";
  for (const url of metadataCandidates(issuer)) {
    let doc: Record<string, unknown>;
    try {
      doc = await fetchJson(fetchFn, url, "the authorization server's metadata");
    } catch (e) {
      last = (e as Error).message;
      continue;
    }
    if (doc.issuer !== issuer) {
      last = `Cannot use the metadata at ${url}: its issuer is ${
        JSON.stringify(String(doc.issuer).slice(0, 200))
      }, not ${JSON.stringify(issuer)}`;
      continue;
    }
    const out: IssuerMetadata = {
      issuer,
      issParameterSupported: doc.authorization_response_iss_parameter_supported === true,
    };
    if (typeof doc.jwks_uri === "string") out.jwksUri = doc.jwks_uri;
    if (typeof doc.authorization_endpoint === "string") {
      out.authorizationEndpoint = doc.authorization_endpoint;
    }
    if (typeof doc.token_endpoint === "string") out.tokenEndpoint = doc.token_endpoint;
    return out;
  }
  throw new IssuerUnavailableError(
    `Cannot reach the authorization server ${issuer}: ${last || "no metadata"}`,
  );
}
