import assert from "node:assert/strict";
import { until } from "../testing/wait.ts";
import { MemoryValidationError, type NotePatch } from "@memo/memory";
import { createMemoCloudHandler, type MemoCloudHandlerOptions } from "./app.ts";
import {
  checkIfMatch,
  type CloudChange,
  type CloudDeleteSelector,
  type CloudDraft,
  type CloudNote,
  type CloudProject,
  type CloudStore,
  type IdempotencyClaim,
  type IdempotentAnswer,
} from "./store.ts";

/** A small in-memory store: enough to drive the handler without a real store. */
class FakeProject implements CloudProject {
  notes = new Map<string, CloudNote>();
  seq = 0;
  log: CloudChange[] = [];
  failNext: unknown;
  gate: Promise<void> | undefined;
  /** Calls waiting at the gate now. */
  atGate = 0;

  upsert(drafts: readonly CloudDraft[]) {
    return this.#run(() =>
      drafts.map((d, i) => {
        if (d.text.trim() === "") {
          throw new MemoryValidationError("Cannot store note: text is empty");
        }
        const existing = [...this.notes.values()].find((n) =>
          d.source ? n.source === d.source : n.body === d.text
        );
        if (existing) {
          if (existing.body === d.text) return { status: "unchanged" as const, note: existing };
          const note = { ...existing, body: d.text, revision: ++this.seq };
          this.notes.set(note.id, note);
          this.log.push({
            seq: note.revision,
            op: "upsert",
            id: note.id,
            revision: note.revision,
            note,
          });
          return { status: "updated" as const, note };
        }
        const id = d.id ?? `n${this.seq + 1}x${i}`;
        const note: CloudNote = {
          id,
          title: d.title ?? d.text.split("\n")[0],
          body: d.text,
          labels: [...(d.labels ?? [])],
          hash: `h${this.seq}`,
          created: "2026-01-01T00:00:00.000Z",
          updated: "2026-01-01T00:00:00.000Z",
          revision: ++this.seq,
        };
        if (d.source) note.source = d.source;
        this.notes.set(id, note);
        this.log.push({ seq: note.revision, op: "upsert", id, revision: note.revision, note });
        return { status: "written" as const, note };
      })
    );
  }
  async remember(draft: CloudDraft) {
    const [result] = await this.upsert([draft]);
    return { ...result, similar: [] };
  }
  get(id: string) {
    return Promise.resolve(this.notes.get(id));
  }
  correct(): Promise<never> {
    return Promise.reject(new Error("Cannot correct: not in the fake"));
  }
  supersede(): Promise<never> {
    return Promise.reject(new Error("Cannot supersede: not in the fake"));
  }
  tidy() {
    return Promise.resolve({ version: 1 as const, proposals: [] });
  }
  applyTidy() {
    return Promise.resolve({ merged: 0, superseded: [], notes: [] });
  }
  update(id: string, patch: NotePatch, ifMatch?: number) {
    return this.#run(() => {
      const note = this.notes.get(id);
      if (!note) return undefined;
      checkIfMatch(note, ifMatch);
      const next = { ...note, ...(patch.text ? { body: patch.text } : {}), revision: ++this.seq };
      this.notes.set(id, next);
      return next;
    });
  }
  remove(id: string, ifMatch?: number) {
    return this.#run(() => {
      const note = this.notes.get(id);
      if (!note) return undefined;
      checkIfMatch(note, ifMatch);
      this.notes.delete(id);
      this.log.push({ seq: ++this.seq, op: "delete", id, revision: this.seq });
      return note;
    });
  }
  removeMany(selector: CloudDeleteSelector) {
    return this.#run(() => {
      const targets = "ids" in selector
        ? selector.ids.flatMap((id) => this.notes.get(id) ?? [])
        : [...this.notes.values()].filter((n) => n.source?.startsWith(selector.sourcePrefix));
      for (const note of targets) {
        this.notes.delete(note.id);
        this.log.push({ seq: ++this.seq, op: "delete", id: note.id, revision: this.seq });
      }
      const gone = new Set(targets.map((n) => n.id));
      const notFound = "ids" in selector ? selector.ids.filter((id) => !gone.has(id)) : [];
      return { deleted: targets, notFound };
    });
  }
  list() {
    return Promise.resolve({ notes: [...this.notes.values()], total: this.notes.size });
  }
  recall() {
    return Promise.resolve([]);
  }
  changes(since: number, limit: number) {
    const after = this.log.filter((c) => c.seq > since);
    return Promise.resolve({ changes: after.slice(0, limit), hasMore: after.length > limit });
  }
  revision() {
    return Promise.resolve(this.seq);
  }
  stats() {
    return Promise.resolve({ notes: this.notes.size, labels: {}, sources: {}, revision: this.seq });
  }
  async #run<T>(f: () => T): Promise<T> {
    if (this.gate) {
      this.atGate++;
      await this.gate;
      this.atGate--;
    }
    if (this.failNext !== undefined) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    return f();
  }
}

class FakeStore implements CloudStore {
  readonly kind = "file" as const;
  projects = new Map<string, FakeProject>();
  keys = new Map<string, { fingerprint: string; answer?: IdempotentAnswer }>();
  released = 0;
  idempotency = {
    claim: (ws: string, key: string, fingerprint: string): Promise<IdempotencyClaim> => {
      const k = `${ws}/${key}`;
      const held = this.keys.get(k);
      if (!held) {
        this.keys.set(k, { fingerprint });
        return Promise.resolve({ kind: "claimed" });
      }
      if (held.fingerprint !== fingerprint) return Promise.resolve({ kind: "mismatch" });
      return Promise.resolve(
        held.answer ? { kind: "replay", answer: held.answer } : { kind: "pending" },
      );
    },
    complete: (ws: string, key: string, answer: IdempotentAnswer) => {
      this.keys.get(`${ws}/${key}`)!.answer = answer;
      return Promise.resolve();
    },
    purge: () => {
      const n = [...this.keys.values()].filter((k) => k.answer).length;
      for (const [k, v] of this.keys) if (v.answer) this.keys.delete(k);
      return Promise.resolve(n);
    },
    release: (ws: string, key: string) => {
      this.released++;
      this.keys.delete(`${ws}/${key}`);
      return Promise.resolve();
    },
  };
  project(ws: string, p: string): Promise<CloudProject> {
    const k = `${ws}/${p}`;
    if (!this.projects.has(k)) this.projects.set(k, new FakeProject());
    return Promise.resolve(this.projects.get(k)!);
  }
  close() {
    return Promise.resolve();
  }
}

const KEY = "sk-team-0123456789";
const OTHER = "sk-other-0123456789";
const BASE = "http://127.0.0.1:8788/v1/workspaces/team/projects/default";

function setup(options: Partial<MemoCloudHandlerOptions> = {}) {
  const store = new FakeStore();
  const lines: string[] = [];
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: KEY, workspaceId: "team" }, { key: OTHER, workspaceId: "other" }],
    log: (line) => lines.push(line),
    ...options,
  });
  const call = async (
    method: string,
    path: string,
    init: { body?: BodyInit; headers?: Record<string, string>; key?: string | null } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== null) headers.authorization = `Bearer ${init.key ?? KEY}`;
    if (init.body !== undefined) headers["content-type"] ??= "application/json";
    const response = await handler(
      new Request(path.startsWith("http") ? path : `${BASE}${path}`, {
        method,
        headers,
        body: init.body,
      }),
    );
    const text = await response.text();
    return { response, status: response.status, text, json: text ? JSON.parse(text) : undefined };
  };
  return { store, lines, handler, call };
}

Deno.test("handler: public routes answer without a key", async () => {
  const { call } = setup();
  const health = await call("GET", "http://h/v1/health", { key: null });
  assert.equal(health.status, 200);
  assert.equal(health.json.store, "file");
  assert.equal(health.json.status, "ok");
  assert.equal(health.response.headers.get("content-type"), "application/json; charset=utf-8");
  const doc = await call("GET", "http://h/v1/openapi.json", { key: null });
  assert.equal(doc.json.openapi, "3.1.0");
});

Deno.test("handler: 401 without a key, with a wrong key or scheme, with WWW-Authenticate", async () => {
  const { call } = setup();
  for (
    const headers of [{} as Record<string, string>, { authorization: "Bearer nope" }, {
      authorization: `Basic ${KEY}`,
    }, {
      authorization: "Bearer",
    }]
  ) {
    const r = await call("GET", "/stats", { key: null, headers });
    assert.equal(r.status, 401, JSON.stringify(headers));
    assert.equal(r.response.headers.get("www-authenticate"), "Bearer");
    assert.equal(r.json.error.code, "unauthorized");
  }
  const whoami = await call("GET", "http://h/v1/whoami", { key: null });
  assert.equal(whoami.status, 401);
});

Deno.test("handler: the order of checks: route, auth, ids, workspace", async () => {
  const { call } = setup();
  assert.equal((await call("GET", "/nope", { key: null })).status, 404); // route before auth
  assert.equal((await call("PUT", "/stats")).status, 404);
  assert.equal(
    (await call("GET", "http://h/v1/workspaces/BAD/projects/p/stats", { key: null })).status,
    401,
  );
  assert.equal((await call("GET", "http://h/v1/workspaces/BAD/projects/p/stats")).status, 400);
  assert.equal((await call("GET", "http://h/v1/workspaces/team/projects/Bad/stats")).status, 400);
  assert.equal(
    (await call("GET", `http://h/v1/workspaces/team/projects/${"a".repeat(65)}/stats`)).status,
    400,
  );
  assert.equal(
    (await call("GET", `http://h/v1/workspaces/team/projects/${"a".repeat(64)}/stats`)).status,
    200,
  );
  const forbidden = await call("GET", "/stats", { key: OTHER });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.json.error.code, "forbidden");
  const who = await call("GET", "http://h/v1/whoami", { key: OTHER });
  assert.deepEqual(who.json, { workspaceId: "other" });
});

Deno.test("handler: the key in a lower-case bearer scheme still works; whoami takes no query", async () => {
  const { call } = setup();
  const r = await call("GET", "http://h/v1/whoami", {
    key: null,
    headers: { authorization: `bearer ${KEY}` },
  });
  assert.deepEqual(r.json, { workspaceId: "team" });
  assert.equal((await call("GET", "http://h/v1/whoami?x=1")).status, 400);
});

Deno.test("handler: an unexpected store error is a 500 with a generic message, logged without the key", async () => {
  const { call, store, lines } = setup();
  const project = await store.project("team", "default") as FakeProject;
  project.failNext = new Error(`database exploded near ${KEY}`);
  const r = await call("POST", "/notes", {
    body: JSON.stringify({ text: "x" }),
    headers: { "idempotency-key": "k1" },
  });
  assert.equal(r.status, 500);
  assert.equal(r.json.error.code, "internal");
  assert.doesNotMatch(r.text, /exploded/);
  assert.equal(store.released, 1); // a 5xx is not kept
  assert.ok(lines.some((l) => /error POST .*database exploded near \[redacted\]/.test(l)));
  assert.ok(lines.every((l) => !l.includes(KEY)));
  // The retry runs again.
  const retry = await call("POST", "/notes", {
    body: JSON.stringify({ text: "x" }),
    headers: { "idempotency-key": "k1" },
  });
  assert.equal(retry.status, 201);
  assert.equal(retry.response.headers.get("idempotent-replayed"), null);
});

Deno.test("handler: a repeat waits for the running first write, then replays its answer", async () => {
  const { call, store } = setup();
  const project = await store.project("team", "default") as FakeProject;
  let open!: () => void;
  project.gate = new Promise((resolve) => (open = resolve));
  const init = { body: JSON.stringify({ text: "slow" }), headers: { "idempotency-key": "k" } };
  const first = call("POST", "/notes", init);
  await until(() => project.atGate === 1, "the first write to reach the store");
  const second = call("POST", "/notes", init);
  await new Promise((r) => setTimeout(r, 30)); // the repeat is waiting (or replays after: alike)
  open();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.status, 201);
  assert.equal(b.status, 201);
  assert.equal(b.text, a.text);
  assert.equal(b.response.headers.get("idempotent-replayed"), "true");
  assert.equal(project.notes.size, 1);
});

Deno.test("handler: a repeat that waits too long answers 409 in_progress", async () => {
  const { call, store } = setup({ idempotencyWaitMs: 50 });
  const project = await store.project("team", "default") as FakeProject;
  let open!: () => void;
  project.gate = new Promise((resolve) => (open = resolve));
  const init = { body: JSON.stringify({ text: "slow" }), headers: { "idempotency-key": "k" } };
  const first = call("POST", "/notes", init);
  await until(() => project.atGate === 1, "the first write to reach the store");
  const second = await call("POST", "/notes", init);
  assert.equal(second.status, 409);
  assert.deepEqual(second.json.error.details, { reason: "in_progress" });
  open();
  assert.equal((await first).status, 201);
});

Deno.test("handler: validation of the store is a 400; a conflict is a 409 with the note", async () => {
  const { call } = setup();
  const empty = await call("POST", "/notes", {
    body: JSON.stringify({ text: " " }),
    headers: { "idempotency-key": "e" },
  });
  assert.equal(empty.status, 400);
  assert.match(empty.json.error.message, /text is empty/);
  const created = await call("POST", "/notes", {
    body: JSON.stringify({ text: "a" }),
    headers: { "idempotency-key": "c" },
  });
  const { note } = created.json;
  const conflict = await call("PATCH", `/notes/${note.id}`, {
    body: JSON.stringify({ text: "b" }),
    headers: { "idempotency-key": "p", "if-match": `"${note.revision + 5}"` },
  });
  assert.equal(conflict.status, 409);
  assert.deepEqual(conflict.json.error.details.note, note);
});

Deno.test("handler: the log has one line per request in the documented format; levels filter it", async () => {
  const clock = () => new Date("2026-01-01T00:00:00.000Z");
  const { call, lines } = setup({ clock });
  await call("GET", "/stats");
  await call("GET", "/stats?bad=1");
  assert.deepEqual(lines, [
    "memo-cloud: 2026-01-01T00:00:00.000Z GET /v1/workspaces/team/projects/default/stats 200 0ms",
    "memo-cloud: 2026-01-01T00:00:00.000Z GET /v1/workspaces/team/projects/default/stats 400 0ms",
  ]);
  const warn = setup({ logLevel: "warn" });
  await warn.call("GET", "/stats");
  await warn.call("GET", "/nope");
  assert.equal(warn.lines.length, 1);
  assert.match(warn.lines[0], / 404 \d+ms$/);
  const error = setup({ logLevel: "error" });
  await error.call("GET", "/nope");
  assert.equal(error.lines.length, 0);
});

Deno.test("handler: bad options throw at once without echoing a key", () => {
  const store = new FakeStore();
  assert.throws(() => createMemoCloudHandler({ store, apiKeys: [] }), /no API key/);
  assert.throws(
    () => createMemoCloudHandler({ store, apiKeys: new Map([["secret-1", "Bad Id"]]) }),
    (e: Error) => /API key 1: its workspace id/.test(e.message) && !e.message.includes("secret-1"),
  );
  assert.throws(
    () =>
      createMemoCloudHandler({
        store,
        apiKeys: [{ key: "secret-1", workspaceId: "a" }, { key: "secret-1", workspaceId: "b" }],
      }),
    (e: Error) => /API key 2: it repeats key 1/.test(e.message) && !e.message.includes("secret-1"),
  );
  assert.throws(
    () => createMemoCloudHandler({ store, apiKeys: [{ key: "a b", workspaceId: "a" }] }),
    /API key 1: a key is visible ASCII/,
  );
  assert.throws(
    () =>
      createMemoCloudHandler({ store, apiKeys: [{ key: "k", workspaceId: "a" }], rateLimit: -1 }),
    /rateLimit must be an integer/,
  );
});

Deno.test("handler: a log sink that throws does not fail the request", async () => {
  const store = new FakeStore();
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: KEY, workspaceId: "team" }],
    log: () => {
      throw new Error("sink");
    },
  });
  const r = await handler(new Request("http://h/v1/health"));
  assert.equal(r.status, 200);
  await r.body?.cancel();
});
