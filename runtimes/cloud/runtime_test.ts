import assert from "node:assert/strict";
import { createMemoCloudHandler } from "../../cloud/app.ts";
import { FileCloudStore } from "../../cloud/file/store.ts";
import { toSafeError } from "../../server/errors.ts";
import { createMemoCloudMcpRuntime } from "./runtime.ts";
import { isMemoRuntimeError, type MemoRuntimeErrorCode } from "../errors.ts";
import { pageCounter } from "../../testing/pages.ts";

const KEY = "mk_RUNTIME_SECRET_42";
const note = (id: string, revision = 1) => ({
  id,
  title: `Note ${id}`,
  body: "text",
  labels: [],
  hash: "h",
  created: "2026-01-01T00:00:00.000Z",
  updated: "2026-01-01T00:00:00.000Z",
  revision,
});

/** A runtime over a fetch that answers whoami, then `answer(path, request)`. */
function runtimeOver(
  answer: (path: string, request: Request) => Response | Promise<Response>,
  watchIntervalMs?: number,
) {
  const paths: string[] = [];
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: "http://127.0.0.1:8788",
    apiKey: KEY,
    retry: { maxRetries: 1, backoffMs: 1 },
    watchIntervalMs,
    fetch: (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const path = url.pathname.replace("/v1/workspaces/team/projects/default", "") + url.search;
      if (path === "/v1/whoami") return Promise.resolve(Response.json({ workspaceId: "team" }));
      paths.push(`${request.method} ${path}`);
      return Promise.resolve(answer(path, request));
    },
  });
  return { runtime, paths };
}

const apiError = (status: number, code: string, message: string, details?: unknown) =>
  Response.json({ error: { code, message, ...(details ? { details } : {}) } }, { status });

Deno.test("the cloud runtime maps the API's errors to runtime codes, without the key", async (t) => {
  const cases: [string, Response, MemoRuntimeErrorCode, RegExp][] = [
    [
      "not_found",
      apiError(404, "not_found", "Cannot find note"),
      "NOTE_NOT_FOUND",
      /^Cannot find note n9$/,
    ],
    [
      "invalid_request",
      apiError(400, "invalid_request", "Cannot read the body: labels must be a list"),
      "INVALID_INPUT",
      /labels must be a list/,
    ],
    [
      "payload_too_large",
      apiError(413, "payload_too_large", "Cannot read the body: too large"),
      "INVALID_INPUT",
      /too large/,
    ],
    [
      "conflict",
      apiError(409, "conflict", "Cannot update note n9: it changed", { note: note("n9", 3) }),
      "INVALID_INPUT",
      /it changed/,
    ],
    [
      "conflict in progress",
      apiError(409, "conflict", "Cannot run the request: still running", { reason: "in_progress" }),
      "UNAVAILABLE",
      /still running/,
    ],
    [
      "unauthorized",
      apiError(401, "unauthorized", `bad key ${KEY}`),
      "CONFIG",
      /^Cannot reach the Memo Cloud API at http:\/\/127\.0\.0\.1:8788: the API key was refused \(401\)$/,
    ],
    [
      "forbidden",
      apiError(403, "forbidden", "Cannot use workspace team"),
      "CONFIG",
      /access denied \(403\)/,
    ],
    [
      "rate_limited",
      apiError(429, "rate_limited", "Cannot serve: too many requests"),
      "UNAVAILABLE",
      /too many requests \(429, 2 attempts\)/,
    ],
    [
      "internal",
      apiError(500, "internal", "Cannot complete the request: internal error"),
      "UNAVAILABLE",
      /internal error \(500, 2 attempts\)/,
    ],
    ["a proxy's 502", new Response("<html>", { status: 502 }), "UNAVAILABLE", /answered 502/],
  ];
  for (const [name, response, code, message] of cases) {
    await t.step(name, async () => {
      const { runtime } = runtimeOver(() => response.clone());
      try {
        const e = await runtime.update("n9", { title: "x" }).catch((e) => e);
        assert.ok(isMemoRuntimeError(e, code), `${name}: ${e}`);
        assert.match(e.message, message);
        if (code === "NOTE_NOT_FOUND") assert.deepEqual(e.details, { id: "n9" });
        assert.ok(!JSON.stringify(toSafeError(e)).includes(KEY));
        assert.ok(!e.message.includes(KEY));
      } finally {
        await runtime.close();
      }
    });
  }
  await t.step("a 404 outside a note (a wrong base URL) is CONFIG", async () => {
    const { runtime } = runtimeOver(() => new Response("nothing here", { status: 404 }));
    await assert.rejects(
      runtime.stats(),
      (e) => isMemoRuntimeError(e, "CONFIG") && /is the base URL right\?/.test(e.message),
    );
    await runtime.close();
  });
  await t.step("the server down is UNAVAILABLE", async () => {
    const runtime = createMemoCloudMcpRuntime({
      baseUrl: "http://127.0.0.1:8788",
      apiKey: KEY,
      retry: { maxRetries: 0 },
      fetch: () => Promise.reject(new TypeError("tcp connect error: Connection refused")),
    });
    await assert.rejects(
      runtime.get("n1"),
      (e) =>
        isMemoRuntimeError(e, "UNAVAILABLE") &&
        e.message ===
          "Cannot reach the Memo Cloud API at http://127.0.0.1:8788: connection refused (1 attempt)",
    );
    await runtime.close();
  });
});

Deno.test("the cloud runtime's recall is lexical: vector and hybrid are refused, auto is lexical", async () => {
  const bodies: unknown[] = [];
  const { runtime, paths } = runtimeOver(async (_, request) => {
    bodies.push(await request.json());
    return Response.json({
      hits: [{ note: note("n1", 4), score: 1, engine: "lexical", matched: ["deploy"] }],
    });
  });
  try {
    for (const engine of ["vector", "hybrid"] as const) {
      await assert.rejects(
        runtime.recall("deploy", { limit: 5, engine }),
        (e) =>
          isMemoRuntimeError(e, "INVALID_INPUT") &&
          e.message === `Cannot recall with the ${engine} engine: the cloud runtime is lexical`,
      );
    }
    assert.deepEqual(paths, [], "refused without a request");
    const [hit] = await runtime.recall("deploy", { limit: 500, engine: "auto", labels: ["a"] });
    await runtime.recall("deploy", { limit: 3, engine: "lexical", explain: true });
    assert.equal(hit.engine, "lexical");
    assert.equal("revision" in hit.note, false, "notes come back without revision");
    assert.deepEqual(bodies, [
      { query: "deploy", limit: 100, labels: ["a"] },
      { query: "deploy", limit: 3, engine: "lexical", explain: true },
    ]);
  } finally {
    await runtime.close();
  }
});

Deno.test("the cloud runtime reads a page over 100 notes in several requests", async () => {
  const all = Array.from({ length: 230 }, (_, i) => note(`n${String(i).padStart(3, "0")}`));
  const { runtime, paths } = runtimeOver((path) => {
    const url = new URL(path, "http://x");
    const start = Number(url.searchParams.get("cursor") ?? 0);
    const limit = Number(url.searchParams.get("limit"));
    const notes = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : undefined;
    return Response.json({ notes, total: all.length, ...(next ? { nextCursor: next } : {}) });
  });
  try {
    const page = await runtime.list({ limit: 150 });
    assert.equal(page.notes.length, 150);
    assert.equal(page.nextCursor, "150");
    assert.equal(page.total, 230);
    const rest = await runtime.list({ limit: 1000, cursor: page.nextCursor });
    assert.equal(rest.notes.length, 80);
    assert.equal(rest.nextCursor, undefined);
    assert.deepEqual(paths, [
      "GET /notes?limit=100",
      "GET /notes?cursor=100&limit=50",
      "GET /notes?cursor=150&limit=100",
    ]);
    assert.deepEqual(await runtime.completeIds("n22", 5), {
      values: ["n220", "n221", "n222", "n223", "n224"],
      total: 10,
    });
  } finally {
    await runtime.close();
  }
});

Deno.test("the cloud runtime passes order to every page it reads", async () => {
  const all = Array.from({ length: 230 }, (_, i) => note(`n${String(i).padStart(3, "0")}`));
  const { runtime, paths } = runtimeOver((path) => {
    const url = new URL(path, "http://x");
    const sorted = url.searchParams.get("order") === "newest" ? [...all].reverse() : all;
    const start = Number(url.searchParams.get("cursor") ?? 0);
    const limit = Number(url.searchParams.get("limit"));
    const notes = sorted.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : undefined;
    return Response.json({ notes, total: all.length, ...(next ? { nextCursor: next } : {}) });
  });
  try {
    const page = await runtime.list({ limit: 150, order: "newest" });
    assert.equal(page.notes[0].id, "n229");
    assert.equal(page.notes[149].id, "n080");
    const rest = await runtime.list({ limit: 1000, cursor: page.nextCursor, order: "newest" });
    assert.equal(rest.notes.at(-1)?.id, "n000");
    assert.deepEqual(paths, [
      "GET /notes?limit=100&order=newest",
      "GET /notes?cursor=100&limit=50&order=newest",
      "GET /notes?cursor=150&limit=100&order=newest",
    ]);
  } finally {
    await runtime.close();
  }
});

Deno.test("the cloud runtime lists newest first against the reference Cloud API", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-order-" });
  const handler = createMemoCloudHandler({
    store: new FileCloudStore({ dataDir }),
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
  });
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: "http://cloud.test",
    apiKey: KEY,
    retry: { maxRetries: 0 },
    fetch: (input, init) => handler(new Request(input, init)),
  });
  try {
    for (let i = 0; i < 5; i++) await runtime.remember({ text: `Note number ${i}` });
    const titles: string[] = [];
    let cursor: string | undefined;
    const nextPage = pageCounter("the pages of runtime.list()");
    do {
      nextPage();
      const page = await runtime.list({ limit: 2, cursor, order: "newest" });
      assert.equal(page.total, 5);
      titles.push(...page.notes.map((n) => n.title));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(titles, [4, 3, 2, 1, 0].map((i) => `Note number ${i}`));
    await assert.rejects(
      runtime.list({ limit: 2, order: "random" as "newest" }),
      (e) => isMemoRuntimeError(e, "INVALID_INPUT") && /order/.test(e.message),
    );
  } finally {
    await runtime.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the cloud runtime's stats have the local shape, with the lexical engine", async () => {
  const { runtime } = runtimeOver(() =>
    Response.json({
      notes: 2,
      labels: { ops: 1 },
      sources: { none: 2 },
      lastUpdated: "2026-01-02T00:00:00.000Z",
      revision: 9,
    })
  );
  assert.deepEqual(await runtime.stats(), {
    notes: 2,
    labels: { ops: 1 },
    sources: { none: 2 },
    lastUpdated: "2026-01-02T00:00:00.000Z",
    engine: { default: "lexical", auto: "lexical" },
    embeddings: { model: "none", ready: false, embedded: 0, total: 2, state: "off" },
    issues: [],
    secrets: { policy: "redact" },
  });
  await runtime.close();
});

Deno.test("a closed cloud runtime refuses calls and stops the ones under way", async () => {
  let release: () => void = () => {};
  const reached = Promise.withResolvers<void>();
  const { runtime } = runtimeOver((_, request) =>
    new Promise<Response>((_resolve, reject) => {
      request.signal.addEventListener("abort", () => reject(request.signal.reason));
      release = () => reject(new Error("never"));
      reached.resolve();
    })
  );
  const pending = runtime.stats();
  await reached.promise; // the call is under way: its request is out
  await runtime.close();
  await assert.rejects(pending, (e) => isMemoRuntimeError(e, "UNAVAILABLE"));
  await assert.rejects(runtime.stats(), (e) => isMemoRuntimeError(e, "UNAVAILABLE"));
  assert.throws(() => runtime.watch!(() => {}), (e) => isMemoRuntimeError(e, "UNAVAILABLE"));
  release();
  const reason = new Error("client went away");
  const { runtime: other } = runtimeOver(() => Response.json({}));
  await assert.rejects(other.stats({ signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await other.close();
});

Deno.test("the cloud runtime's rememberMany is one batch request, forgetMany one batch delete", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-batch-" });
  const handler = createMemoCloudHandler({
    store: new FileCloudStore({ dataDir }),
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
  });
  const requests: string[] = [];
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: "http://cloud.test",
    apiKey: KEY,
    retry: { maxRetries: 0 },
    fetch: (input, init) => {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname.replace(/^.*\/projects\/default/, "");
      if (request.method !== "GET") requests.push(`${request.method} ${path}`);
      return handler(request);
    },
  });
  try {
    const seen: string[][] = [];
    runtime.watch!((change) => void seen.push(change.ids)); // own writes: reported at once
    const id = "01jqz0000000000000000000aa";
    const first = await runtime.rememberMany!([
      { text: "one", source: "x:1", id, created: "2024-01-02T03:04:05.000Z" },
      { text: "two", source: "x:2" },
    ]);
    assert.deepEqual(requests, ["POST /notes:batch"]);
    assert.equal(first.written.length, 2);
    assert.equal(first.written[0].id, id);
    assert.equal(first.written[0].created, "2024-01-02T03:04:05.000Z");
    assert.equal("revision" in first.written[0], false);
    assert.deepEqual(seen, [first.written.map((n) => n.id)]);
    const again = await runtime.rememberMany!([{ text: "one", source: "x:1" }]);
    assert.equal(again.unchanged.length, 1);
    requests.length = 0;
    const ids = first.written.map((n) => n.id);
    const forgotten = await runtime.forgetMany!([...ids, "01jqz0000000000000000000zz", ids[0]]);
    assert.deepEqual(forgotten.map((n) => n.id), ids);
    // One request for all of them; the unknown id is passed over, the repeated one counted once.
    assert.deepEqual(requests, ["POST /notes:batchDelete"]);
    assert.deepEqual(seen.at(-1), ids);
    assert.equal((await runtime.stats()).notes, 0);
  } finally {
    await runtime.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the cloud runtime's watch tells its own writes apart when the feed shows them first", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-cloud-watch-race-" });
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
  });
  let reads = 0;
  const readStarted = () => {
    reads++;
    for (const wake of waiting.splice(0)) wake();
  };
  const waiting: (() => void)[] = [];
  const runtime = createMemoCloudMcpRuntime({
    baseUrl: "http://cloud.test",
    apiKey: KEY,
    watchIntervalMs: 1,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith("/changes")) readStarted();
      const response = await handler(request);
      if (request.method !== "GET") {
        // The write is in the feed; its answer waits until the poller has read the feed past
        // it (the second read that starts from now begins once the first is handled).
        const target = reads + 2;
        while (reads < target) await new Promise<void>((wake) => waiting.push(wake));
      }
      return response;
    },
  });
  try {
    const seen: unknown[] = [];
    runtime.watch!((change) => void seen.push(change));
    const { note } = await runtime.remember({ text: "Seen in the feed before its answer" });
    await runtime.update(note.id, { labels: ["x"] });
    await runtime.forget(note.id);
    assert.deepEqual(seen, [
      { ids: [note.id], listChanged: true },
      { ids: [note.id], listChanged: false },
      { ids: [note.id], listChanged: true },
    ], "each write reported once, by the runtime");
  } finally {
    await runtime.close();
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("watch: the runtime's own write, read from the feed before its answer came, is reported once, as its own", async () => {
  let patched = false;
  let servedSeq6 = false;
  let changesReads = 0;
  const waiting: (() => void)[] = [];
  const nextRead = () => new Promise<void>((resolve) => waiting.push(resolve));
  let answerPatch: (() => void) | undefined;
  const { runtime } = runtimeOver(async (path) => {
    if (path.startsWith("/stats")) {
      return Response.json({ notes: 1, labels: {}, sources: {}, revision: 5 });
    }
    if (path.startsWith("/changes")) {
      changesReads++;
      for (const resolve of waiting.splice(0)) resolve();
      if (servedSeq6) {
        answerPatch?.(); // the feed was read and handled before the write's answer
        return Response.json({ changes: [], next: "6", hasMore: false });
      }
      if (patched) {
        servedSeq6 = true;
        const change = { seq: 6, op: "upsert", id: "n1", revision: 6, note: note("n1", 6) };
        return Response.json({ changes: [change], next: "6", hasMore: false });
      }
      return Response.json({ changes: [], next: "5", hasMore: false });
    }
    if (path === "/notes/n1") {
      patched = true;
      await new Promise<void>((resolve) => answerPatch = resolve);
      return Response.json({ note: { ...note("n1", 6), title: "Renamed" } });
    }
    throw new Error(`unexpected ${path}`);
  }, 5);
  const seen: unknown[] = [];
  const stop = runtime.watch!((change) => void seen.push(change));
  try {
    await nextRead(); // the poller knows the head and reads the feed
    await runtime.update("n1", { title: "Renamed" });
    const after = changesReads;
    while (changesReads < after + 2) await nextRead();
    assert.deepEqual(seen, [{ ids: ["n1"], listChanged: false }]);
  } finally {
    stop();
    await runtime.close();
  }
});

Deno.test("the cloud runtime serves the project scope alone: another scope is refused before any request", async () => {
  const { runtime, paths } = runtimeOver(() => Response.json({}, { status: 500 }));
  const refused = (e: unknown) =>
    isMemoRuntimeError(e, "INVALID_INPUT") && /serves the project scope only/.test(e.message);
  await assert.rejects(runtime.remember({ text: "x", scope: "user" }), refused);
  await assert.rejects(runtime.rememberMany!([{ text: "x", scope: "local" }]), refused);
  await assert.rejects(runtime.recall("x", { limit: 5, scope: ["project", "user"] }), refused);
  await assert.rejects(runtime.list({ limit: 5, scope: "local" }), refused);
  await assert.rejects(runtime.update("n1", { scope: "user" }), refused);
  assert.deepEqual(paths, []);
  await runtime.close();
});

Deno.test("syncToCloud(): a pass over one batch's 10,000 notes goes in several batches, in order, and commits", async () => {
  const { syncToCloud } = await import("./_connector_sync.ts");
  const { MemoCloudClient } = await import("./client.ts");
  const { ConnectorRegistry } = await import("@memo/connectors");
  const rootDir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${rootDir}/.memo`);
    await Deno.writeTextFile(
      `${rootDir}/.memo/config.json`,
      JSON.stringify({ connectors: [{ id: "big", type: "static" }] }),
    );
    // A repository or workspace of 10,001 items: its first, full pass.
    const records = Array.from({ length: 10_001 }, (_, i) => ({
      source: `static:${i}`,
      title: `Item ${i}`,
      text: `Text ${i}`,
      url: `https://example.com/${i}`,
      createdAt: "2024-05-01T00:00:00Z",
      updatedAt: "2024-05-01T00:00:00Z",
      metadata: { labels: [] },
    }));
    const registry = new ConnectorRegistry({ builtins: false }).register("static", (c) => ({
      id: c.id,
      type: "static",
      pull: () => Promise.resolve(records),
    }));
    const sizes: number[] = [];
    const client = new MemoCloudClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "mk_example",
      workspaceId: "team",
      fetch: (input, init) => {
        if (!String(input).includes("notes:batch")) {
          return Promise.resolve(Response.json({ workspaceId: "team" }));
        }
        const { notes } = JSON.parse(String(init?.body)) as { notes: { source: string }[] };
        sizes.push(notes.length);
        const results = notes.map((n) => ({
          status: "written",
          note: {
            id: `n${n.source.slice(7)}`,
            title: "t",
            body: "b",
            labels: [],
            hash: "h",
            revision: 1,
            created: "2026-01-01T00:00:00.000Z",
            updated: "2026-01-01T00:00:00.000Z",
          },
        }));
        return Promise.resolve(
          Response.json({ results, written: notes.length, updated: 0, unchanged: 0 }),
        );
      },
    });
    const poller = { writing: <T>(f: () => Promise<T>) => f() } as never;
    const result = await syncToCloud(
      { client, poller, secrets: "allow", wrote: () => {} },
      { rootDir, env: {}, registry, signal: new AbortController().signal },
    );
    assert.deepEqual(result.errors.map((e) => e.error.message), []);
    assert.deepEqual(sizes, [10_000, 1]);
    assert.equal(result.written, 10_001);
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});
