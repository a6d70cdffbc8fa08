/**
 * OAuth on the hosted endpoint beyond `memo serve`'s happy path:
 *
 * - opaque tokens checked by introspection (RFC 7662) against the real
 *   provider, with the short cache;
 * - every handler factory serves the Protected Resource Metadata, and
 *   answers 503 (with `Retry-After`) while the issuer cannot be reached;
 * - `memo serve` and `deno serve http.ts` refuse at start, with one line, a
 *   configuration that cannot work: an unreachable issuer, a resource that
 *   does not match the MCP path, OAuth with the static token;
 * - without OAuth, nothing of `jose` is in the start-up module graph of
 *   `cli.ts` or `http.ts` (only a dynamic import reaches it).
 */

import assert from "node:assert/strict";
import { createMemoMcpRuntimeFromConfig } from "../mod.ts";
import {
  createFrameworkMemoMcpHandler,
  createMemoMcpFetchHandler,
  handleMemoMcpRequest,
  type MemoMcpAuthInfo,
  type MemoMcpOAuthOptions,
} from "../http.ts";
import { SERVICE_CLIENT, startAuthServer } from "./_oidc_provider.ts";
import { freePort } from "./_serve_process.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const RESOURCE = "https://memo.example.com/mcp";

function post(token: string | undefined, name: string, args: Record<string, unknown>) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return new Request(RESOURCE, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
}

Deno.test("opaque tokens are checked by introspection, with a short cache", async () => {
  const as = await startAuthServer({
    resources: [{ url: RESOURCE, format: "opaque" }, {
      url: "https://elsewhere.example.com/mcp",
      format: "opaque",
    }],
  });
  const rootDir = await Deno.makeTempDir();
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  let introspections = 0;
  const oauth: MemoMcpOAuthOptions = {
    issuer: as.issuer,
    resource: RESOURCE,
    introspection: {
      url: `${as.issuer}/token/introspection`,
      clientId: SERVICE_CLIENT.id,
      clientSecret: SERVICE_CLIENT.secret,
    },
    fetch: (input, init) => {
      if (String(input).endsWith("/token/introspection")) introspections++;
      return fetch(input, init);
    },
  };
  const handler = createFrameworkMemoMcpHandler({ runtime, auth: { oauth } });
  try {
    const token = await as.clientCredentials(RESOURCE, "memo:read memo:write");
    assert.ok(!token.includes("."), "the provider issues opaque tokens here");
    const written = await handler(post(token, "remember", { text: "Opaque tokens work too" }));
    assert.equal(written.status, 200);
    assert.notEqual((await written.json()).result.isError, true);
    const read = await handler(post(token, "recall", { query: "opaque tokens" }));
    assert.equal(read.status, 200);
    await read.body?.cancel();
    assert.equal(introspections, 1, "the second call used the cached answer");

    const reader = await as.clientCredentials(RESOURCE, "memo:read");
    const refused = await handler(post(reader, "remember", { text: "no" }));
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get("www-authenticate")!, /insufficient_scope/);
    await refused.body?.cancel();

    const foreign = await as.clientCredentials("https://elsewhere.example.com/mcp", "memo:write");
    const other = await handler(post(foreign, "recall", { query: "x" }));
    assert.equal(other.status, 401);
    assert.match(other.headers.get("www-authenticate")!, /error="invalid_token"/);
    assert.match(other.headers.get("www-authenticate")!, /another audience/);
    await other.body?.cancel();

    const made = await handler(post("made-up-opaque-token", "recall", { query: "x" }));
    assert.equal(made.status, 401);
    assert.match(made.headers.get("www-authenticate")!, /not active/);
    await made.body?.cancel();
  } finally {
    await runtime.close();
    await as.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("authorize(context) gets the token's sub, clientId, scopes and claims (scheme oauth)", async () => {
  const as = await startAuthServer({ resources: [{ url: RESOURCE }] });
  const rootDir = await Deno.makeTempDir();
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  const seen: MemoMcpAuthInfo[] = [];
  const handler = createFrameworkMemoMcpHandler({
    runtime,
    auth: { oauth: { issuer: as.issuer, resource: RESOURCE } },
    authorize: ({ authInfo }) => {
      seen.push(authInfo!);
      return authInfo?.claims?.client_id === "someone-else"; // an operator's own rule
    },
  });
  try {
    const token = await as.clientCredentials(RESOURCE, "memo:read memo:write");
    const refused = await handler(post(token, "remember", { text: "refused by the rule" }));
    assert.equal(refused.status, 200, "refused by authorize, not for its scope: HTTP 200");
    assert.match((await refused.json()).error.message, /Cannot call remember: not authorized/);
    assert.equal(seen.length, 1);
    const [info] = seen;
    assert.equal(info.scheme, "oauth");
    assert.equal(info.clientId, SERVICE_CLIENT.id);
    assert.deepEqual(info.scopes, ["memo:read", "memo:write"]);
    assert.equal(info.readOnly, false);
    assert.equal(info.claims?.iss, as.issuer);
    assert.equal(info.claims?.aud, RESOURCE);
    assert.ok(!JSON.stringify(info).includes(token), "authInfo never holds the token");
  } finally {
    await runtime.close();
    await as.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("every handler factory serves the metadata, and answers 503 while the issuer cannot be reached", async (t) => {
  const rootDir = await Deno.makeTempDir();
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  const down = `http://127.0.0.1:${freePort()}`; // nothing listens there
  const env = { MEMO_OAUTH_ISSUER: down, MEMO_OAUTH_RESOURCE: RESOURCE };
  const options = { runtime, env };
  const fetchHandler = createMemoMcpFetchHandler({ runtime });
  const handlers: [string, (request: Request) => Promise<Response>][] = [
    ["handleMemoMcpRequest", (request) => handleMemoMcpRequest(request, options)],
    ["createMemoMcpFetchHandler", (request) => fetchHandler(request, env)],
    ["createFrameworkMemoMcpHandler", createFrameworkMemoMcpHandler(options)],
  ];
  try {
    for (const [name, handle] of handlers) {
      await t.step(name, async () => {
        for (
          const path of [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
          ]
        ) {
          const metadata = await handle(
            new Request(`https://memo.example.com${path}`, {
              headers: { origin: "https://chatgpt.com" },
            }),
          );
          assert.equal(metadata.status, 200, path);
          assert.equal(metadata.headers.get("access-control-allow-origin"), "*");
          assert.equal((await metadata.json()).resource, RESOURCE);
        }
        const missing = await handle(post(undefined, "recall", { query: "x" }));
        assert.equal(missing.status, 401);
        assert.match(missing.headers.get("www-authenticate")!, /^Bearer resource_metadata=/);
        await missing.body?.cancel();
        const jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJl";
        const unavailable = await handle(post(jwt, "recall", { query: "x" }));
        assert.equal(unavailable.status, 503);
        assert.equal(unavailable.headers.get("retry-after"), "5");
        const body = await unavailable.json();
        assert.match(
          body.error.message,
          /Cannot verify the access token: the authorization server/,
        );
        assert.ok(!JSON.stringify(body).includes(jwt));
      });
    }
    await t.step("OAuth with the static token cannot be built", () => {
      assert.throws(
        () =>
          createFrameworkMemoMcpHandler({
            runtime,
            env: { ...env, MEMO_MCP_BEARER_TOKEN: "s3cret" },
          }),
        /OAuth \(MEMO_OAUTH_ISSUER\) and a static bearer token \(MEMO_MCP_BEARER_TOKEN\) cannot be used together/,
      );
    });
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

/** Runs a command to its end; its exit code and stderr. */
async function run(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("memo serve and deno serve http.ts refuse, with one line, an OAuth configuration that cannot work", async () => {
  const dir = await Deno.makeTempDir();
  const down = `http://127.0.0.1:${freePort()}`;
  const ok = { MEMO_OAUTH_ISSUER: down, MEMO_OAUTH_RESOURCE: "http://127.0.0.1:8787/mcp" };
  const serve = ["run", "-A", "cli.ts", "serve", "--port", "0", "--dir", dir];
  const denoServe = ["serve", "-A", "--host", "127.0.0.1", "--port", String(freePort()), "http.ts"];
  try {
    const cases: [string, string[], Record<string, string>, RegExp][] = [
      [
        "memo serve, unreachable issuer",
        serve,
        ok,
        /^memo: Cannot reach the authorization server http:\/\/127\.0\.0\.1:\d+: /,
      ],
      [
        "deno serve, unreachable issuer",
        denoServe,
        { ...ok, MEMO_ROOT_DIR: dir },
        /^memo: Cannot reach the authorization server /,
      ],
      [
        "memo serve, resource not on the MCP path",
        serve,
        { ...ok, MEMO_OAUTH_RESOURCE: "http://127.0.0.1:8787/memory" },
        /^memo: Cannot configure OAuth: the resource http:\/\/127\.0\.0\.1:8787\/memory does not match the MCP path \/mcp/,
      ],
      [
        "deno serve, OAuth with the static token",
        denoServe,
        { ...ok, MEMO_ROOT_DIR: dir, MEMO_MCP_BEARER_TOKEN: "s3cret-token" },
        /^memo: Cannot configure authentication: OAuth .* cannot be used together/,
      ],
    ];
    const results = await Promise.all(cases.map(([, args, env]) => run(args, env)));
    cases.forEach(([name, , , expected], i) => {
      const { code, stderr } = results[i];
      assert.equal(code, 1, `${name}: ${stderr}`);
      const lines = stderr.split("\n").filter((l) => l.startsWith("memo:"));
      assert.equal(lines.length, 1, `${name}: ${stderr}`);
      assert.match(lines[0], expected, name);
      assert.ok(!stderr.includes("s3cret-token"), name);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The modules `entry` loads at start: its static imports, transitively (no dynamic import). */
async function startupGraph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0);
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: { specifier: string; code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
    redirects: Record<string, string>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects[s] ?? s;
  const seen = new Set<string>();
  const queue = info.roots.map(resolve);
  while (queue.length) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dep.isDynamic || dep.code === undefined) continue;
      queue.push(resolve(dep.code.specifier));
    }
  }
  return [...seen];
}

Deno.test("jose is not in the start-up module graph of cli.ts or http.ts (only a dynamic import reaches it)", async () => {
  // cli.ts loads each command lazily: `memo serve` and `memo mcp` start with these.
  for (const entry of ["cli.ts", "cli/serve/serve.ts", "cli/serve/mcp.ts", "http.ts"]) {
    const graph = await startupGraph(entry);
    if (entry === "http.ts" || entry === "cli/serve/serve.ts") {
      assert.ok(graph.some((s) => s.endsWith("/server/http/oauth/resource_server.ts")), entry);
    }
    const jose = graph.filter((s) => /jose|\/oauth\/_jwt\.ts$/.test(s));
    assert.deepEqual(jose, [], `${entry} loads at start: ${jose.join(", ")}`);
  }
  // The JWT verifier itself does import jose: the check above can fail.
  const verifier = await startupGraph("server/http/oauth/_jwt.ts");
  assert.ok(verifier.some((s) => s.includes("jose")));
});
