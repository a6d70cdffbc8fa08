/**
 * The page's OAuth sign-in, when the endpoint is an OAuth protected resource: the authorization
 * code flow with PKCE (S256), as a public client, against the issuer the server named. The redirect
 * URI is the page's own URL. What the flow keeps between the redirect and the callback (state,
 * verifier) and the token it gets live in `sessionStorage` only; the token goes only to the MCP
 * endpoint, in the `Authorization` header.
 *
 * @module
 */

import type { WebPageOAuthConfig } from "../page.ts";

/** A signed-in session: the access token and the scopes it grants. */
export interface OAuthSession {
  /** The access token. */
  token: string;
  /** The granted scopes. */
  scopes: string[];
}

const PENDING_KEY = "memo.oauth.pending";

/** Whether the page can run the flow itself (else it asks for a token to paste). */
export function canSignIn(config: WebPageOAuthConfig | undefined): config is WebPageOAuthConfig & {
  clientId: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
} {
  return config !== undefined && !!config.clientId && !!config.authorizationEndpoint &&
    !!config.tokenEndpoint;
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** The page's own URL without query or fragment: the redirect URI. */
function redirectUri(): string {
  return location.origin + location.pathname;
}

/** Sends the browser to the issuer to sign in. */
export async function startSignIn(config: WebPageOAuthConfig): Promise<void> {
  if (!canSignIn(config)) throw new Error("This page has no OAuth client id.");
  const verifier = random();
  const state = random();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier }));
  const url = new URL(config.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", redirectUri());
  url.searchParams.set("scope", config.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", base64url(new Uint8Array(digest)));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("resource", config.resource);
  location.assign(url.toString());
}

/**
 * Finishes a sign-in when the page is the callback (`code` or `error` with `state` in its URL):
 * checks `state` and `iss`, trades the code for a token and clears the URL. Resolves with the
 * session, or undefined when the page is not a callback; rejects with a message for people.
 */
export async function completeSignIn(
  config: WebPageOAuthConfig | undefined,
): Promise<OAuthSession | undefined> {
  const callback = new URLSearchParams(location.search);
  if (!callback.has("state") || !(callback.has("code") || callback.has("error"))) return undefined;
  const pendingText = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  // The code leaves the address bar (and the history) at once.
  const rest = new URLSearchParams(callback);
  for (const key of ["code", "state", "iss", "error", "error_description", "error_uri"]) {
    rest.delete(key);
  }
  const query = rest.toString();
  history.replaceState(null, "", location.pathname + (query ? `?${query}` : "") + location.hash);
  if (!canSignIn(config) || pendingText === null) return undefined;
  const pending = JSON.parse(pendingText) as { state: string; verifier: string };
  return await exchange(config, pending, callback);
}

async function exchange(
  config: WebPageOAuthConfig & { clientId: string; tokenEndpoint: string },
  pending: { state: string; verifier: string },
  callback: URLSearchParams,
): Promise<OAuthSession> {
  if (callback.get("state") !== pending.state) {
    throw new Error("The sign-in answer does not belong to this page: try again.");
  }
  const iss = callback.get("iss");
  if (iss === null ? config.issParameter : iss !== config.issuer) {
    throw new Error("The sign-in answer does not come from this memo's authorization server.");
  }
  const error = callback.get("error");
  if (error !== null) {
    throw new Error(
      error === "access_denied" ? "Sign-in was cancelled." : `Sign-in failed (${error}).`,
    );
  }
  const response = await fetch(config.tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: callback.get("code") ?? "",
      redirect_uri: redirectUri(),
      client_id: config.clientId,
      code_verifier: pending.verifier,
      resource: config.resource,
    }).toString(),
    credentials: "omit",
    cache: "no-store",
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.access_token !== "string") {
    throw new Error(`Sign-in failed: the authorization server answered ${response.status}.`);
  }
  const scopes = typeof body.scope === "string"
    ? body.scope.split(" ").filter((s: string) => s !== "")
    : [...config.scopes];
  return { token: body.access_token, scopes };
}
