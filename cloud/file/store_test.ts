import assert from "node:assert/strict";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MemoryValidationError } from "@memo/memory";
import { CloudConflictError, type CloudProject } from "../store.ts";
import { FileCloudStore, FileIdempotencyStore, FileRevisionedStore } from "./store.ts";
import { IDEMPOTENCY_TTL_MS, PENDING_CLAIM_MS } from "./_idempotency.ts";
import { readJournal } from "./_journal.ts";
import { pageCounter } from "../../testing/pages.ts";

async function withStore(
  fn: (store: FileCloudStore, dataDir: string, clock: { now: number }) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "memo_cloud_file_" });
  const clock = { now: Date.parse("2026-01-01T00:00:00.000Z") };
  const store = new FileCloudStore({ dataDir, clock: () => new Date(clock.now) });
  try {
    await fn(store, dataDir, clock);
  } finally {
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** Saves a file as editors do: a new file renamed over the old one. */
async function saveAs(path: string, text: string): Promise<void> {
  await writeFile(`${path}.edit`, text);
  await rename(`${path}.edit`, path);
}

async function allChanges(project: CloudProject, since = 0) {
  const out = [];
  const nextPage = pageCounter("the pages of project.changes()");
  for (;;) {
    nextPage();
    const page = await project.changes(since, 2);
    out.push(...page.changes);
    if (!page.hasMore) return out;
    since = page.changes[page.changes.length - 1].seq;
  }
}

Deno.test("FileCloudStore: a project never written reads empty and creates nothing", async () => {
  await withStore(async (store, dataDir) => {
    const project = await store.project("team", "empty");
    assert.deepEqual(await project.list({ limit: 10 }), { notes: [], total: 0 });
    assert.deepEqual(await project.stats(), { notes: 0, labels: {}, sources: {}, revision: 0 });
    assert.deepEqual(await project.changes(0, 10), { changes: [], hasMore: false });
    assert.deepEqual(await project.recall("anything", { limit: 5 }), []);
    assert.equal(await project.get("nope"), undefined);
    await assert.rejects(stat(join(dataDir, "team")), { code: "ENOENT" });
    assert.equal(store.kind, "file");
    // Handles are cheap; every handle of a project uses the one the store holds.
    await (await store.project("team", "empty")).stats();
    assert.equal(store.stats().index.projects, 1, "one project held");
    await assert.rejects(store.project("team", "../x"), MemoryValidationError);
    await assert.rejects(store.project("Team", "p"), MemoryValidationError);
  });
});

Deno.test("upsert: identity dedupe, canonical ids, one result per draft in order", async () => {
  await withStore(async (store, dataDir) => {
    const project = await store.project("team", "p");
    const source = "github:acme/app/discussions/1";
    const first = await project.upsert([
      { text: "alpha" },
      { text: "beta", source },
      { text: "alpha" }, // the same identity twice in a batch: one note, counted once
    ]);
    assert.deepEqual(first.map((r) => r.status), ["written", "written", "unchanged"]);
    assert.deepEqual(first[2].note, first[0].note);
    assert.ok(first[0].note.revision > 0 && first[1].note.revision > 0);
    const second = await project.upsert([
      { text: "gamma", labels: ["x"] },
      { text: "beta v2", source },
      { text: "alpha", id: "ignored-id" },
    ]);
    assert.deepEqual(second.map((r) => r.status), ["written", "updated", "unchanged"]);
    assert.equal(second[1].note.id, first[1].note.id, "same source: the canonical id");
    assert.equal(second[1].note.body, "beta v2");
    assert.ok(second[1].note.revision > first[1].note.revision);
    assert.equal(second[2].note.id, first[0].note.id, "same content: the canonical id");
    assert.equal(second[2].note.revision, first[0].note.revision, "unchanged keeps its revision");
    assert.equal(await project.get("ignored-id"), undefined);
    assert.equal((await project.stats()).notes, 3);
    const notes = await readFile(join(dataDir, "team", "p", "notes.md"), "utf8");
    assert.ok(notes.includes("beta v2") && notes.includes("gamma"));
  });
});

Deno.test("upsert: a draft id names a new note; a held id gives a fresh one", async () => {
  await withStore(async (store) => {
    const project = await store.project("team", "p");
    const [a] = await project.upsert([{ id: "replica-a", text: "from a replica" }]);
    assert.equal(a.note.id, "replica-a");
    assert.equal((await project.get("replica-a"))?.body, "from a replica");
    const [b] = await project.upsert([{ id: "replica-a", text: "another note" }]);
    assert.equal(b.status, "written");
    assert.notEqual(b.note.id, "replica-a");
  });
});

Deno.test("upsert: one bad draft refuses the batch, with its index, and stores nothing", async () => {
  await withStore(async (store, dataDir) => {
    const project = await store.project("team", "p");
    await project.upsert([{ text: "kept" }]);
    const before = await readFile(join(dataDir, "team", "p", "notes.md"), "utf8");
    const revision = (await project.stats()).revision;
    for (
      const [drafts, index] of [
        [[{ text: "fine" }, { text: "  " }], 1],
        [[{ text: "fine" }, { text: "x", id: "Bad Id" }], 1],
        [[{ text: "x", created: "not a time" }], 0],
      ] as const
    ) {
      await assert.rejects(
        project.upsert(drafts),
        (e: unknown) => e instanceof MemoryValidationError && e.details?.index === index,
      );
    }
    assert.equal(await readFile(join(dataDir, "team", "p", "notes.md"), "utf8"), before);
    assert.equal((await project.stats()).revision, revision);
    assert.equal((await project.stats()).notes, 1);
  });
});

Deno.test("revisions increase strictly; a patch that changes nothing keeps the revision", async () => {
  await withStore(async (store) => {
    const project = await store.project("team", "p");
    const [{ note }] = await project.upsert([{ text: "Deploys run on Fridays" }]);
    const seen = [note.revision];
    const a = await project.update(note.id, { labels: ["ops"] });
    seen.push(a!.revision);
    const same = await project.update(note.id, { labels: ["ops"] });
    assert.equal(same!.revision, a!.revision);
    assert.deepEqual(same, a);
    const b = await project.update(note.id, { text: "Deploys run on Mondays" }, a!.revision);
    seen.push(b!.revision);
    const [{ note: other }] = await project.upsert([{ text: "other" }]);
    seen.push(other.revision);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `${seen}`);
    assert.equal((await project.get(note.id))?.revision, b!.revision);
    assert.equal((await project.stats()).revision, other.revision);
    assert.equal(await project.update("missing", { text: "x" }), undefined);
    await assert.rejects(project.update(note.id, {}), MemoryValidationError);
    await assert.rejects(project.update(note.id, { text: " " }), MemoryValidationError);
  });
});

Deno.test("ifMatch: update and remove refuse a moved-on revision with the current note", async () => {
  await withStore(async (store) => {
    const project = await store.project("team", "p");
    const [{ note }] = await project.upsert([{ text: "v1" }]);
    const moved = await project.update(note.id, { text: "v2" }, note.revision);
    assert.equal(moved!.body, "v2");
    for (
      const attempt of [
        () => project.update(note.id, { text: "v3" }, note.revision),
        () => project.remove(note.id, note.revision),
      ]
    ) {
      await assert.rejects(attempt(), (e: unknown) => {
        assert.ok(e instanceof CloudConflictError);
        assert.deepEqual(e.current, moved);
        return true;
      });
    }
    assert.equal((await project.get(note.id))?.body, "v2", "nothing changed");
    const removed = await project.remove(note.id, moved!.revision);
    assert.deepEqual(removed, moved, "the note as it was");
    assert.equal(await project.get(note.id), undefined);
    assert.equal(await project.remove(note.id), undefined);
    assert.equal(await project.update(note.id, { text: "x" }, 1), undefined, "unknown id first");
  });
});

Deno.test("changes: ordered by seq, latest entry per note, tombstones, resumable, paged", async () => {
  await withStore(async (store) => {
    const project = await store.project("team", "p");
    const [a, b, c] = await project.upsert([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const mid = (await project.stats()).revision;
    const a2 = await project.update(a.note.id, { text: "a2" });
    const gone = await project.remove(b.note.id);
    const [d] = await project.upsert([{ text: "d" }]);
    const all = await allChanges(project);
    assert.deepEqual(
      all.map((ch) => [ch.op, ch.id]),
      [["upsert", c.note.id], ["upsert", a.note.id], ["delete", b.note.id], [
        "upsert",
        d.note.id,
      ]],
    );
    for (let i = 1; i < all.length; i++) assert.ok(all[i].seq > all[i - 1].seq);
    for (const ch of all) assert.equal(ch.revision, ch.seq);
    const upsertA = all[1];
    assert.ok(upsertA.op === "upsert");
    assert.deepEqual(upsertA.note, a2);
    assert.ok(all[2].revision > gone!.revision);
    assert.deepEqual(all[2], {
      seq: all[2].seq,
      op: "delete",
      id: b.note.id,
      revision: all[2].seq,
    });
    const resumed = await allChanges(project, mid);
    assert.deepEqual(resumed.map((ch) => ch.id), [a.note.id, b.note.id, d.note.id]);
    const page = await project.changes(0, 3);
    assert.equal(page.changes.length, 3);
    assert.equal(page.hasMore, true);
    const last = await project.changes(all[3].seq, 10);
    assert.deepEqual(last, { changes: [], hasMore: false });
    const exact = await project.changes(all[2].seq, 1);
    assert.deepEqual(exact.changes.map((ch) => ch.id), [d.note.id]);
    assert.equal(exact.hasMore, false);
    await assert.rejects(project.changes(-1, 10), MemoryValidationError);
    await assert.rejects(project.changes(0, 0), MemoryValidationError);
  });
});

Deno.test("restart: revisions, the feed and ids survive a new store on the same folder", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo_cloud_file_" });
  try {
    const one = new FileCloudStore({ dataDir });
    const p1 = await one.project("team", "p");
    const [a, b] = await p1.upsert([{ text: "a" }, { text: "b", labels: ["x"] }]);
    await p1.remove(a.note.id);
    const before = await allChanges(p1);
    const stats = await p1.stats();
    await one.close();
    const two = new FileCloudStore({ dataDir });
    const p2 = await two.project("team", "p");
    assert.deepEqual(await allChanges(p2), before);
    assert.deepEqual(await p2.stats(), stats);
    assert.deepEqual(await p2.get(b.note.id), b.note);
    const [c] = await p2.upsert([{ text: "c" }]);
    assert.equal(c.note.revision, stats.revision + 1);
    const listed = await p2.list({ limit: 10 });
    assert.deepEqual(listed.notes.map((n) => [n.id, n.revision]), [
      [b.note.id, b.note.revision],
      [c.note.id, c.note.revision],
    ]);
    await two.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the journal heals: a hand edit of notes.md, a deleted section, a lost journal line", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo_cloud_file_" });
  const notesPath = join(dataDir, "team", "p", "notes.md");
  const journalPath = join(dataDir, "team", "p", "changes.jsonl");
  try {
    const store = new FileCloudStore({ dataDir });
    const project = await store.project("team", "p");
    const [a, b, c] = await project.upsert([
      { text: "alpha body" },
      { text: "beta body" },
      { text: "gamma body" },
    ]);
    const last = c.note.revision;

    // While the server runs: the body of `a` is edited by hand (its marker hash is kept).
    const text = await readFile(notesPath, "utf8");
    await saveAs(notesPath, text.replace("\nalpha body\n", "\nalpha edited by hand\n"));
    const edited = await project.get(a.note.id);
    assert.equal(edited?.body, "alpha edited by hand");
    assert.equal(edited?.revision, last + 1);
    const feed = await project.changes(last, 10);
    assert.deepEqual(feed.changes.map((ch) => [ch.op, ch.id, ch.seq]), [
      ["upsert", a.note.id, last + 1],
    ]);
    const hits = await project.recall("edited", { limit: 5 });
    assert.deepEqual(hits.map((h) => [h.note.id, h.note.revision]), [[a.note.id, last + 1]]);
    await store.close();

    // While it is down: the section of `b` is deleted by hand.
    const now = await readFile(notesPath, "utf8");
    const start = now.indexOf(`<!-- memo:note {"id":"${b.note.id}"`);
    const end = now.indexOf("<!-- memo:note", start + 1);
    assert.ok(start > 0 && end > start);
    await saveAs(notesPath, now.slice(0, start) + now.slice(end));
    const again = new FileCloudStore({ dataDir });
    const reopened = await again.project("team", "p");
    assert.deepEqual((await reopened.changes(last + 1, 10)).changes, [
      { seq: last + 2, op: "delete", id: b.note.id, revision: last + 2 },
    ]);
    assert.equal((await reopened.stats()).notes, 2);
    await again.close();

    // A crash between the notes write and the journal append: the last journal line is lost.
    const journal = await readFile(journalPath, "utf8");
    const lines = journal.trimEnd().split("\n");
    await writeFile(journalPath, lines.slice(0, -1).join("\n") + "\n" + '{"seq":99,"op":"ups');
    const third = new FileCloudStore({ dataDir });
    const healed = await third.project("team", "p");
    const entries = (await healed.changes(last + 1, 10)).changes;
    assert.deepEqual(entries, [{ seq: last + 2, op: "delete", id: b.note.id, revision: last + 2 }]);
    assert.equal((await healed.stats()).revision, last + 2);
    assert.equal((await healed.get(c.note.id))?.revision, c.note.revision);
    assert.ok(!(await readFile(journalPath, "utf8")).includes('"seq":99'), "torn line cut");
    await third.close();

    // Dropping the journal entirely re-journals every note.
    await Deno.remove(journalPath);
    const fourth = new FileCloudStore({ dataDir });
    const rebuilt = await fourth.project("team", "p");
    const all = (await rebuilt.changes(0, 10)).changes;
    assert.deepEqual(all.map((ch) => ch.op), ["upsert", "upsert"]);
    assert.equal((await readJournal(journalPath)).length, 2);
    await fourth.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("the journal is compacted to one line per note once superseded lines dominate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo_cloud_file_" });
  try {
    const store = new FileRevisionedStore({ dir });
    // 4 rounds over 600 notes: 2400 lines for 600 notes, past 2 × 600 + 1024.
    const round = (r: number) =>
      Array.from({ length: 600 }, (_, i) => ({ text: `v${r}`, source: `notion:page/${i}` }));
    const first = await store.upsert(round(0));
    for (let r = 1; r <= 3; r++) await store.upsert(round(r));
    const lines = await readJournal(store.journalPath);
    assert.ok(lines.length < 2400, `${lines.length} lines`);
    const { changes } = await store.changes(0, 1000);
    assert.equal(changes.length, 600);
    assert.deepEqual(changes.map((ch) => ch.id), first.map((r) => r.note.id));
    assert.equal(changes[599].seq, 2400);
    assert.ok(changes.every((ch) => ch.op === "upsert" && ch.note.body === "v3"));
    await store.close();
    const again = new FileRevisionedStore({ dir });
    assert.equal(await again.lastRevision(), 2400);
    assert.deepEqual((await again.changes(0, 1000)).changes, changes);
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("idempotency: claim, pending, replay, mismatch, release, 60 s takeover", async () => {
  await withStore(async (store, _dataDir, clock) => {
    const keys = store.idempotency;
    assert.deepEqual(await keys.claim("team", "k1", "fp1"), { kind: "claimed" });
    assert.deepEqual(await keys.claim("team", "k1", "fp1"), { kind: "pending" });
    assert.deepEqual(await keys.claim("team", "k1", "fp2"), { kind: "mismatch" });
    assert.deepEqual(await keys.claim("other", "k1", "fp2"), { kind: "claimed" }, "per workspace");
    await keys.complete("team", "k1", { status: 201, body: '{"note":{"id":"n1"}}' }, "fp1");
    const replay = { kind: "replay", answer: { status: 201, body: '{"note":{"id":"n1"}}' } };
    assert.deepEqual(await keys.claim("team", "k1", "fp1"), replay);
    assert.deepEqual(await keys.claim("team", "k1", "fp2"), { kind: "mismatch" });

    assert.deepEqual(await keys.claim("team", "k2", "fp"), { kind: "claimed" });
    await keys.release("team", "k2", "fp");
    assert.deepEqual(await keys.claim("team", "k2", "fp"), { kind: "claimed" }, "released");
    clock.now += PENDING_CLAIM_MS - 1;
    assert.deepEqual(await keys.claim("team", "k2", "fp"), { kind: "pending" });
    clock.now += 1;
    assert.deepEqual(await keys.claim("team", "k2", "fp"), { kind: "claimed" }, "holder died");
    await keys.release("team", "k2", "fp");
    await keys.complete("team", "k2", { status: 200, body: "{}" }, "fp"); // no claim: nothing kept
    assert.deepEqual(await keys.claim("team", "k2", "fp"), { kind: "claimed" });
    // A claim taken over by another request after 60 s keeps that request's answer: the first
    // holder's late answer, or its release, touches nothing.
    clock.now += PENDING_CLAIM_MS;
    assert.deepEqual(await keys.claim("team", "k2", "fp-B"), { kind: "claimed" }, "taken over");
    await keys.complete("team", "k2", { status: 200, body: '{"who":"A"}' }, "fp");
    await keys.release("team", "k2", "fp");
    await keys.complete("team", "k2", { status: 200, body: '{"who":"B"}' }, "fp-B");
    assert.deepEqual(await keys.claim("team", "k2", "fp-B"), {
      kind: "replay",
      answer: { status: 200, body: '{"who":"B"}' },
    });
    await assert.rejects(keys.claim("../x", "k", "fp"), MemoryValidationError);
  });
});

Deno.test("idempotency: answers survive a restart and expire 24 h after they completed", async () => {
  await withStore(async (_store, dataDir, clock) => {
    const clockFn = () => new Date(clock.now);
    const keys = new FileIdempotencyStore({ dataDir, clock: clockFn });
    await keys.claim("team", "k1", "fp");
    clock.now += 5_000; // the write took 5 s: the 24 h start when it completed
    await keys.complete("team", "k1", { status: 200, body: '{"a":"\\n\u00e9"}' }, "fp");
    await keys.close();
    const replay = { kind: "replay", answer: { status: 200, body: '{"a":"\\n\u00e9"}' } };
    const later = new FileIdempotencyStore({ dataDir, clock: clockFn });
    clock.now += IDEMPOTENCY_TTL_MS - 1;
    assert.deepEqual(await later.claim("team", "k1", "fp"), replay);
    clock.now += 1;
    assert.deepEqual(await later.claim("team", "k1", "other"), { kind: "claimed" }, "expired");
    await later.close();
  });
});

Deno.test("idempotency: the file is compacted when expired entries dominate", async () => {
  await withStore(async (_store, dataDir, clock) => {
    const keys = new FileIdempotencyStore({ dataDir, clock: () => new Date(clock.now) });
    const path = join(dataDir, "team", "idempotency.jsonl");
    for (let i = 0; i < 100; i++) {
      await keys.claim("team", `old-${i}`, "fp");
      await keys.complete("team", `old-${i}`, { status: 201, body: `{"i":${i}}` }, "fp");
    }
    clock.now += IDEMPOTENCY_TTL_MS;
    for (let i = 0; i < 30; i++) {
      await keys.claim("team", `new-${i}`, "fp");
      await keys.complete("team", `new-${i}`, { status: 201, body: `{"n":${i}}` }, "fp");
    }
    const lines = (await readFile(path, "utf8")).trimEnd().split("\n");
    assert.ok(lines.length <= 64, `${lines.length} lines`);
    assert.ok(lines.every((l) => JSON.parse(l).k.startsWith("new-")));
    for (const i of [0, 17, 29]) {
      assert.deepEqual(await keys.claim("team", `new-${i}`, "fp"), {
        kind: "replay",
        answer: { status: 201, body: `{"n":${i}}` },
      });
    }
    await keys.close();
    const again = new FileIdempotencyStore({ dataDir, clock: () => new Date(clock.now) });
    assert.deepEqual(await again.claim("team", "new-29", "fp"), {
      kind: "replay",
      answer: { status: 201, body: `{"n":29}` },
    });
    assert.deepEqual(await again.claim("team", "old-5", "fp"), { kind: "claimed" });
    await again.close();
  });
});
