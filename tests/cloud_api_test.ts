/**
 * The Cloud API v1 through the handler, in process, on a file store in a temp
 * dir: isolation (every route with another workspace's key is 403), 401s,
 * each error code, body limits at and past the limit, bad input that loses
 * nothing, idempotency, revisions, the rate limit, and no key anywhere in an
 * answer or a log line.
 */

import assert from "node:assert/strict";
import {
  BATCH_MAX_BODY_BYTES,
  type CloudStore,
  createMemoCloudHandler,
  DEFAULT_MAX_BODY_BYTES,
  FileCloudStore,
  type MemoCloudHandlerOptions,
} from "../cloud/mod.ts";

const KEY_TEAM = "sk_team_4f9a1c7e2b";
const KEY_OTHER = "sk_other_8d2e5a";
const KEYS = [KEY_TEAM, KEY_OTHER];
const ORIGIN = "http://127.0.0.1:8788";
const P = "/v1/workspaces/team/projects/default";
const VECTOR = "Cannot recall with the vector engine: the cloud runtime is lexical";

/** Everything any handler of this file answered or logged, checked for keys at the end. */
const captured: string[] = [];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

async function setup(options: Partial<MemoCloudHandlerOptions> = {}) {
  const dataDir = await Deno.makeTempDir();
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: KEY_TEAM, workspaceId: "team" }, { key: KEY_OTHER, workspaceId: "other" }],
    log: (line) => captured.push(line),
    ...options,
  });
  let counter = 0;
  const call = async (
    method: string,
    path: string,
    init: {
      body?: unknown;
      raw?: BodyInit;
      key?: string | null;
      headers?: Record<string, string>;
      idempotencyKey?: string | null;
    } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== null) headers.authorization ??= `Bearer ${init.key ?? KEY_TEAM}`;
    const write = ["POST", "PATCH", "DELETE"].includes(method) && !path.endsWith("/recall");
    if (write && init.idempotencyKey !== null) {
      headers["idempotency-key"] ??= init.idempotencyKey ?? `auto-${++counter}`;
    }
    const body = init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const response = await handler(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit),
    );
    const text = await response.text();
    captured.push(text, ...[...response.headers].map(([k, v]) => `${k}: ${v}`));
    return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
  };
  const close = async () => {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { store, handler, call, close, dataDir };
}

function assertError(answer: Answer, status: number, code: string, message?: RegExp | string) {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.json.error.code, code, answer.text);
  assert.equal(typeof answer.json.error.message, "string");
  if (typeof message === "string") assert.equal(answer.json.error.message, message);
  else if (message) assert.match(answer.json.error.message, message);
}

/** One request per project route, with the body it needs. */
const PROJECT_ROUTES: { method: string; path: string; body?: unknown }[] = [
  { method: "POST", path: "/notes", body: { text: "hello" } },
  { method: "GET", path: "/notes" },
  { method: "GET", path: "/notes/n1" },
  { method: "PATCH", path: "/notes/n1", body: { title: "t" } },
  { method: "DELETE", path: "/notes/n1" },
  { method: "POST", path: "/notes:batch", body: { notes: [{ text: "hello" }] } },
  { method: "POST", path: "/recall", body: { query: "hello" } },
  { method: "GET", path: "/changes" },
  { method: "GET", path: "/stats" },
];

Deno.test("every route with a key of another workspace is 403, and nothing is written", async () => {
  const { call, close } = await setup();
  try {
    for (const route of PROJECT_ROUTES) {
      const answer = await call(route.method, `${P}${route.path}`, {
        key: KEY_OTHER,
        body: route.body,
      });
      assertError(answer, 403, "forbidden", /another workspace/);
    }
    const stats = await call("GET", `${P}/stats`);
    assert.equal(stats.json.notes, 0);
    assert.equal(stats.json.revision, 0);
    // The other key works in its own workspace.
    const own = await call("POST", "/v1/workspaces/other/projects/default/notes", {
      key: KEY_OTHER,
      body: { text: "mine" },
    });
    assert.equal(own.status, 201);
    const peek = await call("GET", `${P}/notes`);
    assert.equal(peek.json.total, 0); // not visible to team
  } finally {
    await close();
  }
});

Deno.test("401 without a key, with a wrong key and with another scheme, on every route; WWW-Authenticate: Bearer", async () => {
  const { call, close } = await setup();
  try {
    const routes = [...PROJECT_ROUTES.map((r) => ({ ...r, path: `${P}${r.path}` })), {
      method: "GET",
      path: "/v1/whoami",
    }];
    for (const route of routes) {
      for (
        const authorization of [
          undefined,
          "Bearer sk_wrong",
          `Basic ${KEY_TEAM}`,
          `Bearer ${KEY_TEAM}x`,
          `Bearer ${KEY_TEAM.slice(0, -1)}`,
        ]
      ) {
        const answer = await call(route.method, route.path, {
          key: authorization === undefined ? null : undefined,
          headers: authorization === undefined ? {} : { authorization },
          body: route.body,
        });
        assertError(answer, 401, "unauthorized");
        assert.equal(answer.headers.get("www-authenticate"), "Bearer");
      }
    }
    // Health and the document stay public.
    assert.equal((await call("GET", "/v1/health", { key: null })).status, 200);
    assert.equal((await call("GET", "/v1/openapi.json", { key: null })).status, 200);
  } finally {
    await close();
  }
});

Deno.test("HEAD answers wherever GET does: the same status and headers, no body", async () => {
  const { handler, call, close } = await setup();
  try {
    await call("POST", `${P}/notes`, { body: { text: "hello" } });
    const request = (method: string, path: string, key: string | null = KEY_TEAM) =>
      handler(
        new Request(`${ORIGIN}${path}`, {
          method,
          headers: key === null ? {} : { authorization: `Bearer ${key}` },
        }),
      );
    const cases: [string, string | null][] = [
      ["/v1/health", null],
      ["/v1/openapi.json", null],
      ["/v1/whoami", KEY_TEAM],
      [`${P}/notes`, KEY_TEAM],
      [`${P}/stats`, KEY_TEAM],
      [`${P}/changes`, KEY_TEAM],
      [`${P}/notes/nope`, KEY_TEAM], // 404
      [`${P}/stats`, null], // 401
      ["/v1/workspaces/other/projects/p/stats", KEY_TEAM], // 403
      [`${P}/stats?bogus=1`, KEY_TEAM], // 400
    ];
    for (const [path, key] of cases) {
      const get = await request("GET", path, key);
      const head = await request("HEAD", path, key);
      const text = await get.text();
      captured.push(text);
      assert.equal(head.status, get.status, `HEAD ${path}`);
      // The same headers, plus the Content-Length of GET's body.
      assert.equal(
        head.headers.get("content-length"),
        String(new TextEncoder().encode(text).length),
      );
      // The rate limit's count moves on with each request: the field is there, its value differs.
      const without = (headers: Headers) =>
        [...headers].map(([k, v]) => [k, k === "ratelimit" ? v.replace(/r=\d+/, "r=…") : v])
          .filter(([k]) => k !== "content-length");
      assert.deepEqual(without(head.headers), without(get.headers), `HEAD ${path}`);
      assert.equal(await head.text(), "", `HEAD ${path}`);
    }
    assert.equal((await request("HEAD", "/v1/health")).status, 200);
    // Only where GET is routed: notes:batch and recall take POST only.
    for (const path of [`${P}/notes:batch`, `${P}/recall`, "/v1/nope"]) {
      const head = await request("HEAD", path);
      assert.equal(head.status, 404, path);
      assert.equal(await head.text(), "");
    }
  } finally {
    await close();
  }
});

Deno.test("whoami names the key's workspace", async () => {
  const { call, close } = await setup();
  try {
    assert.deepEqual((await call("GET", "/v1/whoami")).json, { workspaceId: "team" });
    assert.deepEqual((await call("GET", "/v1/whoami", { key: KEY_OTHER })).json, {
      workspaceId: "other",
    });
  } finally {
    await close();
  }
});

Deno.test("bad workspace and project ids are 400; a bad note id is 404, after the Idempotency-Key check", async () => {
  const { call, close } = await setup();
  try {
    const long = "a".repeat(65);
    for (
      const path of [
        `/v1/workspaces/${long}/projects/default/stats`,
        "/v1/workspaces/Team/projects/default/stats",
        "/v1/workspaces/-team/projects/default/stats",
        `${"/v1/workspaces/team/projects/"}${long}/stats`,
        "/v1/workspaces/team/projects/Default/stats",
        "/v1/workspaces/team/projects/de%20fault/stats",
      ]
    ) {
      assertError(await call("GET", path), 400, "invalid_request", /id: it must be/);
    }
    assert.equal(
      (await call("GET", `/v1/workspaces/team/projects/${"a".repeat(64)}/stats`)).status,
      200,
    );
    for (const id of [long, "Upper", "n%2F1"]) {
      assertError(await call("GET", `${P}/notes/${id}`), 404, "not_found");
      assertError(
        await call("PATCH", `${P}/notes/${id}`, { body: { title: "t" } }),
        404,
        "not_found",
      );
      assertError(await call("DELETE", `${P}/notes/${id}`), 404, "not_found");
      // A bad id is the store's answer: a missing Idempotency-Key is refused before it (400).
      for (const method of ["PATCH", "DELETE"]) {
        const body = method === "PATCH" ? { body: { title: "t" } } : {};
        const refused = await call(method, `${P}/notes/${id}`, { ...body, idempotencyKey: null });
        assertError(refused, 400, "invalid_request", /Idempotency-Key/);
      }
    }
    assertError(await call("GET", `${P}/nope`), 404, "not_found", /no such route/);
    assertError(await call("PUT", `${P}/notes`, { body: { text: "x" } }), 404, "not_found");
  } finally {
    await close();
  }
});

Deno.test("malformed JSON, unknown fields and ill-typed fields are 400 and lose nothing", async () => {
  const { call, close } = await setup();
  try {
    const first = await call("POST", `${P}/notes`, { body: { text: "Keep me" } });
    const before = (await call("GET", `${P}/stats`)).json;
    const raws: BodyInit[] = ["{", "[]", "null", "", '"text"', new Uint8Array([0x7b, 0xff, 0x7d])];
    for (const raw of raws) {
      assertError(
        await call("POST", `${P}/notes`, { raw }),
        400,
        "invalid_request",
        /request body/,
      );
      assertError(await call("POST", `${P}/notes:batch`, { raw }), 400, "invalid_request");
      assertError(await call("POST", `${P}/recall`, { raw }), 400, "invalid_request");
      assertError(
        await call("PATCH", `${P}/notes/${first.json.note.id}`, { raw }),
        400,
        "invalid_request",
      );
    }
    const unknown = await call("POST", `${P}/notes`, { body: { text: "x", colour: "red" } });
    assertError(unknown, 400, "invalid_request", /unknown field "colour"/);
    assert.equal(unknown.json.error.details.field, "colour");
    assertError(
      await call("PATCH", `${P}/notes/${first.json.note.id}`, { body: { text: "y", source: "s" } }),
      400,
      "invalid_request",
      /unknown field "source"/,
    );
    assertError(
      await call("PATCH", `${P}/notes/${first.json.note.id}`, { body: {} }),
      400,
      "invalid_request",
      /at least one/,
    );
    assertError(
      await call("POST", `${P}/recall`, { body: { query: "x", k: 3 } }),
      400,
      "invalid_request",
      /unknown field "k"/,
    );
    assertError(
      await call("POST", `${P}/notes:batch`, { body: { notes: [{ text: "a" }], dryRun: true } }),
      400,
      "invalid_request",
      /unknown field "dryRun"/,
    );
    for (
      const body of [{ text: 1 }, { text: "x", labels: "ops" }, { text: "x", labels: [1] }, {
        text: "x",
        title: null,
      }, {}]
    ) {
      assertError(await call("POST", `${P}/notes`, { body }), 400, "invalid_request", /field "/);
    }
    assertError(
      await call("POST", `${P}/recall`, { body: { query: "x", limit: 101 } }),
      400,
      "invalid_request",
      /limit/,
    );
    assertError(
      await call("GET", `${P}/notes?limit=0`),
      400,
      "invalid_request",
      /limit must be an integer from 1 to 100/,
    );
    assertError(await call("GET", `${P}/notes?order=random`), 400, "invalid_request");
    assertError(await call("GET", `${P}/notes?page=2`), 400, "invalid_request", /"page"/);
    assertError(await call("GET", `${P}/stats?x=1`), 400, "invalid_request");
    assertError(
      await call("POST", `${P}/notes`, { body: { text: "   " } }),
      400,
      "invalid_request",
      /text is empty/,
    );
    const after = (await call("GET", `${P}/stats`)).json;
    assert.deepEqual(after, before);
  } finally {
    await close();
  }
});

Deno.test("a bad cursor and a bad change token are 400", async () => {
  const { call, close } = await setup();
  try {
    await call("POST", `${P}/notes:batch`, { body: { notes: [{ text: "a" }, { text: "b" }] } });
    const page = await call("GET", `${P}/notes?limit=1`);
    assert.ok(page.json.nextCursor);
    const next = await call(
      "GET",
      `${P}/notes?limit=1&cursor=${encodeURIComponent(page.json.nextCursor)}`,
    );
    assert.equal(next.status, 200);
    assert.notEqual(next.json.notes[0].id, page.json.notes[0].id);
    for (const cursor of ["nope", "eyJ4IjoxfQ", page.json.nextCursor.slice(0, -2)]) {
      const bad = await call("GET", `${P}/notes?cursor=${encodeURIComponent(cursor)}`);
      assertError(bad, 400, "invalid_request", "Cannot list notes: invalid cursor");
      assert.deepEqual(bad.json.error.details, { parameter: "cursor" });
    }
    for (const since of ["x", "-1", "1.5", "99999999999999999999", "0x10"]) {
      assertError(
        await call("GET", `${P}/changes?since=${encodeURIComponent(since)}`),
        400,
        "invalid_request",
        /since is not a token/,
      );
    }
    assertError(await call("GET", `${P}/changes?limit=1001`), 400, "invalid_request");
  } finally {
    await close();
  }
});

Deno.test("the change feed is ordered, resumable from its token, and keeps tombstones", async () => {
  const { call, close } = await setup();
  try {
    const a = (await call("POST", `${P}/notes`, { body: { text: "alpha" } })).json.note;
    await call("POST", `${P}/notes`, { body: { text: "beta" } });
    await call("POST", `${P}/notes`, { body: { text: "gamma" } });
    const first = await call("GET", `${P}/changes?limit=2`);
    assert.equal(first.json.changes.length, 2);
    assert.equal(first.json.hasMore, true);
    const second = await call("GET", `${P}/changes?since=${first.json.next}`);
    assert.equal(second.json.hasMore, false);
    const all = [...first.json.changes, ...second.json.changes];
    assert.deepEqual(all.map((c) => c.note.body), ["alpha", "beta", "gamma"]);
    assert.ok(all.every((c, i) => i === 0 || c.seq > all[i - 1].seq));
    assert.equal(second.json.next, String(all[2].seq));
    // Nothing new: the same token comes back.
    const idle = await call("GET", `${P}/changes?since=${second.json.next}`);
    assert.deepEqual(idle.json, { changes: [], next: second.json.next, hasMore: false });
    // A delete is a tombstone after the token.
    await call("DELETE", `${P}/notes/${a.id}`);
    const after = await call("GET", `${P}/changes?since=${second.json.next}`);
    assert.deepEqual(after.json.changes.map((c: { op: string; id: string }) => [c.op, c.id]), [[
      "delete",
      a.id,
    ]]);
    assert.equal(after.json.changes[0].note, undefined);
    const fresh = await call("GET", "/v1/workspaces/team/projects/empty/changes");
    assert.deepEqual(fresh.json, { changes: [], next: "0", hasMore: false });
  } finally {
    await close();
  }
});

Deno.test("a change token ahead of the project's feed (another server's or project's) is 400, not a silent skip", async () => {
  const { call, close } = await setup();
  try {
    await call("POST", `${P}/notes:batch`, { body: { notes: [{ text: "a" }, { text: "b" }] } });
    const latest = (await call("GET", `${P}/stats`)).json.revision;
    assert.equal(latest, 2);
    const atEnd = await call("GET", `${P}/changes?since=${latest}`);
    assert.deepEqual(atEnd.json, { changes: [], next: String(latest), hasMore: false });
    for (const since of [latest + 1, 9999]) {
      const ahead = await call("GET", `${P}/changes?since=${since}`);
      assertError(
        ahead,
        400,
        "invalid_request",
        /^Cannot read the changes: since is ahead of the feed/,
      );
      assert.deepEqual(ahead.json.error.details, { parameter: "since" });
    }
    // A project never written has revision 0: only "0" (or no since) is a token of its feed.
    const empty = "/v1/workspaces/team/projects/empty/changes";
    assert.equal((await call("GET", `${empty}?since=0`)).status, 200);
    assertError(await call("GET", `${empty}?since=1`), 400, "invalid_request");
  } finally {
    await close();
  }
});

Deno.test("idempotency: replay with Idempotent-Replayed, mismatch and missing keys are 400", async () => {
  const { call, close } = await setup();
  try {
    const body = { text: "Deploys run with make deploy" };
    const first = await call("POST", `${P}/notes`, { body, idempotencyKey: "create-1" });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const again = await call("POST", `${P}/notes`, { body, idempotencyKey: "create-1" });
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal((await call("GET", `${P}/stats`)).json.revision, first.json.note.revision);

    const mismatch = await call("POST", `${P}/notes`, {
      body: { text: "Something else" },
      idempotencyKey: "create-1",
    });
    assertError(mismatch, 400, "invalid_request", /Idempotency-Key was used for another request/);
    // Keys are per workspace: the other workspace may use the same key.
    const elsewhere = await call("POST", "/v1/workspaces/other/projects/default/notes", {
      key: KEY_OTHER,
      body: { text: "Something else" },
      idempotencyKey: "create-1",
    });
    assert.equal(elsewhere.status, 201);

    for (const route of PROJECT_ROUTES.filter((r) => r.method !== "GET" && r.path !== "/recall")) {
      const path = route.path.replace("n1", first.json.note.id);
      assertError(
        await call(route.method, `${P}${path}`, { body: route.body, idempotencyKey: null }),
        400,
        "invalid_request",
        /Idempotency-Key/,
      );
      for (const bad of ["", "has space", "x".repeat(256), "é"]) {
        assertError(
          await call(route.method, `${P}${path}`, {
            body: route.body,
            headers: { "idempotency-key": bad },
          }),
          400,
          "invalid_request",
          /Idempotency-Key/,
        );
      }
    }
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 1); // nothing landed

    // A delete replayed answers as the first time, not 404.
    const del = await call("DELETE", `${P}/notes/${first.json.note.id}`, { idempotencyKey: "del" });
    const del2 = await call("DELETE", `${P}/notes/${first.json.note.id}`, {
      idempotencyKey: "del",
    });
    assert.equal(del.status, 200);
    assert.equal(del2.status, 200);
    assert.equal(del2.text, del.text);
    // A batch replayed lands once.
    const drafts = { notes: [{ text: "one" }, { text: "two" }] };
    const b1 = await call("POST", `${P}/notes:batch`, { body: drafts, idempotencyKey: "b" });
    const b2 = await call("POST", `${P}/notes:batch`, { body: drafts, idempotencyKey: "b" });
    assert.equal(b2.text, b1.text);
    assert.equal(b1.json.written, 2);
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 2);
  } finally {
    await close();
  }
});

Deno.test("If-Match: a moved-on revision is 409 with the current note; plain and quoted values work", async () => {
  const { call, close } = await setup();
  try {
    const note = (await call("POST", `${P}/notes`, { body: { text: "v1" } })).json.note;
    const v2 = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "v2" },
      headers: { "if-match": String(note.revision) },
    });
    assert.equal(v2.status, 200);
    assert.ok(v2.json.note.revision > note.revision);
    const stale = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "v3" },
      headers: { "if-match": `"${note.revision}"` },
    });
    assertError(stale, 409, "conflict");
    const current = (await call("GET", `${P}/notes/${note.id}`)).json.note;
    assert.deepEqual(stale.json.error.details.note, current);
    assert.equal(current.body, "v2");
    // The same key with a new If-Match is another request, not a repeat of the 409.
    const retried = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "v3" },
      headers: { "if-match": String(current.revision), "idempotency-key": "patch-1" },
    });
    assert.equal(retried.status, 200);
    const reused = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "v3" },
      headers: { "if-match": String(note.revision), "idempotency-key": "patch-1" },
    });
    assertError(reused, 400, "invalid_request", /used for another request/);
    await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "v2" },
      headers: { "if-match": String(retried.json.note.revision) },
    });
    Object.assign(current, (await call("GET", `${P}/notes/${note.id}`)).json.note);
    const staleDelete = await call("DELETE", `${P}/notes/${note.id}`, {
      headers: { "if-match": String(note.revision) },
    });
    assertError(staleDelete, 409, "conflict");
    assert.deepEqual(staleDelete.json.error.details.note, current);
    for (const bad of ["abc", "*", 'W/"1"', "1,2", "-1"]) {
      assertError(
        await call("PATCH", `${P}/notes/${note.id}`, {
          body: { text: "v3" },
          headers: { "if-match": bad },
        }),
        400,
        "invalid_request",
        /If-Match/,
      );
    }
    const quoted = await call("DELETE", `${P}/notes/${note.id}`, {
      headers: { "if-match": `"${current.revision}"` },
    });
    assert.equal(quoted.status, 200);
    assert.deepEqual(quoted.json.note, current);
    assertError(await call("GET", `${P}/notes/${note.id}`), 404, "not_found");
    // A patch that changes nothing keeps the revision.
    const other = (await call("POST", `${P}/notes`, { body: { text: "same", labels: ["a"] } }))
      .json.note;
    const noop = await call("PATCH", `${P}/notes/${other.id}`, { body: { labels: ["a"] } });
    assert.equal(noop.json.note.revision, other.revision);
  } finally {
    await close();
  }
});

Deno.test("PATCH with updated records that time (revision +1); with nothing to change it changes nothing; a bad one is 400", async () => {
  const { call, close } = await setup();
  try {
    const note = (await call("POST", `${P}/notes`, { body: { text: "Deploys on Fridays" } })).json
      .note;
    const edited = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: "Deploys on Mondays", updated: "2026-02-01T10:00:00.000Z" },
      headers: { "if-match": String(note.revision) },
    });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.json.note.updated, "2026-02-01T10:00:00.000Z");
    assert.equal(edited.json.note.created, note.created);
    assert.equal(edited.json.note.revision, note.revision + 1);
    assert.deepEqual((await call("GET", `${P}/notes/${note.id}`)).json.note, edited.json.note);
    const feed = (await call("GET", `${P}/changes?since=${note.revision}`)).json;
    assert.equal(feed.changes[0].note.updated, "2026-02-01T10:00:00.000Z", "the feed carries it");
    // Another zone is the same instant, recorded canonical.
    const zoned = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { title: "Deploys", updated: "2026-02-01T12:00:00+01:00" },
    });
    assert.equal(zoned.json.note.updated, "2026-02-01T11:00:00.000Z");

    // The same content with another time: a no-op, revision and note kept.
    const current = zoned.json.note;
    const noop = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { text: current.body, title: current.title, updated: "2030-01-01T00:00:00.000Z" },
    });
    assert.equal(noop.status, 200);
    assert.deepEqual(noop.json.note, current);
    // `updated` alone is nothing to change: the 400 of an empty patch.
    const alone = await call("PATCH", `${P}/notes/${note.id}`, {
      body: { updated: "2030-01-01T00:00:00.000Z" },
    });
    assertError(
      alone,
      400,
      "invalid_request",
      "Cannot update the note: give at least one of text, title, labels, supersedes, validFrom and validUntil",
    );

    for (const bad of ["2026-02-01", "2026-02-01T10:00:00", "yesterday", 1769940000000, null]) {
      const refused = await call("PATCH", `${P}/notes/${note.id}`, {
        body: { text: "Deploys on Tuesdays", updated: bad },
      });
      assertError(refused, 400, "invalid_request", /field "updated" must be an ISO 8601 date-time/);
      assert.equal(refused.json.error.details.field, "updated", String(bad));
    }
    assert.deepEqual((await call("GET", `${P}/notes/${note.id}`)).json.note, current, "kept");
  } finally {
    await close();
  }
});

Deno.test("notes:batch is all-or-nothing: one bad draft is 400 with its index and nothing is stored", async () => {
  const { call, close } = await setup();
  try {
    const bad = [
      { notes: [{ text: "ok" }, { text: "  " }] },
      { notes: [{ text: "ok" }, { text: "ok2", id: "Not-An-Id" }] },
      { notes: [{ text: "ok" }, { text: "ok2", created: "yesterday" }] },
      { notes: [{ text: "ok" }, { text: "ok2", source: "two words" }] },
      { notes: [{ text: "ok" }, "text"] },
    ];
    for (const body of bad) {
      const answer = await call("POST", `${P}/notes:batch`, { body });
      assertError(answer, 400, "invalid_request", /note 1/);
      assert.equal(answer.json.error.details.index, 1);
    }
    assertError(
      await call("POST", `${P}/notes:batch`, { body: { notes: [] } }),
      400,
      "invalid_request",
    );
    assertError(
      await call("POST", `${P}/notes:batch`, {
        body: { notes: Array.from({ length: 10001 }, () => ({ text: "x" })) },
      }),
      400,
      "invalid_request",
      /1 to 10000/,
    );
    assert.equal((await call("GET", `${P}/stats`)).json.revision, 0);
    // At the limit: 10,000 drafts are one batch, stored whole (in another project).
    const full = await call("POST", `${P}-full/notes:batch`, {
      body: { notes: Array.from({ length: 10000 }, (_, i) => ({ text: `note ${i}` })) },
    });
    assert.equal(full.status, 200);
    assert.equal(full.json.written, 10000);
    assert.equal((await call("GET", `${P}-full/stats`)).json.notes, 10000);
    // Identity dedupe: a draft matching a stored note answers with its id.
    const stored = (await call("POST", `${P}/notes`, { body: { text: "x", source: "gh:1" } })).json
      .note;
    const batch = await call("POST", `${P}/notes:batch`, {
      body: {
        notes: [{ id: "replica-id", text: "x2", source: "gh:1" }, { id: "fresh", text: "y" }],
      },
    });
    assert.equal(batch.json.results[0].note.id, stored.id);
    assert.equal(batch.json.results[0].status, "updated");
    assert.equal(batch.json.results[1].note.id, "fresh");
    assert.deepEqual([batch.json.written, batch.json.updated, batch.json.unchanged], [1, 1, 0]);
  } finally {
    await close();
  }
});

Deno.test("notes:batch: drafts of one identity answer with one note; only the first carries its status, so the counts are honest", async () => {
  const { call, close } = await setup();
  try {
    const dup = await call("POST", `${P}/notes:batch`, {
      body: { notes: [{ text: "c two", id: "myid3" }, { text: "c two" }] },
    });
    assert.equal(dup.status, 200, dup.text);
    assert.deepEqual(dup.json.results.map((r: { status: string }) => r.status), [
      "written",
      "unchanged",
    ]);
    assert.deepEqual([dup.json.written, dup.json.updated, dup.json.unchanged], [1, 0, 1]);
    assert.deepEqual(dup.json.results[1].note, dup.json.results[0].note);
    assert.equal(dup.json.results[0].note.id, "myid3");
    // A source key three times: the last draft's content, the first id given.
    const source = "github:acme/app/issues/7";
    const keyed = await call("POST", `${P}/notes:batch`, {
      body: {
        notes: [
          { text: "v1", source },
          { text: "v2", source, id: "first-id" },
          { text: "other" },
          { text: "v3", source, id: "later-id" },
        ],
      },
    });
    assert.deepEqual(keyed.json.results.map((r: { status: string }) => r.status), [
      "written",
      "unchanged",
      "written",
      "unchanged",
    ]);
    assert.deepEqual([keyed.json.written, keyed.json.updated, keyed.json.unchanged], [2, 0, 2]);
    for (const i of [0, 1, 3]) {
      assert.equal(keyed.json.results[i].note.id, "first-id");
      assert.equal(keyed.json.results[i].note.body, "v3");
    }
    assert.equal((await call("GET", `${P}/notes/later-id`)).status, 404);
    // Against stored notes: one update, then the repeats are unchanged.
    const again = await call("POST", `${P}/notes:batch`, {
      body: { notes: [{ text: "v4", source }, { text: "v5", source }, { text: "c two" }] },
    });
    assert.deepEqual(again.json.results.map((r: { status: string }) => r.status), [
      "updated",
      "unchanged",
      "unchanged",
    ]);
    assert.equal(again.json.results[1].note.body, "v5");
    assert.equal(again.json.results[1].note.id, "first-id");
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 3);
  } finally {
    await close();
  }
});

Deno.test("recall is lexical: vector and hybrid are 400 with the exact message and details.field; an empty query names its field", async () => {
  const { call, close } = await setup();
  try {
    await call("POST", `${P}/notes`, { body: { text: "The staging database is db-stage-2" } });
    for (const engine of ["vector", "hybrid"]) {
      const refused = await call("POST", `${P}/recall`, { body: { query: "staging", engine } });
      assertError(refused, 400, "invalid_request", VECTOR);
      assert.deepEqual(refused.json.error.details, { field: "engine" });
    }
    for (const query of ["", "  \n"]) {
      const empty = await call("POST", `${P}/recall`, { body: { query } });
      assertError(empty, 400, "invalid_request", "Cannot recall: query is empty");
      assert.deepEqual(empty.json.error.details, { field: "query" });
    }
    for (const engine of ["auto", "lexical", undefined]) {
      const answer = await call("POST", `${P}/recall`, { body: { query: "staging", engine } });
      assert.equal(answer.status, 200);
      assert.equal(answer.json.hits[0].engine, "lexical");
    }
    assertError(
      await call("POST", `${P}/recall`, { body: { query: "x", engine: "magic" } }),
      400,
      "invalid_request",
    );
  } finally {
    await close();
  }
});

/** A JSON body of exactly `size` bytes: `{"text":"xxx…"}` plus `extra` fields. */
function bodyOfSize(size: number, prefix = '{"text":"', suffix = '"}'): string {
  return prefix + "x".repeat(size - prefix.length - suffix.length) + suffix;
}

/** The same body as a stream without Content-Length, in 64 KiB chunks. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 65536));
      offset += 65536;
    },
  });
}

Deno.test("body limits: a configured limit admits a body at the limit and refuses one byte past it, streamed too", async () => {
  const { call, close } = await setup({ maxBodyBytes: 1000, maxBatchBodyBytes: 3000 });
  try {
    const at = await call("POST", `${P}/notes`, { raw: bodyOfSize(1000) });
    assert.equal(at.status, 201);
    const past = await call("POST", `${P}/notes`, { raw: bodyOfSize(1001) });
    assertError(past, 413, "payload_too_large", /larger than 1000 bytes/);
    assertError(
      await call("POST", `${P}/notes`, { raw: streamOf(bodyOfSize(1001)) }),
      413,
      "payload_too_large",
    );
    assert.equal(
      (await call("POST", `${P}/notes`, { raw: streamOf(bodyOfSize(1000, '{"text":"y')) })).status,
      201,
    );
    // PATCH and recall share the general limit.
    assertError(
      await call("PATCH", `${P}/notes/${at.json.note.id}`, { raw: bodyOfSize(1001) }),
      413,
      "payload_too_large",
    );
    assertError(
      await call("POST", `${P}/recall`, { raw: bodyOfSize(1001, '{"query":"') }),
      413,
      "payload_too_large",
    );
    // The batch has its own.
    const batchAt = await call("POST", `${P}/notes:batch`, {
      raw: bodyOfSize(3000, '{"notes":[{"text":"', '"}]}'),
    });
    assert.equal(batchAt.status, 200);
    assertError(
      await call("POST", `${P}/notes:batch`, {
        raw: bodyOfSize(3001, '{"notes":[{"text":"', '"}]}'),
      }),
      413,
      "payload_too_large",
      /larger than 3000 bytes/,
    );
    assertError(
      await call("POST", `${P}/notes:batch`, {
        raw: streamOf(bodyOfSize(3001, '{"notes":[{"text":"', '"}]}')),
      }),
      413,
      "payload_too_large",
    );
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 3); // nothing past a limit landed
  } finally {
    await close();
  }
});

Deno.test("body limits: the defaults are 1 MiB and 16 MiB for notes:batch", async () => {
  const { call, close } = await setup();
  try {
    assert.equal(DEFAULT_MAX_BODY_BYTES, 1048576);
    assert.equal(BATCH_MAX_BODY_BYTES, 16777216);
    // At the limit the body is read (and refused for its unknown field: nothing stored), past it 413.
    const pad = (size: number, prefix: string) => bodyOfSize(size, prefix, '"}');
    const at = await call("POST", `${P}/notes`, { raw: pad(1048576, '{"text":"x","pad":"') });
    assertError(at, 400, "invalid_request", /unknown field "pad"/);
    assertError(
      await call("POST", `${P}/notes`, { raw: pad(1048577, '{"text":"x","pad":"') }),
      413,
      "payload_too_large",
      /larger than 1048576 bytes/,
    );
    // notes:batch takes more than 1 MiB …
    const big = await call("POST", `${P}/notes:batch`, {
      raw: bodyOfSize(2 * 1048576, '{"notes":[{"text":"', '"}]}'),
    });
    assert.equal(big.status, 200);
    // … up to 16 MiB.
    const batchAt = await call("POST", `${P}/notes:batch`, {
      raw: pad(16777216, '{"notes":[{"text":"x"}],"pad":"'),
    });
    assertError(batchAt, 400, "invalid_request", /unknown field "pad"/);
    assertError(
      await call("POST", `${P}/notes:batch`, {
        raw: streamOf(pad(16777217, '{"notes":[{"text":"x"}],"pad":"')),
      }),
      413,
      "payload_too_large",
      /larger than 16777216 bytes/,
    );
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 1);
  } finally {
    await close();
  }
});

Deno.test("the rate limit answers 429 with Retry-After per key, and frees up in the next second", async () => {
  let now = Date.parse("2026-01-01T00:00:00.100Z");
  const { call, close } = await setup({ rateLimit: 3, clock: () => new Date(now) });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await call("GET", `${P}/stats`)).status, 200);
    const limited = await call("GET", `${P}/stats`);
    assertError(limited, 429, "rate_limited");
    assert.equal(limited.headers.get("retry-after"), "1");
    assertError(await call("POST", `${P}/notes`, { body: { text: "x" } }), 429, "rate_limited");
    assertError(await call("GET", "/v1/whoami"), 429, "rate_limited");
    // Another key has its own budget; public routes have none.
    assert.equal(
      (await call("GET", "/v1/workspaces/other/projects/default/stats", { key: KEY_OTHER })).status,
      200,
    );
    assert.equal((await call("GET", "/v1/health", { key: null })).status, 200);
    now += 900;
    assert.equal((await call("GET", `${P}/stats`)).status, 200);
    assert.equal((await call("GET", `${P}/stats`)).json.notes, 0); // the refused write did not land
  } finally {
    await close();
  }
  const off = await setup({ rateLimit: 0 });
  try {
    for (let i = 0; i < 150; i++) assert.equal((await off.call("GET", `${P}/stats`)).status, 200);
  } finally {
    await off.close();
  }
});

Deno.test("a failing store is a 500 with a generic message; the cause is logged without the key", async () => {
  const lines: string[] = [];
  const dataDir = await Deno.makeTempDir();
  const real = new FileCloudStore({ dataDir });
  const broken: CloudStore = {
    kind: "file",
    idempotency: real.idempotency,
    project: () => Promise.reject(new Error(`connection to db failed for ${KEY_TEAM}`)),
    close: () => Promise.resolve(),
  };
  try {
    const handler = createMemoCloudHandler({
      store: broken,
      apiKeys: new Map([[KEY_TEAM, "team"]]),
      log: (line) => {
        lines.push(line);
        captured.push(line);
      },
    });
    for (
      const [method, path, body] of [["GET", `${P}/stats`], ["POST", `${P}/notes`, '{"text":"x"}']]
    ) {
      const response = await handler(
        new Request(`${ORIGIN}${path}`, {
          method,
          body,
          headers: { authorization: `Bearer ${KEY_TEAM}`, "idempotency-key": "k" },
        }),
      );
      const text = await response.text();
      captured.push(text);
      assert.equal(response.status, 500);
      assert.equal(JSON.parse(text).error.code, "internal");
      assert.doesNotMatch(text, /connection to db/);
    }
    assert.ok(
      lines.some((l) => /error GET \/v1\/.*connection to db failed for \[redacted\]/.test(l)),
    );
    // The failed write released its key: a retry runs again (and fails again, not 409).
    const retry = await handler(
      new Request(`${ORIGIN}${P}/notes`, {
        method: "POST",
        body: '{"text":"x"}',
        headers: { authorization: `Bearer ${KEY_TEAM}`, "idempotency-key": "k" },
      }),
    );
    captured.push(await retry.text());
    assert.equal(retry.status, 500);
  } finally {
    await real.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("no API key appears in any answer, header or log line of this file", () => {
  assert.ok(captured.length > 500, `captured ${captured.length}`);
  assert.ok(captured.some((line) => line.startsWith("memo-cloud: ")));
  for (const text of captured) {
    for (const key of KEYS) {
      assert.ok(!text.includes(key), `a key leaked: ${text.slice(0, 200)}`);
    }
  }
});
