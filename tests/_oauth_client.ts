/**
 * Test helper: the `OAuthClientProvider` an MCP SDK client (v1 or v2) runs
 * its OAuth flow with. It registers by dynamic registration as a public
 * client (its redirect URI is never fetched: the test follows the
 * authorization URL itself, signing in on the provider's form, and hands the
 * callback back with `finishAuth`), keeps what the flow saves in memory, and
 * records the authorization URL so a test can look at what was asked.
 *
 * @module
 */

import type { AuthServer } from "./_oidc_provider.ts";

/** Where the provider sends the browser back (nothing listens there). */
export const REDIRECT_URL = "http://127.0.0.1:1/callback";

/**
 * A provider for one account. `signIn()` waits for the authorization URL the
 * SDK asked to open, then signs in on the provider and resolves with the
 * callback URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TestOAuthProvider } from "./_oauth_client.ts";
 *
 * const provider = new TestOAuthProvider(undefined as never, "ana");
 * assert.equal(provider.clientMetadata.token_endpoint_auth_method, "none");
 * ```
 */
// deno-lint-ignore no-explicit-any -- the SDK v1 and v2 types differ; both take what the SDK saved
type Saved = any;

export class TestOAuthProvider {
  #client: Saved;
  #tokens: Saved;
  #verifier = "";
  #discovery: Saved;
  #callback: Promise<URL> | undefined;
  /** The authorization URLs the SDK asked to open. */
  readonly authorizationUrls: URL[] = [];

  constructor(readonly as: AuthServer, readonly account: string) {}

  get redirectUrl(): string {
    return REDIRECT_URL;
  }
  get clientMetadata() {
    return {
      client_name: "memo test client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation(): Saved {
    return this.#client;
  }
  saveClientInformation(info: Saved) {
    this.#client = info;
  }
  tokens(): Saved {
    return this.#tokens;
  }
  saveTokens(tokens: Saved) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.#callback = this.as.signIn(url, this.account);
    this.#callback.catch(() => {}); // awaited in signIn()
  }
  saveDiscoveryState(state: Saved) {
    this.#discovery = state;
  }
  discoveryState(): Saved {
    return this.#discovery;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  /** The access token the flow obtained. */
  get accessToken(): string | undefined {
    return this.#tokens?.access_token as string | undefined;
  }
  /** The callback of the last authorization (with `code`, `state`, `iss`). */
  async callback(): Promise<URL> {
    if (this.#callback === undefined) throw new Error("the SDK never asked to authorize");
    return await this.#callback;
  }
}
