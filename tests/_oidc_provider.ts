/**
 * Test helper: a real authorization server, `npm:oidc-provider` (an
 * OpenID-certified provider nobody here wrote), on a loopback port the test
 * chose first (the issuer is fixed when the provider is built). Resource
 * indicators (RFC 8707) are on, and it issues JWT access tokens (RFC 9068)
 * for the resources the test names; dynamic client registration, client
 * credentials and introspection are on. Its interactions are answered here:
 * the login page is a plain form (a browser fills it in; {@linkcode
 * AuthServer.signIn} posts it), and consent is granted at once with the
 * scopes the account may have (`ana` reads and writes, `reader` only reads).
 *
 * @module
 */

// deno-lint-ignore no-import-prefix -- test-only, pinned
import Provider from "npm:oidc-provider@9.13.3";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import type { Configuration, KoaContextWithOIDC } from "npm:oidc-provider@9.13.3";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { freePort } from "./_serve_process.ts";

/** The scopes each test account may be granted. */
export const ACCOUNTS: Readonly<Record<string, readonly string[]>> = {
  ana: ["memo:read", "memo:write"],
  reader: ["memo:read"],
};

/** One resource the provider issues tokens for. */
export interface ResourceSpec {
  /** The resource indicator (memo's canonical URL). */
  url: string;
  /**
   * Token format.
   * @default "jwt"
   */
  format?: "jwt" | "opaque";
}

/** A static client of the provider. */
export interface StaticClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
}

/** The running provider. */
export interface AuthServer {
  /** `http://127.0.0.1:<port>`: the issuer. */
  readonly issuer: string;
  /** The signing key now in use (private JWK with `kid`), for tests that forge tokens with it. */
  readonly signingKey: JWK;
  /** The public JWK set it publishes. */
  publicJwks(): { keys: JWK[] };
  /**
   * Rotates the signing key: a new key signs from now on (the old one is
   * still published), without restarting the listener.
   */
  rotateKeys(): Promise<void>;
  /**
   * Follows an authorization URL as a browser would, signing in as
   * `account` on the login form; resolves with the redirect back to the
   * client (carrying `code`, `state` and `iss`).
   */
  signIn(authorizationUrl: URL | string, account: string): Promise<URL>;
  /** A token by the client credentials grant, for `resource`, with `scope`. */
  clientCredentials(resource: string, scope: string): Promise<string>;
  /** Stops the listener. */
  close(): Promise<void>;
}

/** Client credentials client of the tests (it may also introspect). */
export const SERVICE_CLIENT = { id: "memo-service", secret: "service-secret-0123456789" };

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: "RS256", use: "sig" };
}

/**
 * Starts the provider on a free loopback port.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startAuthServer } from "./_oidc_provider.ts";
 *
 * const as = await startAuthServer({ resources: [{ url: "http://127.0.0.1:1/mcp" }] });
 * const discovery = await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json();
 * assert.equal(discovery.issuer, as.issuer);
 * await as.close();
 * ```
 */
export async function startAuthServer(options: {
  resources: ResourceSpec[];
  clients?: StaticClient[];
  port?: number;
}): Promise<AuthServer> {
  const port = options.port ?? freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const keys: JWK[] = [await newSigningKey()];
  const resources = new Map(options.resources.map((r) => [r.url, r.format ?? "jwt"]));
  const clients = [
    {
      client_id: SERVICE_CLIENT.id,
      client_secret: SERVICE_CLIENT.secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
    },
    ...(options.clients ?? []),
  ];

  const build = (): Provider => {
    const configuration: Configuration = {
      clients,
      jwks: { keys: keys.map((k) => ({ ...k })) } as Configuration["jwks"],
      cookies: { keys: ["cookie-key-for-the-tests-only"] },
      scopes: ["openid", "offline_access", "memo:read", "memo:write"],
      pkce: { required: () => true },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        ClientCredentials: 600,
        Grant: 600,
        IdToken: 600,
        Interaction: 600,
        RefreshToken: 600,
        Session: 600,
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) =>
            oneOf ?? [...resources.keys()][0],
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, indicator: string) => {
            const format = resources.get(indicator);
            if (format === undefined) throw new Provider.errors.InvalidTarget();
            return {
              scope: "memo:read memo:write",
              audience: indicator,
              accessTokenTTL: 600,
              accessTokenFormat: format,
              ...(format === "jwt" ? { jwt: { sign: { alg: "RS256" } } } : {}),
            };
          },
        },
      },
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
      },
      findAccount: (_ctx: unknown, id: string) =>
        ACCOUNTS[id] === undefined ? undefined : { accountId: id, claims: () => ({ sub: id }) },
    };
    const provider = new Provider(issuer, configuration);
    provider.use(interactions(provider));
    return provider;
  };

  let provider = build();
  let callback = provider.callback();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => callback(req, res));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));

  const signIn = async (authorizationUrl: URL | string, account: string): Promise<URL> => {
    const jar = new Map<string, string>();
    let url = new URL(String(authorizationUrl));
    let init: RequestInit = {};
    for (let hop = 0; hop < 12; hop++) {
      const headers = new Headers(init.headers);
      if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      const response = await fetch(url, { ...init, headers, redirect: "manual" });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair.indexOf("=");
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = response.headers.get("location");
      if (location !== null) {
        await response.body?.cancel();
        const next = new URL(location, url);
        if (next.origin !== issuer) return next; // back to the client
        url = next;
        init = {};
        continue;
      }
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (response.status !== 200 || action === undefined) {
        throw new Error(`Cannot sign in: the provider answered ${response.status}: ${html}`);
      }
      url = new URL(action, url);
      init = {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ login: account, password: "any" }).toString(),
      };
    }
    throw new Error("Cannot sign in: too many redirects");
  };

  return {
    issuer,
    get signingKey() {
      return keys[0];
    },
    publicJwks() {
      return {
        keys: keys.map(({ d: _d, ...pub }) => pub),
      };
    },
    async rotateKeys() {
      keys.unshift(await newSigningKey());
      provider = build();
      callback = provider.callback();
    },
    signIn,
    async clientCredentials(resource: string, scope: string): Promise<string> {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${SERVICE_CLIENT.id}:${SERVICE_CLIENT.secret}`)}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }).toString(),
      });
      const body = await response.json();
      if (!response.ok) throw new Error(`Cannot get a token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads an urlencoded request body. */
async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of req) text += decoder.decode(chunk as Uint8Array, { stream: true });
  return new URLSearchParams(text + decoder.decode());
}

/** The interactions, answered by the test: a login form, then consent at once. */
function interactions(provider: Provider) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    const m = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (m === null) return await next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === "login") {
      if (ctx.method === "POST") {
        const login = (await formOf(ctx.req)).get("login") ?? "";
        if (ACCOUNTS[login] === undefined) {
          ctx.status = 200;
          ctx.type = "html";
          ctx.body = loginPage(m[1], "Unknown account");
          return;
        }
        const to = await provider.interactionResult(ctx.req, ctx.res, {
          login: { accountId: login },
        }, { mergeWithLastSubmission: false });
        ctx.status = 303;
        ctx.redirect(to);
        return;
      }
      ctx.type = "html";
      ctx.body = loginPage(m[1]);
      return;
    }
    // Consent: grant what was asked, within what the account may have.
    const { session, params, grantId } = details;
    const accountId = session!.accountId;
    const grant = grantId
      ? (await provider.Grant.find(grantId))!
      : new provider.Grant({ accountId, clientId: params.client_id as string });
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      const allowed = scopes.filter((s) => ACCOUNTS[accountId].includes(s));
      const refused = scopes.filter((s) => !allowed.includes(s));
      if (allowed.length) grant.addResourceScope(indicator, allowed.join(" "));
      if (refused.length) grant.rejectResourceScope(indicator, refused.join(" "));
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, {
      consent: { grantId: await grant.save() },
    }, { mergeWithLastSubmission: true });
    ctx.status = 303;
    ctx.redirect(to);
  };
}

function loginPage(uid: string, error?: string): string {
  return `<!doctype html><html><head><title>Sign in</title></head><body>
<h1>Sign in to the test provider</h1>${error ? `<p role="alert">${error}</p>` : ""}
<form method="post" action="/interaction/${uid}">
<label>Login <input name="login" autocomplete="username"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button>
</form></body></html>`;
}
