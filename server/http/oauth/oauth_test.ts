import assert from "node:assert/strict";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import {
  FAILURE_BACKOFF_MS,
  JWKS_MAX_AGE_MS,
  JwksKeys,
  UNKNOWN_KEY_COOLDOWN_MS,
  verifyJwt,
} from "./_jwt.ts";
import { readProjectOAuthConfig, resolveOAuthConfig } from "./config.ts";
import { OAuthResourceServer } from "./resource_server.ts";
import { createAuthenticator } from "../auth.ts";

const ISSUER = "https://id.example.com";
const RESOURCE = "https://memo.example.com/mcp";
const CHECK = { issuer: ISSUER, resource: RESOURCE, leewaySeconds: 30 };

async function keyPair(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  return { jwk, privateKey };
}

/** What SignJWT signs with (jose's own key type: node's and the DOM's CryptoKey differ). */
type SigningKey = Parameters<SignJWT["sign"]>[0];

function sign(
  privateKey: SigningKey,
  kid: string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    scope: "memo:read memo:write",
    iss: ISSUER,
    aud: RESOURCE,
    sub: "ana",
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt", ...header })
    .sign(privateKey);
}

/** The resource server of RESOURCE, its keys at a fixed `jwks_uri` fetched with `fetchFn`. */
function resourceServer(fetchFn: typeof fetch, now: () => number = Date.now) {
  const config = resolveOAuthConfig({
    issuer: ISSUER,
    resource: RESOURCE,
    jwksUri: "https://id.example.com/jwks",
    fetch: fetchFn,
  }, {})!;
  return new OAuthResourceServer(config, now);
}

/** A key set the test changes, served by a fake fetch that counts its calls. */
function jwksServer(initial: JWK[]) {
  const state = { keys: initial, fetches: 0, down: false };
  const fetchFn: typeof fetch = () => {
    state.fetches++;
    if (state.down) return Promise.reject(new TypeError("connection refused"));
    return Promise.resolve(Response.json({ keys: state.keys }));
  };
  return { state, fetchFn };
}

Deno.test("verifyJwt() follows a key rotation at once, and refuses made-up keys without refetching for a while", async () => {
  const one = await keyPair("one");
  const two = await keyPair("two");
  const { state, fetchFn } = jwksServer([one.jwk]);
  let now = 1_000_000;
  const keys = new JwksKeys(
    () => Promise.resolve("https://id.example.com/jwks"),
    fetchFn,
    () => now,
  );

  assert.equal((await verifyJwt(await sign(one.privateKey, "one"), keys, CHECK)).ok, true);
  assert.equal(state.fetches, 1);

  state.keys = [two.jwk, one.jwk]; // the server rotates
  assert.equal((await verifyJwt(await sign(two.privateKey, "two"), keys, CHECK)).ok, true);
  assert.equal(state.fetches, 2, "one fetch for the new key");

  const stranger = await keyPair("stranger");
  const forged = await sign(stranger.privateKey, "stranger");
  assert.deepEqual(await verifyJwt(forged, keys, CHECK), {
    ok: false,
    kind: "invalid",
    reason: "the token is signed with an unknown key",
  });
  assert.equal(state.fetches, 3, "a fetch to look for it");
  await verifyJwt(await sign(stranger.privateKey, "another"), keys, CHECK);
  assert.equal(state.fetches, 3, "no fetch during the cooldown");

  now += UNKNOWN_KEY_COOLDOWN_MS + 1;
  const three = await keyPair("three");
  state.keys = [three.jwk, two.jwk];
  assert.equal((await verifyJwt(await sign(three.privateKey, "three"), keys, CHECK)).ok, true);
  assert.equal(state.fetches, 4);
});

Deno.test("verifyJwt() answers unavailable when the keys cannot be fetched", async () => {
  const one = await keyPair("one");
  const { state, fetchFn } = jwksServer([one.jwk]);
  state.down = true;
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  const verdict = await verifyJwt(await sign(one.privateKey, "one"), keys, CHECK);
  assert.equal(verdict.ok, false);
  assert.equal(!verdict.ok && verdict.kind, "unavailable");
});

Deno.test("verifyJwt() refuses what is not an access token for memo", async (t) => {
  const one = await keyPair("one");
  const { fetchFn } = jwksServer([one.jwk]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, Promise<string>, RegExp][] = [
    [
      "another typ",
      sign(one.privateKey, "one", {}, { typ: "logout+jwt" }),
      /^a token of type "logout\+jwt" is not an access token$/,
    ],
    [
      "no exp",
      new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "one" }).setIssuer(ISSUER)
        .setAudience(RESOURCE).sign(one.privateKey),
      /^the token has no expiry$/,
    ],
    [
      "expired within leeway passes, past it fails",
      sign(one.privateKey, "one", { exp: now - 60 }),
      /^the token has expired$/,
    ],
    [
      "a tampered payload",
      sign(one.privateKey, "one").then((t) => {
        const [h, , sig] = t.split(".");
        const payload = btoa(
          JSON.stringify({ iss: ISSUER, aud: RESOURCE, exp: now + 60, scope: "memo:write" }),
        ).replace(/=+$/, "");
        return `${h}.${payload}.${sig}`;
      }),
      /^the signature does not verify$/,
    ],
  ];
  for (const [name, token, reason] of cases) {
    await t.step(name, async () => {
      const verdict = await verifyJwt(await token, keys, CHECK);
      assert.equal(verdict.ok, false);
      assert.match(!verdict.ok ? verdict.reason : "", reason);
    });
  }
  await t.step("within the leeway", async () => {
    const verdict = await verifyJwt(
      await sign(one.privateKey, "one", { exp: now - 10 }),
      keys,
      CHECK,
    );
    assert.equal(verdict.ok, true);
  });
  await t.step("an upper-case scheme and host, and a trailing slash, in aud", async () => {
    const token = await new SignJWT({ scope: "memo:read" })
      .setProtectedHeader({ alg: "ES256", kid: "one" })
      .setIssuer(ISSUER)
      .setAudience("HTTPS://MEMO.EXAMPLE.COM/mcp/")
      .setExpirationTime("5m")
      .sign(one.privateKey);
    assert.equal((await verifyJwt(token, keys, CHECK)).ok, true);
  });
});

Deno.test("resolveOAuthConfig() refuses a configuration that cannot work", async (t) => {
  const base = { MEMO_OAUTH_ISSUER: ISSUER, MEMO_OAUTH_RESOURCE: RESOURCE };
  const cases: [string, Record<string, string>, RegExp][] = [
    ["no resource", { MEMO_OAUTH_ISSUER: ISSUER }, /the resource is missing/],
    ["no issuer", { MEMO_OAUTH_SCOPES: "a,b" }, /the issuer is missing/],
    ["a relative issuer", { ...base, MEMO_OAUTH_ISSUER: "id.example.com" }, /absolute URL/],
    [
      "http off loopback",
      { ...base, MEMO_OAUTH_RESOURCE: "http://memo.example.com/mcp" },
      /https URL/,
    ],
    ["a fragment", { ...base, MEMO_OAUTH_RESOURCE: `${RESOURCE}#x` }, /no query and no fragment/],
    [
      "credentials in the issuer",
      { ...base, MEMO_OAUTH_ISSUER: "https://u:p@id.example.com" },
      /credentials/,
    ],
    ["half an introspection client", {
      ...base,
      MEMO_OAUTH_INTROSPECTION_URL: `${ISSUER}/introspect`,
    }, /client id/],
    ["a secret without its client id", {
      ...base,
      MEMO_OAUTH_INTROSPECTION_URL: `${ISSUER}/introspect`,
      MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET: "hunter2",
    }, /client id/],
    ["one scope", { ...base, MEMO_OAUTH_SCOPES: "memo" }, /MEMO_OAUTH_SCOPES/],
  ];
  for (const [name, env, expected] of cases) {
    await t.step(name, () => {
      assert.throws(() => resolveOAuthConfig(undefined, env), (e: Error) => {
        assert.match(e.message, expected);
        assert.ok(!e.message.includes("hunter2"));
        return true;
      });
    });
  }
  await t.step("the leeway at its limits", () => {
    assert.equal(
      resolveOAuthConfig({ issuer: ISSUER, resource: RESOURCE, leewaySeconds: 300 }, {})!
        .leewaySeconds,
      300,
    );
    assert.throws(
      () => resolveOAuthConfig({ issuer: ISSUER, resource: RESOURCE, leewaySeconds: 301 }, {}),
      /leewaySeconds/,
    );
    assert.equal(
      resolveOAuthConfig({ issuer: ISSUER, resource: RESOURCE, leewaySeconds: 0 }, {})!
        .leewaySeconds,
      0,
    );
    assert.throws(
      () => resolveOAuthConfig({ issuer: ISSUER, resource: RESOURCE, leewaySeconds: -1 }, {}),
      /leewaySeconds/,
    );
  });
  await t.step("the file fills what code and variables leave, never a secret", () => {
    const file = readProjectOAuthConfig({
      oauth: {
        resource: "https://file.example.com/mcp",
        introspection: { url: `${ISSUER}/i`, clientId: "memo" },
      },
    });
    const config = resolveOAuthConfig(undefined, {
      MEMO_OAUTH_ISSUER: ISSUER,
      MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET: "from-env",
    }, file)!;
    assert.equal(config.resource, "https://file.example.com/mcp");
    assert.deepEqual(config.introspection, {
      url: `${ISSUER}/i`,
      clientId: "memo",
      clientSecret: "from-env",
    });
  });
});

Deno.test("createAuthenticator() with OAuth: a custom authenticate may still let a request in", async () => {
  const config = resolveOAuthConfig({
    issuer: ISSUER,
    resource: RESOURCE,
    fetch: () => Promise.reject(new TypeError("offline")),
  }, {})!;
  const oauth = new OAuthResourceServer(config);
  const auth = createAuthenticator(
    { authenticate: (request) => request.headers.get("x-gateway-user") === "ana" },
    oauth,
  );
  assert.equal(auth.required, true);
  const gateway = await auth.check(
    new Request(RESOURCE, { headers: { "x-gateway-user": "ana" } }),
  );
  assert.deepEqual(gateway, { ok: true, info: { scheme: "custom" } });
  const nobody = await auth.check(new Request(RESOURCE));
  assert.equal(!nobody.ok && nobody.refusal?.status, 401);
  // A token in the URL is refused whatever authenticate says.
  const query = await auth.check(
    new Request(`${RESOURCE}?access_token=abc`, { headers: { "x-gateway-user": "ana" } }),
  );
  assert.equal(!query.ok && query.refusal?.status, 400);
  assert.throws(() => createAuthenticator({ requireAuth: false }, oauth), /requireAuth is false/);
});

Deno.test("JwksKeys: a key server that fails is asked again only after the backoff, cold or stale", async () => {
  const one = await keyPair("one");
  const { state, fetchFn } = jwksServer([one.jwk]);
  state.down = true;
  let now = 1_000_000;
  const keys = new JwksKeys(
    () => Promise.resolve("https://id.example.com/jwks"),
    fetchFn,
    () => now,
  );
  const token = await sign(one.privateKey, "one");
  for (let i = 0; i < 20; i++) {
    const verdict = await verifyJwt(token, keys, CHECK);
    assert.equal(!verdict.ok && verdict.kind, "unavailable");
  }
  assert.equal(state.fetches, 1, "one fetch, then the backoff answers");
  now += FAILURE_BACKOFF_MS + 1;
  state.down = false;
  assert.equal((await verifyJwt(token, keys, CHECK)).ok, true);
  assert.equal(state.fetches, 2);

  // Past its age, the set is fetched again; while that fails, the old set answers, and the
  // server is not asked again before the backoff ends.
  now += JWKS_MAX_AGE_MS + 1;
  state.down = true;
  for (let i = 0; i < 20; i++) assert.equal((await verifyJwt(token, keys, CHECK)).ok, true);
  assert.equal(state.fetches, 3);
  now += FAILURE_BACKOFF_MS + 1;
  await verifyJwt(token, keys, CHECK);
  assert.equal(state.fetches, 4);
});

Deno.test("OAuthResourceServer: a key removed at the server stops working within the keys' age", async () => {
  const one = await keyPair("one");
  const two = await keyPair("two");
  const { state, fetchFn } = jwksServer([one.jwk, two.jwk]);
  let now = Date.now();
  const server = resourceServer(fetchFn, () => now);
  const exp = Math.floor(now / 1000) + 3600;
  const early = await sign(one.privateKey, "one", { exp });
  assert.equal((await server.verify(early)).ok, true); // keys fetched now
  now += JWKS_MAX_AGE_MS - 1_000;
  const late = await sign(one.privateKey, "one", { exp, jti: "late" });
  assert.equal((await server.verify(late)).ok, true); // verified with keys 9:59 old
  state.keys = [two.jwk]; // the server removes key one
  now += 2_000; // 10:01 after the fetch: both tokens are checked again, with the new keys
  assert.equal((await server.verify(late)).ok, false);
  assert.equal((await server.verify(early)).ok, false);
  assert.equal((await server.verify(await sign(two.privateKey, "two", { exp }))).ok, true);
});

Deno.test("verifyJwt() refuses an aud that names the resource with a query, a fragment or a user", async () => {
  const one = await keyPair("one");
  const { fetchFn } = jwksServer([one.jwk]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  for (
    const aud of [
      `${RESOURCE}?tenant=other`,
      `${RESOURCE}#x`,
      "https://evil@memo.example.com/mcp",
      "https://a:b@memo.example.com/mcp",
    ]
  ) {
    assert.deepEqual(await verifyJwt(await sign(one.privateKey, "one", { aud }), keys, CHECK), {
      ok: false,
      kind: "invalid",
      reason: "the token is for another audience",
    }, aud);
  }
  assert.equal((await verifyJwt(await sign(one.privateKey, "one"), keys, CHECK)).ok, true);
});

Deno.test("verifyJwt() tries each key of the type when a token has no kid (a rotation)", async () => {
  const one = await keyPair("one");
  const two = await keyPair("two");
  const noKid = ({ kid: _, ...jwk }: JWK) => jwk;
  const { fetchFn } = jwksServer([noKid(one.jwk), noKid(two.jwk)]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  const unkeyed = (key: SigningKey, claims: Record<string, unknown> = {}) =>
    new SignJWT({ iss: ISSUER, aud: RESOURCE, exp: Math.floor(Date.now() / 1000) + 300, ...claims })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt" })
      .sign(key);
  assert.equal((await verifyJwt(await unkeyed(two.privateKey), keys, CHECK)).ok, true);
  assert.equal((await verifyJwt(await unkeyed(one.privateKey), keys, CHECK)).ok, true);
  const stranger = await keyPair("stranger");
  assert.deepEqual(await verifyJwt(await unkeyed(stranger.privateKey), keys, CHECK), {
    ok: false,
    kind: "invalid",
    reason: "the signature does not verify",
  });
  assert.deepEqual(
    await verifyJwt(
      await unkeyed(two.privateKey, { aud: "https://elsewhere.example/mcp" }),
      keys,
      CHECK,
    ),
    { ok: false, kind: "invalid", reason: "the token is for another audience" },
  );
  assert.deepEqual(
    await verifyJwt(await unkeyed(two.privateKey, { exp: 1 }), keys, CHECK),
    { ok: false, kind: "invalid", reason: "the token has expired" },
  );
});

Deno.test("OAuthResourceServer.authenticate(): a token with neither scope is 403 with the era's code, its message whole", async () => {
  const one = await keyPair("one");
  const { fetchFn } = jwksServer([one.jwk]);
  const server = resourceServer(fetchFn);
  const token = await sign(one.privateKey, "one", { scope: "openid" });
  const message =
    "Cannot accept the request: the access token has neither memo:read nor memo:write";
  for (
    const [version, code] of [[null, -32010], ["2025-11-25", -32010], [
      "2026-07-28",
      -31403,
    ]] as const
  ) {
    const headers: Record<string, string> = version ? { "mcp-protocol-version": version } : {};
    const outcome = await server.authenticate(new Request(RESOURCE, { headers }), token);
    assert.equal(outcome.ok, false);
    if (outcome.ok) continue;
    assert.equal(outcome.refusal.status, 403);
    assert.equal(outcome.refusal.code, code, String(version));
    assert.equal(outcome.refusal.message, message);
    assert.equal((outcome.refusal.data as { message: string }).message, message);
  }
});

Deno.test("verifyJwt(): a kid-less token signed by a key published since the last fetch makes memo fetch the keys again", async () => {
  const one = await keyPair("one");
  const two = await keyPair("two");
  const three = await keyPair("three");
  const noKid = ({ kid: _, ...jwk }: JWK) => jwk;
  const { state, fetchFn } = jwksServer([noKid(one.jwk), noKid(two.jwk)]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  const unkeyed = (key: SigningKey) =>
    new SignJWT({ iss: ISSUER, aud: RESOURCE, exp: Math.floor(Date.now() / 1000) + 300 })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt" })
      .sign(key);
  assert.equal((await verifyJwt(await unkeyed(one.privateKey), keys, CHECK)).ok, true);
  // The authorization server rotates: it publishes key three and signs with it (no kid).
  state.keys = [noKid(two.jwk), noKid(three.jwk)];
  // docs/oauth.md: "A token signed by a key memo does not know makes it fetch the keys again at once".
  const verdict = await verifyJwt(await unkeyed(three.privateKey), keys, CHECK);
  assert.equal(state.fetches, 2, "the keys are fetched again for a key memo does not know");
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  // A forged kid-less token is refused as a bad signature, and costs at most one more fetch.
  const forger = await keyPair("forger");
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(await verifyJwt(await unkeyed(forger.privateKey), keys, CHECK), {
      ok: false,
      kind: "invalid",
      reason: "the signature does not verify",
    });
  }
  assert.ok(state.fetches <= 3, `${state.fetches} fetches`);
});

Deno.test("verifyJwt(): a kid-less token is tried against the next key when one candidate key cannot be used", async () => {
  // An old 1024-bit RSA key (jose refuses to verify with it: a TypeError, not a signature failure)
  // listed before the current one, both without kid.
  const weak = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 1024,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const good = await generateKeyPair("RS256");
  const weakJwk = { ...(await exportJWK(weak.publicKey)), alg: "RS256", use: "sig" };
  const goodJwk = { ...(await exportJWK(good.publicKey)), alg: "RS256", use: "sig" };
  const { fetchFn } = jwksServer([weakJwk, goodJwk]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  const token = await new SignJWT({
    iss: ISSUER,
    aud: RESOURCE,
    exp: Math.floor(Date.now() / 1000) + 300,
  })
    .setProtectedHeader({ alg: "RS256", typ: "at+jwt" })
    .sign(good.privateKey);
  const verdict = await verifyJwt(token, keys, CHECK);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
});

Deno.test("verifyJwt(): an aud with an empty query, an empty fragment or an empty user is another audience", async () => {
  const one = await keyPair("one");
  const { fetchFn } = jwksServer([one.jwk]);
  const keys = new JwksKeys(() => Promise.resolve("https://id.example.com/jwks"), fetchFn);
  for (const aud of [`${RESOURCE}?`, `${RESOURCE}#`, "https://@memo.example.com/mcp"]) {
    assert.deepEqual(await verifyJwt(await sign(one.privateKey, "one", { aud }), keys, CHECK), {
      ok: false,
      kind: "invalid",
      reason: "the token is for another audience",
    }, aud);
  }
});
