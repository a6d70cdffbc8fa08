/**
 * `memo serve` and `memo cloud serve` as services: one log line per request
 * (no query string, no header, so no token), `GET /healthz` without
 * authentication, and a graceful SIGTERM: the open `subscriptions/listen`
 * stream ends with its completion result and the process exits 0 within
 * 2.5 s.
 */

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { serve } from "./connectors_helpers.ts";
import { startMemoServe } from "./_serve_process.ts";
import { readUntil, settled } from "../testing/wait.ts";

const STATELESS = "2026-07-28";
const TOKEN = "tok-service-test-5e1f0a9b";

function listenRequest(origin: string): Promise<Response> {
  return fetch(`${origin}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": STATELESS,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "s1",
      method: "subscriptions/listen",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": STATELESS,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
        notifications: { resourcesListChanged: true },
      },
    }),
  });
}

async function waitFor(read: () => string, pattern: RegExp, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${read()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `memo serve` on a fresh project whose one connector is a GitHub that holds
 * every request until `release()`: a sync through it is a request in flight
 * for as long as the test needs (`reached` resolves when GitHub has it).
 */
async function serveWithHeldGithub() {
  const dir = await Deno.makeTempDir({ prefix: "memo-service-" });
  const reached = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const github = serve(async () => {
    reached.resolve();
    await release.promise;
    return Response.json({ message: "Bad credentials" }, { status: 401 });
  });
  await mkdir(join(dir, ".memo"), { recursive: true });
  await writeFile(
    join(dir, ".memo", "config.json"),
    JSON.stringify({
      connectors: [{
        id: "slow",
        type: "discussions",
        repositories: ["octo-org/slow"],
        apiUrl: github.url,
      }],
    }),
  );
  // stderr is a pipe, so the default level is info: every request is logged.
  const server = await startMemoServe(["--dir", dir], {
    MEMO_MCP_BEARER_TOKEN: TOKEN,
    MEMO_GITHUB_TOKEN: "ghp_slowTOKEN00000000000000000000000000",
  });
  return {
    server,
    reached: reached.promise,
    release: () => release.resolve(),
    /** POSTs sync_connectors with `id`: it waits for GitHub. */
    sync: (id: number) =>
      fetch(`${server.origin}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "sync_connectors", arguments: {} },
        }),
      }),
    async [Symbol.asyncDispose]() {
      release.resolve();
      await server.stop();
      await github.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test(
  "memo serve: request log without secrets, /healthz without auth, SIGTERM ends a listen stream and exits 0",
  async () => {
    await using held = await serveWithHeldGithub();
    const { server } = held;
    // /healthz: no token needed, and a non-loopback Host is answered too.
    const health = await fetch(`${server.origin}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("cache-control"), "no-store");
    assert.deepEqual(await health.json(), { status: "ok" });
    const foreignHost = await fetch(`${server.origin}/healthz`, {
      headers: { host: "memo.example.com" },
    });
    assert.equal(foreignHost.status, 200);
    await foreignHost.body?.cancel();
    const post = await fetch(`${server.origin}/healthz`, { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
    // The MCP path still needs the token.
    const refused = await fetch(`${server.origin}/mcp?token=${TOKEN}`, { method: "POST" });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    const listen = await listenRequest(server.origin);
    assert.equal(listen.status, 200);
    const reader = listen.body!.getReader();
    const ack = await readUntil(reader, (t) => t.includes("acknowledged"), "the acknowledgement");
    assert.equal(ack.done, false);

    await waitFor(server.stderr, /POST \/mcp 401 \d+ms\n/);
    await waitFor(server.stderr, /POST \/mcp 200 \d+ms\n/);
    const log = server.stderr();
    assert.match(log, /memo: \d{4}-\d\d-\d\dT[\d:.]+Z GET \/healthz 200 \d+ms\n/);
    assert.match(log, /memo: \S+ POST \/healthz 405 \d+ms\n/);
    assert.ok(!log.includes(TOKEN), "the token is in the log");
    assert.ok(!log.includes("?"), "a query string is in the log");

    // A request in flight when the signal comes still gets its answer.
    const inFlight = held.sync(7);
    await held.reached; // GitHub has the sync's request
    const started = Date.now();
    server.child.kill("SIGTERM");
    // The signal ends the listen stream first, with its result…
    const end = await readUntil(
      reader,
      () => false,
      "the listen stream to end at the signal, before the request in flight",
      { sofar: ack.text },
    );
    assert.equal(end.done, true);
    assert.match(end.text, /"resultType":"complete"/); // the stream ended with its result
    // …and only then does GitHub answer: the sync runs to its end after the signal.
    held.release();
    const answer = await inFlight;
    assert.equal(answer.status, 200);
    const synced = await answer.json();
    assert.equal(synced.id, 7);
    assert.equal(synced.result.isError, true);
    assert.match(synced.result.content[0].text, /slow: .*\(HTTP 401\)/);
    const status = await server.child.status;
    const elapsed = Date.now() - started;
    assert.equal(status.code, 0, server.stderr());
    // Exits once the request is answered (a hang would be the 1 s grace, then forced).
    assert.ok(elapsed < 10_000, `exit took ${elapsed} ms`);
    await waitFor(server.stderr, /memo: stopped\n/);
  },
);

Deno.test("memo serve: a request still in flight when the grace ends is cut, and it exits 0", async () => {
  // GitHub never answers (until the end): the sync through it outlasts the second of grace.
  await using held = await serveWithHeldGithub();
  const { server } = held;
  const inFlight = held.sync(8).then((r) => r.text(), (e: Error) => `cut: ${e.name}`);
  await held.reached;
  server.child.kill("SIGTERM");
  const status = await settled(server.child.status, "memo serve to exit after the grace");
  assert.equal(status.code, 0, server.stderr());
  assert.match(await inFlight, /^cut: /, "the request was cut, not answered");
  assert.ok(!server.stderr().includes("BadResource"), server.stderr());
  assert.match(server.stderr(), /memo: stopped\n/);
});

Deno.test("memo cloud serve: /healthz without a key, request log, SIGTERM exits 0", async () => {
  const data = await Deno.makeTempDir({ prefix: "memo-cloud-service-" });
  const key = "mk_service_test_key_7c2d";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli.ts", "cloud", "serve", "--port", "0", "--dir", data],
    cwd: new URL("..", import.meta.url),
    env: {
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      MEMO_CLOUD_API_KEYS: `${key}:team`,
      MEMO_CLOUD_DATA_DIR: data,
      MEMO_CLOUD_DRAIN_MS: "0", // SIGTERM stops at once (the drain is tested in cloud_scale_test)
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const drained = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  try {
    await waitFor(() => text, /cloud API listening on http:\/\/127\.0\.0\.1:\d+\/v1\n/, 30_000);
    const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(text)![1];
    const health = await fetch(`${origin}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("cache-control"), "no-store");
    assert.deepEqual(await health.json(), { status: "ok" });
    const head = await fetch(`${origin}/healthz`, { method: "HEAD" });
    assert.equal(head.status, 200);
    const whoami = await fetch(`${origin}/v1/whoami`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(whoami.status, 200);
    await whoami.body?.cancel();
    await waitFor(() => text, /memo-cloud: \S+ GET \/v1\/whoami 200 \d+ms\n/);
    assert.match(text, /memo-cloud: \S+ GET \/healthz 200 \d+ms\n/);
    assert.ok(!text.includes(key), "the key is in the log");

    const started = Date.now();
    child.kill("SIGTERM");
    const status = await child.status;
    const elapsed = Date.now() - started;
    assert.equal(status.code, 0, text);
    assert.ok(elapsed < 10_000, `exit took ${elapsed} ms`);
    await drained;
    assert.match(text, /memo: stopped\n/);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await drained;
    await Deno.remove(data, { recursive: true });
  }
});
