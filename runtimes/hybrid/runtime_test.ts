/**
 * The hybrid runtime against an in-process Cloud API (the reference handler
 * over a file store, reached through an injected `fetch`): push, pull,
 * identity, conflicts, update against forget, outside edits, a cloud that is
 * down, and the state it keeps in `.memo/replica/`.
 */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FileMemoryStore, newNoteId } from "@memo/memory";
import { createMemoCloudHandler } from "../../cloud/app.ts";
import { FileCloudStore } from "../../cloud/file/store.ts";
import { MemoCloudClient, type MemoCloudNote } from "../cloud/client.ts";
import { createMemoHybridMcpRuntime, type MemoHybridMcpRuntime } from "./runtime.ts";
import { createHybridRuntime } from "./_built_runtime.ts";
import type { Replicator } from "./_replicator.ts";
import type { MemoMcpRuntime, Note } from "../types.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";
import { pageCounter } from "../../testing/pages.ts";

const KEY = "mk_hybrid_unit_key_8c1f";

interface Cloud {
  /** Whether requests get through (false: connection refused). */
  up: boolean;
  /** Whether requests hang until their signal aborts (a cloud that never answers). */
  hang?: boolean;
  /** The next request of this method lands, then its answer is lost and the cloud goes down. */
  loseAnswerOf?: string;
  requests: string[];
  fetch: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
  client(): MemoCloudClient;
  notes(): Promise<MemoCloudNote[]>;
  machine(rootDir: string, extra?: Record<string, unknown>): MemoHybridMcpRuntime;
  close(): Promise<void>;
}

async function startCloud(): Promise<Cloud> {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-hybrid-cloud-" });
  const handler = createMemoCloudHandler({
    store: new FileCloudStore({ dataDir }),
    apiKeys: new Map([[KEY, "team"]]),
    rateLimit: 0,
  });
  const runtimes: MemoHybridMcpRuntime[] = [];
  const dirs: string[] = [];
  const cloud: Cloud = {
    up: true,
    requests: [],
    fetch(input, init) {
      const request = new Request(input, init);
      if (!cloud.up) return Promise.reject(new TypeError("connection refused"));
      if (cloud.hang) {
        return new Promise((_, reject) =>
          request.signal.addEventListener("abort", () => reject(request.signal.reason))
        );
      }
      cloud.requests.push(`${request.method} ${new URL(request.url).pathname}`);
      if (cloud.loseAnswerOf === request.method) {
        cloud.loseAnswerOf = undefined;
        return handler(request).then(() => {
          cloud.up = false;
          throw new TypeError("connection reset");
        });
      }
      return handler(request);
    },
    client() {
      return new MemoCloudClient({
        baseUrl: "http://cloud.test",
        apiKey: KEY,
        workspaceId: "team",
        fetch: cloud.fetch,
      });
    },
    async notes() {
      const client = cloud.client();
      const out: MemoCloudNote[] = [];
      let cursor: string | undefined;
      const nextPage = pageCounter("the pages of client.list()");
      do {
        nextPage();
        const page = await client.list({ cursor, limit: 100 });
        out.push(...page.notes);
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    },
    machine(rootDir, extra = {}) {
      dirs.push(rootDir);
      const runtime = createMemoHybridMcpRuntime({
        rootDir,
        baseUrl: "http://cloud.test",
        apiKey: KEY,
        workspaceId: "team",
        fetch: cloud.fetch,
        retry: { maxRetries: 0 },
        pullIntervalMs: 60_000,
        prewarm: false,
        // No embedding model loading in the background unless a test injects one.
        localEmbeddings: false,
        ...extra,
      });
      runtimes.push(runtime);
      return runtime;
    },
    async close() {
      for (const r of runtimes) await r.close();
      for (const d of [dataDir, ...dirs]) await Deno.remove(d, { recursive: true }).catch(() => {});
    },
  };
  return cloud;
}

async function allNotes(runtime: MemoHybridMcpRuntime): Promise<Note[]> {
  const out: Note[] = [];
  let cursor: string | undefined;
  const nextPage = pageCounter("the pages of runtime.list()");
  do {
    nextPage();
    const page = await runtime.list({ cursor, limit: 100 });
    out.push(...page.notes);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

const strip = ({ revision: _r, ...note }: MemoCloudNote): Note => note;
const byId = (a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1;

/**
 * Replicates until nothing moves in two rounds running (at most 8 rounds). One quiet round is
 * not enough: a `replicate()` that waited for a background push still running reports only its
 * own cycle (nothing pushed), and the other machine pulls that push only in the next round.
 */
async function settle(...machines: MemoHybridMcpRuntime[]): Promise<void> {
  let quiet = 0;
  for (let round = 0; round < 8 && quiet < 2; round++) {
    let moved = 0;
    for (const m of machines) {
      const r = await m.replicate();
      moved += r.pushed + r.pulled + r.outbox;
    }
    quiet = moved ? 0 : quiet + 1;
  }
}

test("hybrid: notes written on two machines end identical on both and in the cloud", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir());
    for (let i = 0; i < 30; i++) {
      await a.remember({ text: `A note ${i}`, labels: ["a"] });
      await b.remember({ text: `B note ${i}` });
    }
    // The same sentence on both while apart, and the same source key: one note each.
    await a.remember({ text: "Shared sentence" });
    await b.remember({ text: "Shared sentence" });
    await a.remember({ text: "Discussion 42 v1", source: "github:acme/app/discussions/42" });
    await b.remember({ text: "Discussion 42 v1", source: "github:acme/app/discussions/42" });
    const first = await a.replicate(); // after the background push the writes started
    assert.equal(first.outbox, 0);
    await settle(a, b);
    const inCloud = (await cloud.notes()).map(strip).sort(byId);
    assert.equal(inCloud.length, 62);
    assert.deepEqual((await allNotes(a)).sort(byId), inCloud);
    assert.deepEqual((await allNotes(b)).sort(byId), inCloud);
    const stats = await b.stats();
    assert.equal(stats.replica?.outbox, 0);
    assert.ok(stats.replica?.lastPush && stats.replica.lastPull);
    assert.equal(typeof stats.replica?.lagMs, "number");
    assert.equal(stats.replica?.error, undefined);
  } finally {
    await cloud.close();
  }
});

test("hybrid: lists newest first with order, paging by cursor, from its local copy", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    for (let i = 0; i < 5; i++) await a.remember({ text: `Note number ${i}` });
    const requests = cloud.requests.length;
    const titles: string[] = [];
    let cursor: string | undefined;
    const nextPage = pageCounter("the pages of a.list()");
    do {
      nextPage();
      const page = await a.list({ limit: 2, cursor, order: "newest" });
      assert.equal(page.total, 5);
      titles.push(...page.notes.map((n) => n.title));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(titles, [4, 3, 2, 1, 0].map((i) => `Note number ${i}`));
    const listed = cloud.requests.slice(requests).filter((r) =>
      r.startsWith("GET") && r.endsWith("/notes")
    );
    assert.deepEqual(listed, [], "lists are read locally");
  } finally {
    await cloud.close();
  }
});

test("hybrid: a concurrent update on two machines keeps the later one and a conflict copy", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir());
    const { note } = await a.remember({ text: "Deploys run on Fridays", labels: ["ops"] });
    await settle(a, b);
    await a.update(note.id, { text: "Deploys run on Mondays" });
    await new Promise((r) => setTimeout(r, 5));
    await b.update(note.id, { text: "Deploys run on Tuesdays" }); // later: wins
    await settle(a, b);
    const inCloud = (await cloud.notes()).map(strip).sort(byId);
    assert.equal(inCloud.length, 2);
    const winner = inCloud.find((n) => n.id === note.id)!;
    assert.equal(winner.body, "Deploys run on Tuesdays");
    const copy = inCloud.find((n) => n.id !== note.id)!;
    assert.deepEqual(copy.labels, ["conflict", "ops"]);
    assert.equal(copy.source, undefined);
    assert.equal(copy.body, `Conflict: superseded by ${note.id}\n\nDeploys run on Mondays`);
    assert.deepEqual((await allNotes(a)).sort(byId), inCloud);
    assert.deepEqual((await allNotes(b)).sort(byId), inCloud);
    const conflicts = (await a.stats()).replica!.conflicts + (await b.stats()).replica!.conflicts;
    assert.equal(conflicts, 1);
  } finally {
    await cloud.close();
  }
});

for (const first of ["forget", "update"] as const) {
  test(`hybrid: an update wins over a forget (${first} replicated first)`, async () => {
    const cloud = await startCloud();
    try {
      const a = cloud.machine(await Deno.makeTempDir());
      const b = cloud.machine(await Deno.makeTempDir());
      const { note } = await a.remember({ text: "Rotate keys yearly" });
      await settle(a, b);
      await a.forget(note.id);
      await b.update(note.id, { text: "Rotate keys every 90 days" });
      if (first === "forget") await a.replicate();
      else await b.replicate();
      await settle(a, b);
      const inCloud = (await cloud.notes()).map(strip);
      assert.deepEqual(inCloud.map((n) => [n.id, n.body]), [[
        note.id,
        "Rotate keys every 90 days",
      ]]);
      assert.deepEqual(await allNotes(a), inCloud);
      assert.deepEqual(await allNotes(b), inCloud);
    } finally {
      await cloud.close();
    }
  });
}

test("hybrid: hand edits and hand deletes in notes.md reach the other machine", async () => {
  const cloud = await startCloud();
  try {
    const dirA = await Deno.makeTempDir();
    const a = cloud.machine(dirA);
    const b = cloud.machine(await Deno.makeTempDir());
    const { note: kept } = await a.remember({ text: "Staging is db-stage-2" });
    const { note: gone } = await a.remember({ text: "Old runbook link" });
    await settle(a, b);
    const path = join(dirA, ".memo", "memory", "notes.md");
    let text = await readFile(path, "utf8");
    text = text.replace("Staging is db-stage-2\n\n", "Staging is db-stage-3\n\n");
    const start = text.indexOf(`<!-- memo:note {"id":"${gone.id}"`);
    assert.ok(start > 0);
    const next = text.indexOf("<!-- memo:note", start + 1);
    text = text.slice(0, start) + (next < 0 ? "" : text.slice(next));
    await writeFile(path, text);
    await settle(a, b);
    const onB = await allNotes(b);
    assert.deepEqual(onB.map((n) => [n.id, n.body]), [[kept.id, "Staging is db-stage-3"]]);
    assert.deepEqual((await cloud.notes()).map((n) => n.body), ["Staging is db-stage-3"]);
  } finally {
    await cloud.close();
  }
});

test("hybrid: notes.md with git's conflict markers: replicate neither pushes nor pulls until resolved", async () => {
  const cloud = await startCloud();
  try {
    const dir = await Deno.makeTempDir();
    const a = cloud.machine(dir);
    const { note } = await a.remember({ text: "Deploys run with make deploy" });
    await a.replicate();
    // A text merge of two branches that each remembered a note: one full run of markers.
    const path = join(dir, ".memo", "memory", "notes.md");
    const section = (text: string) =>
      `<!-- memo:note {"id":"${newNoteId(new Date())}","labels":[],` +
      `"created":"2026-01-01T00:00:00.000Z"} -->\n## ${text}\n${text}\n\n`;
    const conflicted = (await readFile(path, "utf8")) + "<<<<<<< HEAD\n" +
      section("alice says the cache is redis") + "=======\n" +
      section("bob says the queue is kafka") + ">>>>>>> bob\n";
    await writeFile(path, conflicted);
    const refused = (e: unknown) => {
      const error = e as { code?: string; message?: string };
      assert.equal(error.code, "CONFLICT");
      assert.match(error.message ?? "", /memo resolve/);
      return true;
    };
    const inCloud = await cloud.notes();
    // The merged notes are readable, but none is pushed.
    await assert.rejects(a.replicate(), refused);
    assert.deepEqual(await cloud.notes(), inCloud);
    // A note changed in the cloud meanwhile is not pulled.
    await cloud.client().update(note.id, { text: "Deploys run with make ship" });
    const changed = await cloud.notes();
    await assert.rejects(a.replicate(), refused);
    assert.deepEqual(await cloud.notes(), changed);
    assert.equal(await readFile(path, "utf8"), conflicted); // byte for byte
    assert.match((await a.stats()).replica!.error!, /memo resolve/);
    // `memo resolve` writes the merge; replication goes on both ways.
    assert.equal((await new FileMemoryStore({ rootDir: dir }).resolveMerge())?.hunks, 1);
    await a.replicate();
    const bodies = (await cloud.notes()).map((n) => n.body).sort();
    assert.deepEqual(bodies, [
      "Deploys run with make ship",
      "alice says the cache is redis",
      "bob says the queue is kafka",
    ]);
    assert.deepEqual((await allNotes(a)).map((n) => n.body).sort(), bodies);
    assert.ok(!(await readFile(path, "utf8")).includes("<<<<<<<"));
  } finally {
    await cloud.close();
  }
});

test("hybrid: writes succeed while the cloud is down and go out when it is back", async () => {
  const cloud = await startCloud();
  try {
    cloud.up = false;
    const dir = await Deno.makeTempDir();
    const a = cloud.machine(dir, { closeDrainMs: 30_000 });
    await a.remember({ text: "Written offline" });
    await assert.rejects(a.replicate(), /connection refused/);
    const down = (await a.stats()).replica!;
    assert.equal(down.outbox, 1);
    assert.match(down.error!, /connection refused/);
    const started = performance.now();
    await a.close(); // a refused connection ends the drain at once
    const took = performance.now() - started;
    assert.ok(took < 10_000, `close took ${took.toFixed(0)} ms (closeDrainMs 30 s)`);
    cloud.up = true;
    const again = cloud.machine(dir);
    const result = await again.replicate();
    assert.deepEqual(result, { pushed: 1, pulled: 0, conflicts: 0, outbox: 0 });
    assert.equal((await again.stats()).replica!.error, undefined);
    assert.deepEqual((await cloud.notes()).map((n) => n.body), ["Written offline"]);
    const state = await readFile(join(dir, ".memo", "replica", "state.jsonl"), "utf8");
    assert.ok(!state.includes(KEY));
    assert.equal(
      await readFile(join(dir, ".memo", "replica", ".gitignore"), "utf8").then((t) =>
        t.trim().endsWith("*")
      ),
      true,
    );
  } finally {
    await cloud.close();
  }
});

test("hybrid: an edit made after a push whose answer was lost is pushed, not undone by its echo", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    await a.replicate();
    cloud.loseAnswerOf = "POST"; // the note's push lands in the cloud; its answer never comes
    const { note } = await a.remember({ text: "Staging DB is db-stage-2" });
    await a.replicate().catch(() => {});
    assert.equal(cloud.up, false, "the push went out and its answer was lost");
    await a.update(note.id, { text: "Staging DB is db-stage-3" }); // offline, after the push
    cloud.up = true;
    await settle(a);
    assert.deepEqual((await allNotes(a)).map((n) => n.body), ["Staging DB is db-stage-3"]);
    assert.deepEqual((await cloud.notes()).map((n) => n.body), ["Staging DB is db-stage-3"]);
    assert.equal((await a.stats()).replica!.outbox, 0);
  } finally {
    await cloud.close();
  }
});

test("hybrid: close({ drainMs }) pushes for no longer than asked (a server's last second)", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir(), { closeDrainMs: 30_000 });
    await a.remember({ text: "Pushed while the cloud answers" });
    await a.replicate();
    cloud.hang = true;
    await a.remember({ text: "Waiting for a cloud that never answers" });
    assert.equal((await a.stats()).replica!.outbox, 1);
    const started = performance.now();
    await a.close({ drainMs: 100 });
    const took = performance.now() - started;
    // 100 ms and the abort, not closeDrainMs' 30 s: the bound leaves a loaded machine slack.
    assert.ok(
      took < 10_000,
      `close took ${took.toFixed(0)} ms with drainMs 100 (closeDrainMs 30 s)`,
    );
  } finally {
    cloud.hang = false;
    await cloud.close();
  }
});

test("hybrid: pulled changes fire watch", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir());
    const seen: string[] = [];
    const stop = b.watch((change) => seen.push(...change.ids));
    const { note } = await a.remember({ text: "Heard on B" });
    await a.replicate();
    await b.replicate();
    stop();
    assert.ok(seen.includes(note.id));
  } finally {
    await cloud.close();
  }
});

test("hybrid: recall.includeCloud merges the cloud's hits, marked origin cloud", async () => {
  const cloud = await startCloud();
  try {
    // B's pulls can be held: a cycle that B's start or write asked for may follow the
    // replicate below at any time, and must not bring A's note in before the recall.
    let holdPulls = false;
    const held: (() => void)[] = [];
    const fetchOfB = (input: Request | URL | string, init?: RequestInit) => {
      const request = new Request(input, init);
      const pull = request.method === "GET" && new URL(request.url).pathname.endsWith("/changes");
      if (!holdPulls || !pull) return cloud.fetch(request);
      return new Promise<void>((resolve, reject) => {
        held.push(resolve);
        request.signal.addEventListener("abort", () => reject(request.signal.reason));
      }).then(() => cloud.fetch(request));
    };
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir(), { includeCloud: true, fetch: fetchOfB });
    await b.remember({ text: "The production database is db-prod-1" });
    await b.replicate();
    holdPulls = true;
    // Written by A after B's last pull: only the cloud has it.
    await a.remember({ text: "The staging database is db-stage-2" });
    await a.replicate();
    const hits = await b.recall("database", { limit: 10 });
    holdPulls = false;
    for (const release of held.splice(0)) release();
    assert.deepEqual(
      hits.map((h) => [h.note.body, h.origin]).sort(),
      [["The production database is db-prod-1", undefined], [
        "The staging database is db-stage-2",
        "cloud",
      ]],
    );
  } finally {
    await cloud.close();
  }
});

test("hybrid: recallDetailed says the local engine and the coverage; embed embeds the local notes", async () => {
  const cloud = await startCloud();
  // A deterministic embedder: one dimension per word of interest.
  const words = ["database", "production", "staging"];
  const embedder = {
    model: "toy",
    dimensions: words.length + 1,
    embed: (texts: readonly string[]) =>
      Promise.resolve(texts.map((t) => {
        const v = new Float32Array([...words.map((w) => t.includes(w) ? 1 : 0), 0.1]);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      })),
  };
  try {
    const b = cloud.machine(await Deno.makeTempDir(), {
      includeCloud: true,
      embedder,
      embedInBackground: false,
    });
    await b.remember({ text: "The production database is db-prod-1" });
    assert.deepEqual(await b.embed(), { model: "toy", embedded: 1, total: 1, computed: 1 });
    await b.remember({ text: "The staging database is db-stage-2" });
    const hybrid = await b.recallDetailed("database", { limit: 10, engine: "hybrid" });
    assert.equal(hybrid.engine, "hybrid");
    assert.deepEqual(hybrid.coverage, { embedded: 1, total: 2 });
    const lexical = await b.recallDetailed("database", { limit: 10, engine: "lexical" });
    assert.equal(lexical.engine, "lexical");
    assert.equal(lexical.hits.length, 2);
    const { embeddings } = await b.stats();
    assert.equal(embeddings.model, "toy");
    assert.equal(embeddings.embedded, 1);
  } finally {
    await cloud.close();
  }
});

test("hybrid: cloud hits join a lexical recall by score, a vector or hybrid one by rank", async () => {
  const note = (id: string): Note => ({
    id,
    title: id,
    body: id,
    labels: [],
    hash: id,
    created: "2026-01-01T00:00:00.000Z",
    updated: "2026-01-01T00:00:00.000Z",
  });
  const local = (engine: "lexical" | "hybrid") =>
    ({
      kind: "local",
      recallDetailed: () =>
        Promise.resolve({
          engine,
          coverage: { embedded: 2, total: 2 },
          hits: [
            { note: note("l1"), score: 0.033, engine, matched: [] },
            { note: note("l2"), score: 0.016, engine, matched: [] },
          ],
        }),
    }) as unknown as MemoMcpRuntime;
  const client = {
    recall: () =>
      Promise.resolve([
        { note: { ...note("c1"), revision: 1 }, score: 4.2, engine: "lexical", matched: [] },
        { note: { ...note("l1"), revision: 1 }, score: 3.9, engine: "lexical", matched: [] },
        { note: { ...note("c2"), revision: 1 }, score: 1.5, engine: "lexical", matched: [] },
      ]),
  } as unknown as MemoCloudClient;
  const replicator = { start() {}, kick() {} } as unknown as Replicator;
  const settings = { includeCloud: true, drainMs: 0 };
  const ids = async (engine: "lexical" | "hybrid", limit: number) =>
    (await createHybridRuntime(local(engine), replicator, () => client, settings).recallDetailed(
      "q",
      { limit },
    )).hits.map((h) => `${h.note.id}${h.origin === "cloud" ? "@cloud" : ""}`);
  // Lexical on both sides: one scale, ordered by score (l1 is already local).
  assert.deepEqual(await ids("lexical", 10), ["c1@cloud", "c2@cloud", "l1", "l2"]);
  // Fused scores are on another scale: interleaved by rank, local first.
  assert.deepEqual(await ids("hybrid", 10), ["l1", "c1@cloud", "l2", "c2@cloud"]);
  assert.deepEqual(await ids("hybrid", 3), ["l1", "c1@cloud", "l2"]);
});

test("hybrid: rememberMany and forgetMany reach the cloud and the other machine", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir());
    const changes: string[][] = [];
    a.watch((change) => void changes.push(change.ids));
    const drafts = Array.from({ length: 12 }, (_, i) => ({
      text: `Imported ${i}`,
      source: `server-memory:e${i}`,
    }));
    const result = await a.rememberMany(drafts);
    assert.equal(result.written.length, 12);
    assert.deepEqual(changes.at(-1)?.sort(), result.written.map((n) => n.id).sort());
    await settle(a, b);
    assert.equal((await cloud.notes()).length, 12);
    assert.equal((await allNotes(b)).length, 12);
    const gone = result.written.slice(0, 5).map((n) => n.id);
    const forgotten = await a.forgetMany([...gone, "01unknownid0000000000000000"]);
    assert.deepEqual(forgotten.map((n) => n.id), gone);
    assert.deepEqual(changes.at(-1), gone);
    await settle(a, b);
    const left = result.written.slice(5).map((n) => n.id).sort();
    assert.deepEqual((await cloud.notes()).map((n) => n.id).sort(), left);
    assert.deepEqual((await allNotes(b)).map((n) => n.id).sort(), left);
  } finally {
    await cloud.close();
  }
});

Deno.test("hybrid: a correction and a supersede on A are seen on B; corrections apart both land", async () => {
  const cloud = await startCloud();
  try {
    const a = cloud.machine(await Deno.makeTempDir());
    const b = cloud.machine(await Deno.makeTempDir());
    const { note: old } = await a.remember({ text: "Deploys run on Fridays", labels: ["ops"] });
    const { note: twin } = await a.remember({ text: "Staging lives in eu-west-1" });
    const { note: keep } = await a.remember({ text: "The staging environment is in eu-west-1" });
    await settle(a, b);
    const { note: fixed } = await a.correct!({ id: old.id, text: "Deploys run on Mondays" });
    await a.supersede!({ ids: [twin.id], by: keep.id });
    await settle(a, b);
    // B sees the chain both ways, the filters and the old note's end of validity.
    assert.deepEqual((await b.recall("deploys run", { limit: 5 })).map((h) => h.note.id), [
      fixed.id,
    ]);
    assert.deepEqual((await b.get(fixed.id)).supersedes, [old.id]);
    const gone = await b.get(old.id);
    assert.deepEqual(gone.supersededBy, [fixed.id]);
    assert.equal(typeof gone.validUntil, "string");
    assert.deepEqual((await b.get(twin.id)).supersededBy, [keep.id]);
    const current = (await b.list({ limit: 100 })).notes.map((n) => n.id).sort();
    assert.deepEqual(current, [fixed.id, keep.id].sort());
    const history = await b.list({ limit: 100, includeSuperseded: true });
    assert.equal(history.total, 4);
    const before = new Date(Date.parse(fixed.created) - 1).toISOString();
    const then = await b.recall("deploys run", { limit: 5, asOf: before });
    assert.deepEqual(then.map((h) => h.note.id), [old.id]);
    // Both machines correct the same note while apart: both corrections land, each superseding
    // it; its two versions differ only in their end of validity, so the earlier end is kept and
    // no conflict copy is made (one would bring the superseded fact back as a live note).
    const x = await a.correct!({ id: fixed.id, text: "Deploys run on Tuesdays" });
    const y = await b.correct!({ id: fixed.id, text: "Deploys run on Wednesdays" });
    await settle(a, b);
    for (const m of [a, b]) {
      assert.deepEqual((await m.get(fixed.id)).supersededBy?.sort(), [x.note.id, y.note.id].sort());
    }
    const everything = async (m: MemoMcpRuntime) =>
      (await m.list({ limit: 100, includeSuperseded: true })).notes.sort(byId);
    assert.equal((await everything(a)).length, 6);
    assert.ok((await everything(a)).every((n) => !n.labels.includes("conflict")));
    assert.deepEqual(await everything(a), await everything(b));
    // The cloud lists the current notes (superseded ones are hidden there too).
    const shown = (await allNotes(a)).sort(byId);
    assert.deepEqual(shown, (await cloud.notes()).map(strip).sort(byId));
  } finally {
    await cloud.close();
  }
});
