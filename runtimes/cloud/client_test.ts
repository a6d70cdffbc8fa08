import assert from "node:assert/strict";
import { toSafeError } from "../../server/errors.ts";
import { VERSION } from "../../version.ts";
import { isMemoCloudError, MemoCloudError } from "./errors.ts";
import { MemoCloudClient, type MemoCloudClientOptions } from "./client.ts";

const KEY = "mk_SECRET_0123456789abcdef";
const BASE = "http://127.0.0.1:8788";
const PROJECT = "/v1/workspaces/team/projects/default";

const NOTE = {
  id: "n1",
  title: "Deploys",
  body: "Run make deploy.",
  labels: [],
  hash: "h",
  created: "2026-01-01T00:00:00.000Z",
  updated: "2026-01-01T00:00:00.000Z",
  revision: 1,
};

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

type Answer = Response | Error | "hang" | "hang-ignoring-signal" | "stall-body";

/**
 * A scripted Cloud API: `whoami` answers the key's workspace; every other
 * request takes the next answer of `script` (the last one repeats).
 */
function scripted(script: Answer[], options: { workspace?: string } = {}) {
  const seen: Seen[] = [];
  let next = 0;
  const fetch = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: request.body ? await request.text() : "",
    });
    if (url.pathname.endsWith("/v1/whoami")) {
      return Response.json({ workspaceId: options.workspace ?? "team" });
    }
    const answer = script[Math.min(next++, script.length - 1)];
    if (answer instanceof Error) throw answer;
    if (answer === "hang") {
      return await new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true });
      });
    }
    if (answer === "hang-ignoring-signal") return await new Promise<Response>(() => {});
    if (answer === "stall-body") {
      // The head arrives at once; the body never ends.
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"notes":'));
        },
      });
      return new Response(body, { status: 200 });
    }
    return answer.clone();
  };
  const calls = () => seen.filter((s) => !s.path.endsWith("/v1/whoami"));
  return { fetch, seen, calls };
}

function client(
  fetch: MemoCloudClientOptions["fetch"],
  options: Partial<MemoCloudClientOptions> = {},
) {
  const waits: number[] = [];
  const c = new MemoCloudClient({
    baseUrl: BASE,
    apiKey: KEY,
    fetch,
    sleep: (ms) => (waits.push(ms), Promise.resolve()),
    random: () => 0.5,
    ...options,
  });
  return { client: c, waits };
}

const error = (status: number, code: string, message: string, details?: unknown) =>
  Response.json({ error: { code, message, ...(details ? { details } : {}) } }, { status });
const stats = () => Response.json({ notes: 0, labels: {}, sources: {}, revision: 0 });

Deno.test("MemoCloudClient takes the origin or the origin and /v1 as its base URL", async () => {
  for (
    const [given, api] of [
      ["http://127.0.0.1:8788", "http://127.0.0.1:8788/v1"],
      ["http://127.0.0.1:8788/", "http://127.0.0.1:8788/v1"],
      ["http://127.0.0.1:8788/v1", "http://127.0.0.1:8788/v1"],
      ["http://127.0.0.1:8788/v1/", "http://127.0.0.1:8788/v1"],
      ["https://host.example/memo/", "https://host.example/memo/v1"],
    ]
  ) {
    const api2 = scripted([stats()]);
    const { client: c } = client(api2.fetch, { baseUrl: given });
    assert.equal(c.baseUrl, api);
    await c.stats();
    assert.deepEqual(api2.seen.map((s) => s.path), [
      `${new URL(api).pathname}/whoami`,
      `${new URL(api).pathname}/workspaces/team/projects/default/stats`,
    ]);
  }
  for (
    const [baseUrl, message] of [
      [undefined, /no base URL \(set MEMO_CLOUD_BASE_URL/],
      ["not a url", /the base URL is not a URL/],
      ["ftp://x.example", /must be http or https/],
      ["https://user:pw@x.example", /must not hold a user name or password/],
      ["https://x.example/?a=1", /must not hold a query/],
    ] as const
  ) {
    assert.throws(
      () => new MemoCloudClient({ baseUrl, apiKey: KEY }),
      (e) => isMemoCloudError(e, "config") && message.test(e.message),
    );
  }
  assert.throws(() => new MemoCloudClient({ baseUrl: BASE }), {
    code: "config",
    message: "Cannot use the Memo Cloud API: no API key (set MEMO_CLOUD_API_KEY)",
  });
  assert.throws(() => new MemoCloudClient({ baseUrl: BASE, apiKey: KEY, workspaceId: "Team" }), {
    code: "config",
  });
  assert.throws(() => new MemoCloudClient({ baseUrl: BASE, apiKey: KEY, timeoutMs: 0 }), {
    code: "config",
  });
});

Deno.test("MemoCloudClient sends the bearer key, its user agent and JSON", async () => {
  const api = scripted([Response.json({ note: NOTE, status: "written" }, { status: 201 })]);
  const { client: c } = client(api.fetch);
  await c.remember({ text: "Run make deploy.", labels: ["ops"] });
  const [whoami, write] = api.seen;
  assert.equal(whoami.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(write.method, "POST");
  assert.equal(write.path, `${PROJECT}/notes`);
  assert.equal(write.headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(write.headers.get("user-agent"), `memo/${VERSION}`);
  assert.equal(write.headers.get("content-type"), "application/json; charset=utf-8");
  assert.deepEqual(JSON.parse(write.body), { text: "Run make deploy.", labels: ["ops"] });
  const health = scripted([Response.json({ status: "ok", version: "1", store: "file" })]);
  await client(health.fetch, { userAgent: "agent/1" }).client.health();
  assert.equal(health.seen.length, 1, "health needs no whoami");
  assert.equal(health.seen[0].headers.get("authorization"), null, "health is public");
  assert.equal(health.seen[0].headers.get("user-agent"), "agent/1");
});

Deno.test("MemoCloudClient retries 5xx and network failures with exponential backoff and jitter", async () => {
  const api = scripted([
    new Response("bad gateway", { status: 502 }),
    new TypeError("error sending request: connection reset by peer"),
    error(500, "internal", "Cannot complete the request: internal error"),
    stats(),
  ]);
  const { client: c, waits } = client(api.fetch, { retry: { backoffMs: 100 } });
  assert.equal((await c.stats()).revision, 0);
  assert.equal(api.calls().length, 4);
  // random() is 0.5: half the backoff, plus half of the other half.
  assert.deepEqual(waits, [75, 150, 300]);

  const jitter = scripted([new Response(null, { status: 503 }), stats()]);
  const low = client(jitter.fetch, { random: () => 0, retry: { backoffMs: 100 } });
  await low.client.stats();
  assert.deepEqual(low.waits, [50]);
});

Deno.test("MemoCloudClient gives up after maxRetries, saying how often it tried", async () => {
  const api = scripted([error(500, "internal", "Cannot complete the request: internal error")]);
  const { client: c } = client(api.fetch, { retry: { maxRetries: 2 } });
  const e = await c.stats().catch((e) => e);
  assert.ok(isMemoCloudError(e, "internal"));
  assert.equal(e.status, 500);
  assert.equal(e.attempts, 3);
  assert.equal(e.message, "Cannot complete the request: internal error (500, 3 attempts)");
  assert.equal(api.calls().length, 3);

  const down = scripted([new TypeError("error sending request for url (x): Connection refused")]);
  const refused = await client(down.fetch, { retry: { maxRetries: 1 } }).client.stats().catch((
    e,
  ) => e);
  assert.equal(refused.code, "unavailable");
  assert.equal(
    refused.message,
    "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: connection refused (2 attempts)",
  );
});

Deno.test("MemoCloudClient honours Retry-After in seconds and as an HTTP date", async () => {
  const withHeader = (retryAfter: string) =>
    new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), {
      status: 429,
      headers: { "retry-after": retryAfter },
    });
  const a = scripted([withHeader("3"), stats()]);
  const first = client(a.fetch);
  await first.client.stats();
  assert.deepEqual(first.waits, [3000]);

  const now = Date.parse("2026-10-21T07:27:55.000Z");
  const b = scripted([withHeader("Wed, 21 Oct 2026 07:28:00 GMT"), stats()]);
  const second = client(b.fetch, { now: () => now });
  await second.client.stats();
  assert.deepEqual(second.waits, [5000]);

  // A 503 may carry it too.
  const c = scripted([
    new Response(null, { status: 503, headers: { "retry-after": "1" } }),
    stats(),
  ]);
  const third = client(c.fetch);
  await third.client.stats();
  assert.deepEqual(third.waits, [1000]);
});

Deno.test("MemoCloudClient does not wait for a Retry-After over a minute: it fails and says when", async () => {
  const api = scripted([
    new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), {
      status: 429,
      headers: { "retry-after": "120" },
    }),
  ]);
  const { client: c, waits } = client(api.fetch);
  const e = await c.stats().catch((e) => e);
  assert.ok(isMemoCloudError(e, "rate_limited"));
  assert.equal(e.retryAfterSeconds, 120);
  assert.equal(e.message, "Cannot read the stats: slow down (429; retry after 120 s; 1 attempt)");
  assert.deepEqual(waits, []);
  assert.equal(api.calls().length, 1);
});

Deno.test("MemoCloudClient times out each attempt, even against a fetch that ignores its signal", async (t) => {
  for (const answer of ["hang", "hang-ignoring-signal", "stall-body"] as const) {
    await t.step(answer, async () => {
      const api = scripted([answer]);
      const { client: c, waits } = client(api.fetch, {
        timeoutMs: 30,
        retry: { maxRetries: 1, backoffMs: 10 },
      });
      const started = Date.now();
      const e = await c.list().catch((e) => e);
      assert.ok(isMemoCloudError(e, "timeout"), String(e));
      assert.equal(
        e.message,
        "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: no answer within 30 ms (2 attempts)",
      );
      assert.equal(api.calls().length, 2);
      assert.equal(waits.length, 1);
      assert.ok(Date.now() - started < 10_000, "the attempts ended at their 30 ms timeouts");
    });
  }
  await t.step("a timed-out attempt is followed by one that answers", async () => {
    const api = scripted(["hang", stats()]);
    const { client: c } = client(api.fetch, { timeoutMs: 30 });
    assert.equal((await c.stats()).notes, 0);
  });
});

Deno.test("MemoCloudClient never retries other 4xx", async () => {
  for (
    const [answer, code] of [
      [error(400, "invalid_request", "Cannot read the body: text is required"), "invalid_request"],
      [error(401, "unauthorized", "Cannot authenticate"), "unauthorized"],
      [error(403, "forbidden", "Cannot use workspace other"), "forbidden"],
      [error(404, "not_found", "Cannot find note n9"), "not_found"],
      [error(409, "conflict", "Cannot update note n1: it moved on", { note: NOTE }), "conflict"],
      [
        error(413, "payload_too_large", "Cannot read the body: over 1048576 bytes"),
        "payload_too_large",
      ],
    ] as const
  ) {
    const api = scripted([answer, stats()]);
    const { client: c, waits } = client(api.fetch);
    const e = await c.get("n1").catch((e) => e);
    assert.ok(isMemoCloudError(e, code), `${code}: ${e}`);
    assert.equal(e.status, answer.status);
    assert.equal(e.attempts, 1);
    assert.equal(api.calls().length, 1, code);
    assert.deepEqual(waits, []);
  }
  const conflict = scripted([error(409, "conflict", "moved on", { note: NOTE })]);
  const e = await client(conflict.fetch).client.update("n1", { title: "x" }, { ifMatch: 0 }).catch((
    e,
  ) => e);
  assert.deepEqual(e.details, { note: NOTE });
  assert.equal(conflict.calls()[0].headers.get("if-match"), "0");
});

Deno.test("MemoCloudClient retries a write with the same Idempotency-Key; each write has its own", async () => {
  const api = scripted([
    new Response(null, { status: 502 }),
    "hang",
    error(409, "conflict", "Cannot run the request: it is still running", {
      reason: "in_progress",
    }),
    Response.json({ note: NOTE, status: "written" }, { status: 201 }),
    Response.json({ note: NOTE, status: "unchanged" }),
  ]);
  const { client: c } = client(api.fetch, { timeoutMs: 30, retry: { maxRetries: 5 } });
  assert.equal((await c.remember({ text: "Run make deploy." })).status, "written");
  const keys = api.calls().map((s) => s.headers.get("idempotency-key"));
  assert.equal(keys.length, 4);
  assert.equal(new Set(keys).size, 1, "one key across the retries");
  assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
  assert.ok(api.calls().every((s) => s.body === api.calls()[0].body));

  await c.remember({ text: "Run make deploy." });
  const second = api.calls()[4].headers.get("idempotency-key");
  assert.notEqual(second, keys[0], "a new write, a new key");

  const given = scripted([Response.json({ note: NOTE })]);
  await client(given.fetch).client.forget("n1", { idempotencyKey: "forget-n1" });
  assert.equal(given.calls()[0].headers.get("idempotency-key"), "forget-n1");
  assert.equal(given.calls()[0].method, "DELETE");
});

Deno.test("MemoCloudClient asks whoami once, and a workspace mismatch reads and writes nothing", async () => {
  const api = scripted([stats()]);
  const { client: c } = client(api.fetch);
  assert.equal(c.workspaceId, undefined);
  await Promise.all([c.stats(), c.stats(), c.stats()]);
  assert.equal(api.seen.filter((s) => s.path === "/v1/whoami").length, 1);
  assert.equal(c.workspaceId, "team");

  const other = scripted([stats()], { workspace: "team" });
  const { client: wrong } = client(other.fetch, { workspaceId: "other" });
  const calls = [
    () => wrong.stats(),
    () => wrong.remember({ text: "x" }),
    () => wrong.upsertBatch([{ text: "x" }]),
    () => wrong.forget("n1"),
    () => wrong.changes(),
  ];
  for (const call of calls) {
    const e = await call().catch((e) => e);
    assert.ok(isMemoCloudError(e, "config"), String(e));
    assert.equal(
      e.message,
      'Cannot use the Memo Cloud API: the API key belongs to workspace "team", not "other" ' +
        "(fix MEMO_CLOUD_WORKSPACE_ID or cloud.workspaceId, or leave it unset)",
    );
  }
  assert.deepEqual(other.calls(), [], "nothing read or written");
  assert.equal(other.seen.length, calls.length, "whoami asked again at each call");
});

Deno.test("MemoCloudClient errors never hold the API key", async () => {
  const echo = `Cannot authenticate Bearer ${KEY}`;
  const answers: Answer[] = [
    error(401, "unauthorized", echo),
    error(400, "invalid_request", echo, { field: KEY }),
    error(403, "forbidden", echo),
    new TypeError(`error sending request for url (${BASE}): ${KEY}`),
    new Response(`<html>${KEY}</html>`, { status: 418, statusText: KEY }),
  ];
  for (const answer of answers) {
    const api = scripted([answer]);
    const e = await client(api.fetch, { retry: { maxRetries: 0 } }).client.stats().catch((e) => e);
    assert.ok(e instanceof MemoCloudError, String(e));
    for (const text of [e.message, JSON.stringify(e), JSON.stringify(toSafeError(e)), String(e)]) {
      assert.ok(!text.includes(KEY), text);
    }
  }
  const refused = await client(scripted([error(401, "unauthorized", "no")]).fetch).client.stats()
    .catch((e) => e);
  assert.equal(
    toSafeError(refused).message,
    "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: the API key was refused (401)",
  );
  // A key refused at whoami: the first call fails the same way.
  const whoami = (_: Request | URL | string) => Promise.resolve(error(401, "unauthorized", "no"));
  const e = await new MemoCloudClient({ baseUrl: BASE, apiKey: KEY, fetch: whoami }).stats()
    .catch((e) => e);
  assert.equal(e.code, "unauthorized");
});

Deno.test("MemoCloudClient reports an answer that is not the Cloud API's", async () => {
  const api = scripted([new Response("<html>not here</html>", { status: 404 })]);
  const e = await client(api.fetch).client.stats().catch((e) => e);
  assert.equal(e.code, "not_found");
  assert.match(
    e.message,
    /answered 404 without a Memo Cloud API error \(is the base URL right\?\)/,
  );
  const odd = scripted([Response.json({ unexpected: true })]);
  await assert.rejects(client(odd.fetch).client.stats(), {
    code: "unavailable",
    message: "Cannot read the stats: the Memo Cloud API answered with an unexpected body",
  });
});

Deno.test("MemoCloudClient stops at once when its signal aborts, in a wait or a request", async () => {
  const reason = new Error("client went away");
  const api = scripted([new Response(null, { status: 503 })]);
  const controller = new AbortController();
  const c = new MemoCloudClient({
    baseUrl: BASE,
    apiKey: KEY,
    fetch: api.fetch,
    sleep: () => {
      controller.abort(reason);
      return Promise.reject(reason);
    },
  });
  await assert.rejects(c.stats({ signal: controller.signal }), (e) => e === reason);
  assert.equal(api.calls().length, 1);

  const hanging = scripted(["hang"]);
  const second = new AbortController();
  const pending = new MemoCloudClient({ baseUrl: BASE, apiKey: KEY, fetch: hanging.fetch })
    .stats({ signal: second.signal });
  setTimeout(() => second.abort(reason), 20);
  await assert.rejects(pending, (e) => e === reason);
});

Deno.test("MemoCloudClient.upsertBatch refuses a batch over the limits before sending it", async () => {
  const api = scripted([stats()]);
  const { client: c } = client(api.fetch);
  await assert.rejects(
    c.upsertBatch(Array.from({ length: 10001 }, (_, i) => ({ text: `n${i}` }))),
    { code: "payload_too_large", message: /the limit is 10000 notes; nothing was written/ },
  );
  const big = "x".repeat(2 * 1024 * 1024);
  await assert.rejects(
    c.upsertBatch(Array.from({ length: 9 }, (_, i) => ({ text: `${i}${big}` }))),
    {
      code: "payload_too_large",
      message: /over the limit of 16777216 \(16 MiB\); nothing was written/,
    },
  );
  assert.deepEqual(api.seen, []);

  const ok = scripted([
    Response.json({
      results: [{ status: "written", note: NOTE }, { status: "unchanged", note: NOTE }],
      written: 1,
      updated: 0,
      unchanged: 1,
    }),
  ]);
  const result = await client(ok.fetch).client.upsertBatch([
    { text: "a", source: "s:1", created: "2024-01-01T00:00:00Z" },
    { id: "keep-id", text: "b" },
  ]);
  assert.deepEqual([result.written, result.updated, result.unchanged], [1, 0, 1]);
  assert.deepEqual(JSON.parse(ok.calls()[0].body), {
    notes: [
      { text: "a", source: "s:1", created: "2024-01-01T00:00:00Z" },
      { id: "keep-id", text: "b" },
    ],
  });
  assert.equal(ok.calls()[0].path, `${PROJECT}/notes:batch`);
});

Deno.test("MemoCloudClient.deleteBatch sends ids or a prefix, retries with one key, refuses 10,001 ids", async () => {
  const refused = scripted([Response.json({ deleted: [], notFound: [] })]);
  const ids = Array.from({ length: 10001 }, (_, i) => `n${i}`);
  await assert.rejects(client(refused.fetch).client.deleteBatch({ ids }), {
    code: "payload_too_large",
    message:
      "Cannot delete 10001 notes in one batch: the limit is 10000 notes; nothing was deleted",
  });
  assert.deepEqual(refused.seen, []);

  const api = scripted([
    new Response(null, { status: 503 }),
    Response.json({ deleted: [NOTE], notFound: ["n2"] }),
    Response.json({ deleted: [NOTE], notFound: [] }),
  ]);
  const { client: c } = client(api.fetch);
  const atLimit = ["n1", ...ids.slice(2, 10001)];
  assert.equal(atLimit.length, 10000);
  const byIds = await c.deleteBatch({ ids: atLimit });
  assert.deepEqual(byIds, { deleted: [NOTE], notFound: ["n2"] });
  const [first, retry] = api.calls();
  assert.equal(first.path, `${PROJECT}/notes:batchDelete`);
  assert.equal(first.method, "POST");
  assert.equal(JSON.parse(first.body).ids.length, 10000);
  assert.equal(retry.headers.get("idempotency-key"), first.headers.get("idempotency-key"));
  await c.deleteBatch({ sourcePrefix: "notion:page/" }, { idempotencyKey: "clean-notion" });
  const byPrefix = api.calls()[2];
  assert.deepEqual(JSON.parse(byPrefix.body), { sourcePrefix: "notion:page/" });
  assert.equal(byPrefix.headers.get("idempotency-key"), "clean-notion");
});

Deno.test("MemoCloudClient.changes and list pass their query", async () => {
  const api = scripted([
    Response.json({ changes: [], next: "0", hasMore: false }),
    Response.json({ notes: [NOTE], nextCursor: "c2", total: 3 }),
  ]);
  const { client: c } = client(api.fetch);
  assert.deepEqual(await c.changes({ since: "7", limit: 1000 }), {
    changes: [],
    next: "0",
    hasMore: false,
  });
  const page = await c.list({ cursor: "c1", limit: 1, source: "github:", order: "newest" });
  assert.equal(page.nextCursor, "c2");
  assert.deepEqual(api.calls().map((s) => s.path), [
    `${PROJECT}/changes?since=7&limit=1000`,
    `${PROJECT}/notes?cursor=c1&limit=1&source=github%3A&order=newest`,
  ]);
});

Deno.test("MemoCloudClient.update sends the patch's fields, updated included, and only those", async () => {
  const api = scripted([Response.json({ note: NOTE })]);
  const { client: c } = client(api.fetch);
  await c.update("n1", { text: "Run make ship.", updated: "2026-02-01T10:00:00.000Z" }, {
    ifMatch: 1,
  });
  await c.update("n1", { title: "Deploys", labels: ["ops"] });
  const [edited, plain] = api.calls();
  assert.equal(edited.method, "PATCH");
  assert.equal(edited.path, `${PROJECT}/notes/n1`);
  assert.deepEqual(JSON.parse(edited.body), {
    text: "Run make ship.",
    updated: "2026-02-01T10:00:00.000Z",
  });
  assert.equal(edited.headers.get("if-match"), "1");
  assert.deepEqual(JSON.parse(plain.body), { title: "Deploys", labels: ["ops"] });
});

Deno.test("MemoCloudClient without a key (requireApiKey false) sends no Authorization and says a key is needed", async () => {
  const api = scripted([stats()]);
  const fetch = (input: Request | URL | string, init?: RequestInit) =>
    new Request(input, init).headers.has("authorization")
      ? api.fetch(input, init)
      : Promise.resolve(error(401, "unauthorized", "Cannot authenticate: no bearer token"));
  const c = new MemoCloudClient({ baseUrl: BASE, requireApiKey: false, fetch });
  await assert.rejects(c.stats(), {
    code: "unauthorized",
    message:
      "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: it needs an API key (401; set MEMO_CLOUD_API_KEY)",
  });
});
