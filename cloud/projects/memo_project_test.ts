import assert from "node:assert/strict";
import { join } from "node:path";
import { FileMemoryStore, MemoryValidationError, openMemo } from "@memo/memory";
import { FileRevisionedStore } from "../file/store.ts";
import { MemoCloudProject } from "./memo_project.ts";
import { pageCounter } from "../../testing/pages.ts";

async function withProject(
  fn: (project: MemoCloudProject, store: FileRevisionedStore, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "memo_cloud_project_" });
  const store = new FileRevisionedStore({ dir });
  const project = new MemoCloudProject(store);
  try {
    await fn(project, store, dir);
  } finally {
    await project.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const TOPICS = [
  "Deploys run with make deploy from the main branch",
  "The staging database is db-stage-2, reached through the bastion",
  "Deploy keys rotate monthly; the security team owns them",
  "Use pnpm, not npm, in the web app",
  "The release train leaves every Tuesday; deploys freeze on Fridays",
  "Grafana dashboards live in the ops folder",
  "The database backups run nightly at 02:00 UTC",
  "Feature flags are read from the flags service at start",
];

Deno.test("MemoCloudProject.list: oldest and newest, filters, cursors, revisions attached", async () => {
  await withProject(async (project) => {
    const results = await project.upsert(
      TOPICS.map((text, i) => ({
        text,
        labels: i % 2 === 0 ? ["even"] : ["odd"],
        source: i < 4 ? `github:acme/app/issues/${i}` : undefined,
      })),
    );
    const ids = results.map((r) => r.note.id);
    // A later change moves a note's revision but not its place.
    const moved = await project.update(ids[1], { labels: ["odd", "moved"] });
    const revisions = new Map(results.map((r) => [r.note.id, r.note.revision]));
    revisions.set(ids[1], moved!.revision);

    const walk = async (options: Parameters<MemoCloudProject["list"]>[0]) => {
      const out: [string, number][] = [];
      let cursor: string | undefined;
      let total = -1;
      const nextPage = pageCounter("the pages of project.list()");
      do {
        nextPage();
        const page = await project.list({ ...options, cursor });
        total = page.total;
        out.push(...page.notes.map((n): [string, number] => [n.id, n.revision]));
        cursor = page.nextCursor;
      } while (cursor);
      return { out, total };
    };
    const expect = (list: string[]) => list.map((id) => [id, revisions.get(id)]);
    assert.deepEqual(await walk({ limit: 3 }), { out: expect(ids), total: 8 });
    assert.deepEqual(await walk({ limit: 3, order: "oldest" }), { out: expect(ids), total: 8 });
    assert.deepEqual(await walk({ limit: 3, order: "newest" }), {
      out: expect([...ids].reverse()),
      total: 8,
    });
    const odd = [ids[7], ids[5], ids[3], ids[1]];
    assert.deepEqual(await walk({ limit: 1, order: "newest", labels: ["odd"] }), {
      out: expect(odd),
      total: 4,
    });
    assert.deepEqual(await walk({ limit: 2, source: "github:", labels: ["even"] }), {
      out: expect([ids[0], ids[2]]),
      total: 2,
    });
    const first = await project.list({ limit: 2 });
    assert.equal(first.notes[0].body, TOPICS[0]);
    assert.equal(first.notes[1].revision, moved!.revision);
    assert.deepEqual(first.notes[1], moved);
    await assert.rejects(project.list({ limit: 2, cursor: "forged" }), MemoryValidationError);
  });
});

Deno.test("MemoCloudProject.list sees writes made through the store at once", async () => {
  await withProject(async (project, store) => {
    assert.equal((await project.list({ limit: 5 })).total, 0);
    const [{ note }] = await store.upsert([{ text: "written beneath" }]);
    const page = await project.list({ limit: 5 });
    assert.deepEqual(page.notes, [note]);
    await store.removeIf(note.id);
    assert.deepEqual(await project.list({ limit: 5 }), { notes: [], total: 0 });
  });
});

Deno.test("MemoCloudProject.recall ranks as a local Memo does over the same notes", async () => {
  await withProject(async (project, _store, dir) => {
    const results = await project.upsert(
      TOPICS.map((text, i) => ({ text, labels: i % 3 === 0 ? ["ops"] : [] })),
    );
    await project.update(results[2].note.id, { text: "Deploy keys rotate weekly now" });
    await project.remove(results[5].note.id);
    const local = await openMemo({
      store: new FileMemoryStore({ rootDir: dir, notesPath: join(dir, "notes.md") }),
      indexCache: false,
    });
    try {
      for (
        const [query, options] of [
          ["deploy", { limit: 10 }],
          ["database backups", { limit: 3 }],
          ["deploys freeze", { limit: 10, labels: ["ops"] }],
          ["database staging", { limit: 10, explain: true }],
        ] as const
      ) {
        const cloud = await project.recall(query, options);
        const mine = await local.recall(query, { ...options, engine: "lexical" });
        assert.ok(cloud.length > 0, query);
        assert.deepEqual(
          cloud.map((h) => [h.note.id, h.score, h.matched, h.explain]),
          mine.map((h) => [h.note.id, h.score, h.matched, h.explain]),
          query,
        );
        for (const hit of cloud) {
          assert.equal(hit.engine, "lexical");
          assert.equal(hit.note.revision, (await project.get(hit.note.id))!.revision);
        }
      }
    } finally {
      await local.close();
    }
    await assert.rejects(project.recall(" ", { limit: 5 }), MemoryValidationError);
  });
});

Deno.test("MemoCloudProject.stats: memo's counts plus the latest revision, nothing else", async () => {
  await withProject(async (project) => {
    assert.deepEqual(await project.stats(), { notes: 0, labels: {}, sources: {}, revision: 0 });
    const [a] = await project.upsert([
      { text: "one", labels: ["ops"] },
      { text: "two", source: "notion:page/1" },
    ]);
    await project.remove(a.note.id);
    const stats = await project.stats();
    const last = (await project.changes(0, 10)).changes.at(-1)!;
    assert.deepEqual(Object.keys(stats).sort(), [
      "labels",
      "lastUpdated",
      "notes",
      "revision",
      "sources",
    ]);
    assert.equal(stats.notes, 1);
    assert.deepEqual(stats.labels, {});
    assert.deepEqual(stats.sources, { notion: 1 });
    assert.equal(stats.revision, last.seq);
    assert.equal(last.op, "delete");
  });
});

Deno.test("MemoCloudProject: nothing is read before the first call; close() ends it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo_cloud_project_" });
  try {
    let loads = 0;
    const store = new FileRevisionedStore({ dir });
    const load = store.load.bind(store);
    store.load = () => (loads++, load());
    const project = new MemoCloudProject(store);
    assert.equal(loads, 0);
    await project.upsert([{ text: "x" }]);
    assert.equal(loads, 0, "writes need no Memo client");
    await project.list({ limit: 1 });
    await project.stats();
    assert.equal(loads, 1, "opened once, on the first read");
    await project.close();
    await project.close();
    await assert.rejects(project.list({ limit: 1 }), /closed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
