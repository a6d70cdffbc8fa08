/**
 * `memo serve` as an OAuth 2.1 protected resource, against a real
 * authorization server (`npm:oidc-provider`, resource indicators on, JWT
 * access tokens) and the official SDK clients:
 *
 * - the SDK v2 client (`@modelcontextprotocol/client`) runs its whole flow in
 *   both protocol eras: 401, Protected Resource Metadata, the authorization
 *   server's metadata, dynamic registration, PKCE, the token, then
 *   `remember` and `recall`; the SDK v1 client does the same in the 2025 era;
 * - the refusal table: another audience, another issuer, expired, not yet
 *   valid, an unknown key, `alg: none`, HS256 signed with the public key,
 *   no write scope on a write, no memo scope at all, a token in the URL; each
 *   with its status and challenge, and `notes.md` unchanged;
 * - key rotation: new tokens work without restarting memo;
 * - no token ever appears in memo's log or in an answer.
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedV2,
  // deno-lint-ignore no-import-prefix -- test-only, pinned
} from "npm:@modelcontextprotocol/client@2.4.0";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client as ClientV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StreamableHTTPClientTransport as TransportV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { UnauthorizedError as UnauthorizedV1 } from "npm:@modelcontextprotocol/sdk@1.32.2/client/auth.js";
import { exportSPKI, generateKeyPair, importJWK, SignJWT } from "jose";
import { type AuthServer, startAuthServer } from "./_oidc_provider.ts";
import { TestOAuthProvider } from "./_oauth_client.ts";
import { freePort, type ServeProcess, startMemoServe } from "./_serve_process.ts";

const OTHER_RESOURCE = "http://127.0.0.1:1/other-mcp";

interface Setup {
  as: AuthServer;
  memo: ServeProcess;
  dir: string;
  resource: string;
  /** Every token a step used, to look for in the log at the end. */
  tokens: string[];
}

async function setUp(): Promise<Setup> {
  const port = freePort(); // chosen first: the resource URL names it
  const resource = `http://127.0.0.1:${port}/mcp`;
  const as = await startAuthServer({ resources: [{ url: resource }, { url: OTHER_RESOURCE }] });
  const dir = await Deno.makeTempDir();
  const memo = await startMemoServe(["--dir", dir, "--no-ui"], {
    MEMO_OAUTH_ISSUER: as.issuer,
    MEMO_OAUTH_RESOURCE: resource,
    MEMO_LOG_LEVEL: "info",
  }, port);
  return { as, memo, dir, resource, tokens: [] };
}

function rpc(id: number, name: string, args: Record<string, unknown>) {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
}

/** POSTs a tool call with `token`; checks that no answer repeats the token. */
async function call(
  s: Setup,
  token: string | undefined,
  body: string,
  init: { url?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; challenge: string | null; json: unknown }> {
  if (token !== undefined) s.tokens.push(token);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...init.headers,
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(init.url ?? s.resource, { method: "POST", headers, body });
  const text = await response.text();
  if (token !== undefined) {
    assert.ok(!text.includes(token), "the answer repeats the token");
    for (const [, value] of response.headers) assert.ok(!value.includes(token));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, challenge: response.headers.get("www-authenticate"), json };
}

async function notes(dir: string): Promise<string> {
  try {
    return await readFile(join(dir, ".memo", "memory", "notes.md"), "utf8");
  } catch {
    return "";
  }
}

/** Signs an access token with the provider's own key (or `key`), with the claims given. */
async function forge(
  s: Setup,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  key?: Parameters<SignJWT["sign"]>[0],
): Promise<string> {
  const jwk = s.as.signingKey;
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT({
    iss: s.as.issuer,
    aud: s.resource,
    sub: "ana",
    client_id: "forger",
    scope: "memo:read memo:write",
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: jwk.kid, ...header })
    .sign(key ?? await importJWK(jwk, "RS256"));
}

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

const METADATA_SUFFIX = "/.well-known/oauth-protected-resource/mcp";

Deno.test("memo serve as an OAuth protected resource: metadata, SDK flows, refusals, key rotation", async (t) => {
  const s = await setUp();
  try {
    await t.step("Protected Resource Metadata at both paths, any origin, no token", async () => {
      for (const path of ["/.well-known/oauth-protected-resource", METADATA_SUFFIX]) {
        const response = await fetch(s.memo.origin + path, {
          headers: { origin: "https://claude.ai" },
        });
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        assert.match(response.headers.get("cache-control") ?? "", /max-age=\d+/);
        assert.deepEqual(await response.json(), {
          resource: s.resource,
          authorization_servers: [s.as.issuer],
          scopes_supported: ["memo:read", "memo:write"],
          bearer_methods_supported: ["header"],
          resource_name: "memo",
        });
      }
    });

    await t.step("no token: 401 with resource_metadata and scope, no error code", async () => {
      const r = await call(s, undefined, rpc(1, "recall", { query: "x" }));
      assert.equal(r.status, 401);
      assert.equal(
        r.challenge,
        `Bearer resource_metadata="${s.memo.origin}${METADATA_SUFFIX}", scope="memo:read memo:write"`,
      );
    });

    await t.step(
      "SDK v2, stateless era (2026-07-28): the whole flow, then remember and recall",
      async () => {
        await sdkV2Flow(s, { pin: "2026-07-28" }, "2026-07-28", "Deploys run with make deploy");
      },
    );

    await t.step(
      "SDK v2, session era (2025-11-25): the whole flow, then remember and recall",
      async () => {
        await sdkV2Flow(s, "legacy", "2025-11-25", "Releases are cut on Tuesdays");
      },
    );

    await t.step("SDK v1 (2025 era): the whole flow, then remember and recall", async () => {
      const provider = new TestOAuthProvider(s.as, "ana");
      const url = new URL(s.resource);
      const first = new ClientV1({ name: "memo-test-v1", version: "1.0.0" });
      const transport = new TransportV1(url, { authProvider: provider });
      await assert.rejects(first.connect(transport), UnauthorizedV1);
      const callback = await provider.callback();
      assert.equal(callback.searchParams.get("iss"), s.as.issuer);
      await transport.finishAuth(callback.searchParams.get("code")!);
      await first.close();
      s.tokens.push(provider.accessToken!);
      const client = new ClientV1({ name: "memo-test-v1", version: "1.0.0" });
      await client.connect(new TransportV1(url, { authProvider: provider }));
      const written = await client.callTool({
        name: "remember",
        arguments: { text: "The staging database is reset nightly" },
      });
      assert.equal(written.isError, undefined);
      const found = await client.callTool({
        name: "recall",
        arguments: { query: "staging database" },
      });
      assert.match(JSON.stringify(found.structuredContent), /reset nightly/);
      await client.close();
    });

    await t.step("key rotation: new tokens work without restarting memo", async () => {
      const old = await s.as.clientCredentials(s.resource, "memo:read");
      assert.equal((await call(s, old, rpc(10, "memory_stats", {}))).status, 200);
      const oldKid = s.as.signingKey.kid;
      await s.as.rotateKeys();
      assert.notEqual(s.as.signingKey.kid, oldKid);
      const fresh = await s.as.clientCredentials(s.resource, "memo:read memo:write");
      assert.equal(JSON.parse(atob(fresh.split(".")[0])).kid, s.as.signingKey.kid);
      const r = await call(s, fresh, rpc(11, "remember", { text: "Signed with the new key" }));
      assert.equal(r.status, 200);
      assert.match(await notes(s.dir), /Signed with the new key/);
      assert.equal((await call(s, old, rpc(12, "memory_stats", {}))).status, 200);
    });
    await t.step(
      "the refusal table: each with its status and challenge, notes.md unchanged",
      async () => {
        const before = await notes(s.dir);
        const write = rpc(7, "remember", { text: "must never be written" });
        const now = Math.floor(Date.now() / 1000);
        const stranger = await generateKeyPair("RS256");
        const publicJwk = s.as.publicJwks().keys[0];
        const pem = await exportSPKI(await importJWK(publicJwk, "RS256") as CryptoKey);
        const invalid: [string, Promise<string> | string, RegExp][] = [
          [
            "another audience",
            s.as.clientCredentials(OTHER_RESOURCE, "memo:read memo:write"),
            /another audience/,
          ],
          ["another issuer", forge(s, { iss: "http://127.0.0.1:2" }), /another issuer/],
          ["expired", forge(s, { exp: now - 120, iat: now - 900 }), /expired/],
          ["not yet valid", forge(s, { nbf: now + 600 }), /not yet valid/],
          [
            "signed with an unknown key",
            forge(s, {}, { kid: "not-a-key-of-the-issuer" }, stranger.privateKey),
            /unknown key/,
          ],
          [
            "alg none",
            `${b64url({ alg: "none", typ: "at+jwt" })}.${
              b64url({ iss: s.as.issuer, aud: s.resource, exp: now + 300, scope: "memo:write" })
            }.`,
            /algorithm/,
          ],
          [
            "HS256 with the public key as the secret",
            new SignJWT({ iss: s.as.issuer, aud: s.resource, exp: now + 300, scope: "memo:write" })
              .setProtectedHeader({ alg: "HS256", typ: "at+jwt", kid: publicJwk.kid })
              .sign(new TextEncoder().encode(pem)),
            /algorithm/,
          ],
        ];
        for (const [name, pending, reason] of invalid) {
          const r = await call(s, await pending, write);
          assert.equal(r.status, 401, name);
          assert.match(
            r.challenge ?? "",
            /^Bearer resource_metadata="[^"]+", scope="memo:read memo:write", error="invalid_token"/,
            name,
          );
          assert.match(r.challenge ?? "", reason, name);
        }

        const reader = await s.as.clientCredentials(s.resource, "memo:read");
        const refused = await call(s, reader, write);
        assert.equal(refused.status, 403, "no memo:write on a write");
        assert.match(refused.challenge ?? "", /error="insufficient_scope"/);
        assert.match(refused.challenge ?? "", /scope="memo:write"/);
        const body = refused.json as { error: { code: number; data: { code: string } } };
        assert.equal(body.error.code, -32010);
        assert.equal(body.error.data.code, "MCP_AUTHORIZATION_ERROR");
        // The same refusal inside a batch, or on an SSE answer, stays HTTP 200.
        const batch = await call(s, reader, `[${write}]`);
        assert.equal(batch.status, 200);
        assert.equal((batch.json as { error: { code: number } }[])[0].error.code, -32010);
        const sse = await call(s, reader, write, { headers: { accept: "text/event-stream" } });
        assert.equal(sse.status, 200);
        assert.match(String(sse.json), /-32010/);
        // A read with the read-only token works.
        const read = await call(s, reader, rpc(8, "recall", { query: "deploy" }));
        assert.equal(read.status, 200);

        const none = await s.as.clientCredentials(s.resource, "");
        const nothing = await call(s, none, rpc(9, "recall", { query: "deploy" }));
        assert.equal(nothing.status, 403, "neither memo scope");
        assert.match(nothing.challenge ?? "", /error="insufficient_scope"/);
        assert.match(nothing.challenge ?? "", /scope="memo:read"/);

        const good = await s.as.clientCredentials(s.resource, "memo:read memo:write");
        const inUrl = await call(s, good, write, {
          url: `${s.resource}?access_token=${encodeURIComponent(good)}`,
        });
        assert.equal(inUrl.status, 400, "a token in the URL");
        assert.match(inUrl.challenge ?? "", /error="invalid_request"/);

        assert.equal(await notes(s.dir), before);
      },
    );
  } finally {
    const code = await s.memo.stop();
    await s.as.close();
    await Deno.remove(s.dir, { recursive: true });
    assert.equal(code, 0);
  }
  await t.step("no token appears in memo's log", () => {
    const log = s.memo.stderr();
    assert.match(log, /POST \/mcp 401/);
    assert.match(log, /POST \/mcp 403/);
    assert.match(log, /POST \/mcp 400/);
    for (const token of new Set(s.tokens)) {
      assert.ok(!log.includes(token), "the log holds a token");
      assert.ok(!log.includes(token.slice(-24)), "the log holds part of a token");
    }
  });
});

/** The SDK v2 client's flow in one era, then a write and a read. */
async function sdkV2Flow(
  s: Setup,
  mode: "legacy" | { pin: string }, // "legacy": the SDK's name for the session era
  version: string,
  text: string,
): Promise<void> {
  const provider = new TestOAuthProvider(s.as, "ana");
  const url = new URL(s.resource);
  const make = () =>
    new ClientV2({ name: "memo-test-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  const first = make();
  const transport = new TransportV2(url, { authProvider: provider });
  await assert.rejects(
    (async () => {
      await first.connect(transport);
      await first.listTools();
    })(),
    UnauthorizedV2,
  );
  const asked = provider.authorizationUrls[0];
  assert.equal(asked.searchParams.get("resource"), s.resource);
  assert.equal(asked.searchParams.get("code_challenge_method"), "S256");
  // The challenge's scopes (the SDK adds offline_access, which the provider offers).
  const scopes = asked.searchParams.get("scope")!.split(" ");
  assert.ok(scopes.includes("memo:read") && scopes.includes("memo:write"), scopes.join(" "));
  const callback = await provider.callback();
  assert.equal(callback.searchParams.get("iss"), s.as.issuer);
  await transport.finishAuth(callback.searchParams);
  await first.close();
  s.tokens.push(provider.accessToken!);
  const client = make();
  await client.connect(new TransportV2(url, { authProvider: provider }));
  assert.equal(client.getNegotiatedProtocolVersion(), version);
  const written = await client.callTool({ name: "remember", arguments: { text } });
  assert.notEqual(written.isError, true);
  const found = await client.callTool({ name: "recall", arguments: { query: text } });
  assert.match(JSON.stringify(found.structuredContent), new RegExp(text));
  await client.close();
}
