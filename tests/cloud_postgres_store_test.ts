/**
 * The PostgreSQL store of the reference Cloud API server (`cloud/postgres/store.ts`) against a
 * real throwaway cluster (one for the whole file): migrations (twice, and two stores starting at
 * once), batch upserts (dedupe, canonical ids, asked ids, order, all-or-nothing), revisions and
 * `ifMatch`, the change feed, `changesSince` as a `Memo` client uses it, two server instances
 * writing at once, idempotency keys, and recall through `MemoCloudProject` against local recall.
 *
 * @module
 */

import assert from "node:assert/strict";
import net, { type AddressInfo } from "node:net";
import { CloudConflictError, type CloudDraft, type CloudProject } from "../cloud/store.ts";
import { migrate, MIGRATIONS } from "../cloud/postgres/_migrations.ts";
import { PostgresIdempotencyStore } from "../cloud/postgres/idempotency.ts";
import { PostgresCloudStore, PostgresMemoryStore } from "../cloud/postgres/store.ts";
import { contentHash, MemoryValidationError, noteIdentity, openMemo } from "@memo/memory";
import postgres from "postgres";
import { startPostgres } from "./_postgres.ts";
import { pageCounter } from "../testing/pages.ts";

const T0 = "2026-01-01T00:00:00.000Z";

Deno.test("PostgreSQL cloud store", async (t) => {
  const pg = await startPostgres();
  const main = await PostgresCloudStore.open({ url: pg.url, max: 4 });
  const other = await PostgresCloudStore.open({ url: pg.url, max: 4 });
  const storeOf = (cloud: PostgresCloudStore, projectId: string, clock?: () => Date) =>
    new PostgresMemoryStore({ sql: cloud.sql, workspaceId: "team", projectId, clock });
  try {
    await t.step("migrations: applied once, idempotent, safe from two stores at once", async () => {
      await main.sql`CREATE DATABASE mig`;
      const url = pg.url.replace(/\/memo$/, "/mig");
      const [a, b] = await Promise.all([
        PostgresCloudStore.open({ url, max: 1 }),
        PostgresCloudStore.open({ url, max: 1 }),
      ]);
      try {
        const rows = await a.sql<{ version: number }[]>`
          SELECT version FROM memo_schema_migrations ORDER BY version`;
        assert.deepEqual(rows.map((r) => r.version), MIGRATIONS.map((m) => m.version));
        assert.deepEqual(await migrate(b.sql), []); // a restart applies nothing
        const [{ count }] = await a.sql<{ count: string }[]>`
          SELECT count(*) AS count FROM pg_tables WHERE tablename LIKE 'memo\\_%'`;
        // Version 1: projects, notes, changes, idempotency; 2: the history columns; 3: snapshots
        // and their parts; 4: rate limits; plus memo_schema_migrations.
        assert.equal(Number(count), 8);
        // A schema newer than this code is refused, and says so.
        await a.sql`INSERT INTO memo_schema_migrations (version, name) VALUES (999, 'future')`;
        await assert.rejects(
          PostgresCloudStore.open({ url, max: 1 }),
          /Cannot open the PostgreSQL store: .*version 999, newer than this server knows/,
        );
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    await t.step(
      "migration 2: a store at schema version 1 gets the history columns and normalised identities",
      async () => {
        await main.sql`CREATE DATABASE v1`;
        const url = pg.url.replace(/\/memo$/, "/v1");
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        const at = "2026-01-01T00:00:00.000Z";
        const v1 = (id: string, body: string, ord: number, source: string | null = null) => {
          const note = { title: body, body, labels: [] as string[] };
          const hash = contentHash(note);
          // What the server wrote before: `hash:<hash>` without a source key.
          const identity = source === null ? `hash:${hash}` : `source:${source}`;
          return { id, identity, ...note, source, hash, ord };
        };
        const rows = [
          v1("n1", "Deploys run on Fridays.", 1),
          v1("n2", "Café hours: 9–17", 2),
          v1("n3", "Synced from the wiki", 3, "wiki:page/1"),
        ];
        try {
          assert.deepEqual(await migrate(sql, MIGRATIONS.slice(0, 1)), [1]);
          await sql`INSERT INTO memo_projects (workspace, project, seq) VALUES ('team', 'old', 3)`;
          for (const r of rows) {
            await sql`
              INSERT INTO memo_notes (pid, id, identity, title, body, labels, source, hash,
                created, updated, revision, ord)
              VALUES (1, ${r.id}, ${r.identity}, ${r.title}, ${r.body}, '[]'::jsonb, ${r.source},
                ${r.hash}, ${at}, ${at}, ${r.ord}, ${r.ord})`;
          }
          assert.deepEqual(await migrate(sql), [2, 3, 4]);
          const stored = await sql<{ id: string; identity: string }[]>`
            SELECT id, identity FROM memo_notes ORDER BY id`;
          assert.deepEqual(stored.map((r) => [r.id, r.identity]), [
            ["n1", noteIdentity({ body: "Deploys run on Fridays." })],
            ["n2", noteIdentity({ body: "Café hours: 9–17" })],
            ["n3", "source:wiki:page/1"],
          ]);
          assert.match(stored[0].identity, /^text:/);
        } finally {
          await sql.end();
        }
        // The migrated store: the same text in another case and punctuation is the stored note,
        // and a correction writes the new columns.
        const cloud = await PostgresCloudStore.open({ url, max: 2 });
        try {
          const project = await cloud.project("team", "old");
          const [same] = await project.upsert([{ text: "deploys run on FRIDAYS" }]);
          assert.deepEqual([same.status, same.note.id], ["unchanged", "n1"]);
          const [cafe] = await project.upsert([{ text: "CAFÉ hours 9–17!" }]);
          assert.deepEqual([cafe.status, cafe.note.id], ["unchanged", "n2"]);
          const { note, superseded } = await project.correct({
            id: "n1",
            text: "Deploys run on Mondays",
            validFrom: "2026-03-02",
          });
          assert.deepEqual([note.supersedes, superseded, note.validFrom], [
            ["n1"],
            ["n1"],
            "2026-03-02",
          ]);
          const old = await project.get("n1");
          assert.deepEqual([old?.supersededBy, old?.validUntil], [[note.id], "2026-03-02"]);
        } finally {
          await cloud.close();
        }
      },
    );

    await t.step(
      "open: a bad URL or an unreachable server fails without the password",
      async () => {
        for (const url of ["postgres://u:s3cret-pw@127.0.0.1:1/memo", "not a url s3cret-pw"]) {
          await assert.rejects(
            PostgresCloudStore.open({ url, max: 1 }),
            (e) =>
              e instanceof Error && /^Cannot open the PostgreSQL store: /.test(e.message) &&
              !e.message.includes("s3cret"),
          );
        }
      },
    );

    await t.step("upsert: identity dedupe, canonical ids, asked ids, input order", async () => {
      let now = new Date(T0);
      const store = storeOf(main, "upsert", () => now);
      const first = await store.upsert([
        { text: "alpha note" },
        { id: "asked-id-1", text: "beta note", source: "s:beta" },
        { text: "gamma note", labels: ["x"] },
      ]);
      assert.deepEqual(first.map((r) => r.status), ["written", "written", "written"]);
      assert.deepEqual(first.map((r) => r.note.body), ["alpha note", "beta note", "gamma note"]);
      assert.equal(first[1].note.id, "asked-id-1"); // a free asked id is kept
      assert.deepEqual(first.map((r) => r.note.revision), [1, 2, 3]);
      assert.equal(first[0].note.created, T0);
      assert.equal(first[2].note.source, undefined);
      assert.equal(first[1].note.source, "s:beta");

      now = new Date(Date.parse(T0) + 60_000);
      const second = await store.upsert([
        { text: "new one", id: "asked-id-1" }, // id held by another identity: a fresh id
        { text: "alpha note", id: "ignored-id" }, // identity matches: the canonical id
        { text: "beta v2", source: "s:beta" }, // same source key, new content: updated in place
        { text: "dup", source: "s:dup" },
        { text: "dup last", source: "s:dup", id: "dup-first-id" }, // the last draft's content
        { text: "dup last", source: "s:dup", id: "dup-later-id" }, // the first id given
      ]);
      assert.deepEqual(second.map((r) => r.status), [
        "written",
        "unchanged",
        "updated",
        "written", // only the first draft of an identity carries the status
        "unchanged",
        "unchanged",
      ]);
      assert.notEqual(second[0].note.id, "asked-id-1");
      assert.equal(second[1].note.id, first[0].note.id);
      assert.equal(second[1].note.revision, 1); // unchanged keeps its revision
      assert.equal(second[2].note.id, "asked-id-1");
      assert.equal(second[2].note.created, T0); // created kept
      assert.equal(second[2].note.updated, now.toISOString());
      assert.equal(second[2].note.body, "beta v2");
      assert.deepEqual(second[4].note, second[3].note);
      assert.deepEqual(second[5].note, second[3].note);
      assert.equal(second[3].note.body, "dup last");
      assert.equal(second[3].note.id, "dup-first-id");
      // One change per note written or updated, in draft order.
      assert.deepEqual(
        [second[0], second[2], second[3]].map((r) => r.note.revision),
        [4, 5, 6],
      );
      assert.equal(await store.lastRevision(), 6);
      assert.deepEqual(await store.get("asked-id-1"), second[2].note);
      assert.equal(await store.get("nope"), undefined);
      assert.deepEqual(await store.load(), { notes: 5, issues: [] });

      // Given times are kept (canonicalised) for new notes.
      const [timed] = await store.upsert([
        { text: "timed", created: "2024-05-01T10:00:00Z", updated: "2024-05-02T10:00:00.000Z" },
      ]);
      assert.equal(timed.note.created, "2024-05-01T10:00:00.000Z");
      assert.equal(timed.note.updated, "2024-05-02T10:00:00.000Z");
    });

    await t.step("upsert: all-or-nothing (a bad draft, an aborted write)", async () => {
      const store = storeOf(main, "atomic");
      await store.upsert([{ text: "kept" }]);
      await assert.rejects(
        store.upsert([{ text: "one" }, { text: "two" }, { text: "  " }]),
        (e) =>
          e instanceof MemoryValidationError && e.details?.index === 2 &&
          /note 3 of the batch/.test(e.message),
      );
      await assert.rejects(
        store.upsert([{ text: "one" }, { text: "x", created: "yesterday" }]),
        (e) => e instanceof MemoryValidationError && e.details?.index === 1,
      );
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(store.upsert([{ text: "one" }], { signal: controller.signal }));
      assert.equal((await store.load()).notes, 1);
      assert.equal(await store.lastRevision(), 1);
      // MemoryStore.commit reports each note once.
      const result = await store.commit({
        notes: [{ text: "kept" }, { text: "c" }, { text: "c" }],
      });
      assert.deepEqual(result.unchanged.map((n) => n.body), ["kept"]);
      assert.deepEqual(result.written.map((n) => n.body), ["c"]);
      assert.equal("revision" in result.written[0], false);
      assert.ok(result.bytesWritten > 0);
    });

    await t.step("updateIf: a patch's updated is the time stored, not now", async () => {
      const now = new Date(T0);
      const store = storeOf(main, "patch-updated", () => now);
      const [{ note }] = await store.upsert([{ text: "edited on a replica" }]);
      const edited = await store.updateIf(note.id, {
        text: "edited offline",
        updated: "2026-01-05T10:00:00+02:00",
      }, note.revision);
      assert.equal(edited?.updated, "2026-01-05T08:00:00.000Z");
      assert.equal(edited?.revision, note.revision + 1);
      assert.deepEqual(await store.get(note.id), edited, "read back from the table");
      const { changes } = await store.changes(note.revision, 10);
      const change = changes[0];
      assert.equal(change.op, "upsert");
      assert.equal(change.op === "upsert" && change.note.updated, "2026-01-05T08:00:00.000Z");
      // With nothing to change, the note and its revision stay, whatever updated says.
      const same = await store.updateIf(note.id, {
        text: "edited offline",
        updated: "2030-01-01T00:00:00.000Z",
      });
      assert.deepEqual(same, edited);
      assert.equal(await store.lastRevision(), edited?.revision);
      await assert.rejects(
        store.updateIf(note.id, { title: "t", updated: "tomorrow" }),
        /Cannot update note: updated must be an ISO 8601 time/,
      );
      // The MemoryStore method too.
      const viaUpdate = await store.update(note.id, {
        title: "T",
        updated: "2026-01-06T00:00:00Z",
      });
      assert.equal(viaUpdate?.updated, "2026-01-06T00:00:00.000Z");
    });

    await t.step("revisions: ifMatch conflicts, unchanged patches, deletes", async () => {
      let now = new Date(T0);
      const store = storeOf(main, "revisions", () => now);
      const [{ note }] = await store.upsert([{ text: "first text", labels: ["a"] }]);
      assert.equal(note.revision, 1);
      now = new Date(Date.parse(T0) + 1000);
      const updated = await store.updateIf(note.id, { text: "second text" }, 1);
      assert.equal(updated?.revision, 2);
      assert.equal(updated?.body, "second text");
      assert.equal(updated?.created, T0);
      assert.equal(updated?.updated, now.toISOString());
      assert.deepEqual(updated?.labels, ["a"]);
      await assert.rejects(
        store.updateIf(note.id, { text: "third" }, 1),
        (e) =>
          e instanceof CloudConflictError && e.current.revision === 2 &&
          e.current.body === "second text",
      );
      // A patch that changes nothing keeps the revision.
      const same = await store.updateIf(note.id, { labels: ["a"] }, 2);
      assert.equal(same?.revision, 2);
      assert.equal(await store.lastRevision(), 2);
      await assert.rejects(store.updateIf(note.id, { text: " " }), MemoryValidationError);
      assert.equal(await store.updateIf("unknown", { text: "x" }), undefined);
      // The content changed, so does the identity: the old text is a new note again.
      const [again] = await store.upsert([{ text: "first text", labels: ["a"] }]);
      assert.equal(again.status, "written");
      assert.equal(again.note.revision, 3);

      await assert.rejects(
        store.removeIf(note.id, 1),
        (e) => e instanceof CloudConflictError && e.current.revision === 2,
      );
      const removed = await store.removeIf(note.id, 2);
      assert.equal(removed?.body, "second text");
      assert.equal(removed?.revision, 2); // as it was
      assert.equal(await store.get(note.id), undefined);
      assert.equal(await store.removeIf(note.id), undefined);
      assert.equal(await store.lastRevision(), 4);
      // The MemoryStore methods.
      assert.equal((await store.update(again.note.id, { title: "Titled" }))?.title, "Titled");
      assert.equal(await store.remove(again.note.id), true);
      assert.equal(await store.remove(again.note.id), false);
      // A project never written.
      const empty = storeOf(main, "never-written");
      assert.equal(await empty.removeIf("x"), undefined);
      assert.equal(await empty.lastRevision(), 0);
      assert.deepEqual(await empty.changes(0, 10), { changes: [], hasMore: false });
    });

    await t.step("change feed: ordered, with tombstones, resumable, limited", async () => {
      const store = storeOf(main, "feed");
      const [a, b] = await store.upsert([
        { text: "a v1", source: "s:a" },
        { text: "b" },
      ]);
      await store.upsert([{ text: "a v2", source: "s:a" }]);
      await store.removeIf(b.note.id);
      const all = await store.changes(0, 100);
      assert.equal(all.hasMore, false);
      assert.deepEqual(all.changes.map((c) => [c.seq, c.op, c.id]), [
        [1, "upsert", a.note.id],
        [2, "upsert", b.note.id],
        [3, "upsert", a.note.id],
        [4, "delete", b.note.id],
      ]);
      const [first, , third, tombstone] = all.changes;
      assert.ok(first.op === "upsert" && third.op === "upsert");
      assert.equal(first.note.body, "a v1"); // the note as of that change
      assert.equal(first.note.revision, 1);
      assert.equal(third.note.body, "a v2");
      assert.deepEqual(third.note, await store.get(a.note.id));
      assert.deepEqual(Object.keys(third.note), [
        "id",
        "title",
        "body",
        "labels",
        "source",
        "hash",
        "created",
        "updated",
        "revision",
      ]);
      assert.deepEqual(tombstone, { seq: 4, op: "delete", id: b.note.id, revision: 4 });
      const page = await store.changes(1, 2);
      assert.deepEqual(page.changes.map((c) => c.seq), [2, 3]);
      assert.equal(page.hasMore, true);
      const rest = await store.changes(3, 2);
      assert.deepEqual(rest.changes.map((c) => c.seq), [4]);
      assert.equal(rest.hasMore, false);
      assert.deepEqual(await store.changes(4, 10), { changes: [], hasMore: false });
      await assert.rejects(store.changes(-1, 10), MemoryValidationError);
      await assert.rejects(store.changes(0, 0), MemoryValidationError);
    });

    await t.step(
      "changesSince: reset, incremental, another instance's writes at once",
      async () => {
        const mine = storeOf(main, "since");
        const theirs = storeOf(other, "since"); // another server instance (another pool)
        const empty = await mine.changesSince();
        assert.deepEqual(empty, { token: "0", reset: true, upserted: [], removed: [] });
        assert.deepEqual(await mine.changesSince("0"), {
          token: "0",
          reset: false,
          upserted: [],
          removed: [],
        });
        const [x, y, z] = await theirs.upsert([{ text: "x" }, { text: "y" }, { text: "z" }]);
        const all = await mine.changesSince();
        assert.equal(all.reset, true);
        assert.equal(all.token, "3");
        assert.deepEqual(all.upserted.map((n) => n.id), [x.note.id, y.note.id, z.note.id]);
        assert.equal("revision" in all.upserted[0], false);
        assert.equal(mine.revisionOf(y.note.id), 2);
        const nothing = await mine.changesSince(all.token);
        assert.deepEqual(nothing, { token: "3", reset: false, upserted: [], removed: [] });
        await theirs.updateIf(y.note.id, { text: "yonder hills" });
        await theirs.removeIf(x.note.id);
        const [w] = await theirs.upsert([{ text: "w" }]);
        const [gone] = await theirs.upsert([{ text: "gone soon" }]);
        await theirs.removeIf(gone.note.id);
        const next = await mine.changesSince(nothing.token);
        assert.equal(next.reset, false);
        assert.equal(next.token, "8");
        assert.deepEqual(next.upserted.map((n) => [n.id, n.body]), [
          [y.note.id, "yonder hills"],
          [w.note.id, "w"],
        ]);
        assert.deepEqual(next.removed.sort(), [x.note.id, gone.note.id].sort());
        assert.equal(mine.revisionOf(y.note.id), 4);
        assert.equal(mine.revisionOf(x.note.id), undefined);
        // A token this project never gave: everything again.
        const stale = await mine.changesSince("99");
        assert.equal(stale.reset, true);
        assert.deepEqual(stale.upserted.map((n) => n.id), [y.note.id, z.note.id, w.note.id]);
        assert.equal((await mine.changesSince("garbage")).reset, true);

        // A Memo client over one instance sees the other's writes at its next call.
        const memo = await openMemo({ store: mine, indexCache: false });
        try {
          assert.equal((await memo.recall("yonder"))[0]?.note.id, y.note.id);
          const [fresh] = await theirs.upsert([{ text: "the kraken wakes" }]);
          assert.equal((await memo.recall("kraken"))[0]?.note.id, fresh.note.id);
          await theirs.removeIf(fresh.note.id);
          assert.deepEqual(await memo.recall("kraken"), []);
          assert.equal((await memo.stats()).notes, 3);
        } finally {
          await memo.close();
        }
      },
    );

    await t.step("list: store order, cursors", async () => {
      const store = storeOf(main, "list");
      const written = await store.upsert(
        Array.from({ length: 7 }, (_, i) => ({ text: `note ${i}` })),
      );
      await store.upsert([{ text: "note 3 changed", source: "s:3" }]);
      await store.removeIf(written[1].note.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      const nextPage = pageCounter("the pages of store.list()");
      do {
        nextPage();
        const page = await store.list(cursor, 3);
        seen.push(...page.notes.map((n) => n.body));
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(seen, [
        "note 0",
        "note 2",
        "note 3",
        "note 4",
        "note 5",
        "note 6",
        "note 3 changed",
      ]);
      await assert.rejects(store.list("forged"), MemoryValidationError);
      await assert.rejects(store.list(undefined, 0), MemoryValidationError);
    });

    await t.step(
      "two instances: 2 × 550 concurrent writes lose and duplicate nothing",
      async () => {
        const projectA = await main.project("team", "race");
        const projectB = await other.project("team", "race");
        // Each instance: 500 notes of its own, 50 shared texts, 20 shared source keys (new text).
        const drafts = (side: string): CloudDraft[] => [
          ...Array.from({ length: 500 }, (_, i) => ({ text: `${side} note ${i}` })),
          ...Array.from({ length: 50 }, (_, i) => ({ text: `shared note ${i}` })),
          ...Array.from({ length: 20 }, (_, i) => ({ text: `${side} ${i}`, source: `s:key/${i}` })),
        ];
        const run = (project: CloudProject, side: string) =>
          Promise.all(drafts(side).map((draft) => project.upsert([draft]).then(([r]) => r)));
        const [resultsA, resultsB] = await Promise.all([run(projectA, "a"), run(projectB, "b")]);
        const sql = main.sql;
        const [{ count }] = await sql<{ count: string }[]>`
        SELECT count(*) AS count FROM memo_notes
        WHERE pid = (SELECT pid FROM memo_projects WHERE workspace = 'team' AND project = 'race')`;
        assert.equal(Number(count), 500 + 500 + 50 + 20);
        const dupes = await sql`
        SELECT identity FROM memo_notes
        WHERE pid = (SELECT pid FROM memo_projects WHERE workspace = 'team' AND project = 'race')
        GROUP BY identity HAVING count(*) > 1`;
        assert.equal(dupes.length, 0);
        // Each shared text written once and unchanged once; each source key written then updated.
        const statuses = (from: number, to: number) =>
          [...resultsA.slice(from, to), ...resultsB.slice(from, to)].map((r) => r.status).sort();
        assert.deepEqual(statuses(500, 550), [
          ...Array(50).fill("unchanged"),
          ...Array(50).fill("written"),
        ]);
        assert.deepEqual(statuses(550, 570), [
          ...Array(20).fill("updated"),
          ...Array(20).fill("written"),
        ]);
        for (let i = 500; i < 570; i++) assert.equal(resultsA[i].note.id, resultsB[i].note.id);
        // The feed: one change per write, seqs 1..n without a gap.
        const expected = 1070 + 20;
        const seqs: number[] = [];
        let since = 0;
        const nextPage = pageCounter("the pages of projectB.changes()");
        for (;;) {
          nextPage();
          const page = await projectB.changes(since, 1000);
          seqs.push(...page.changes.map((c) => c.seq));
          if (!page.hasMore) break;
          since = seqs[seqs.length - 1];
        }
        assert.deepEqual(seqs, Array.from({ length: expected }, (_, i) => i + 1));
        const stats = await projectA.stats();
        assert.equal(stats.notes, 1070);
        assert.equal(stats.revision, expected);
      },
    );

    await t.step("idempotency: claim, replay, mismatch, pending, expiry, release", async () => {
      let now = Date.parse(T0);
      const clock = () => new Date(now);
      const keys = new PostgresIdempotencyStore({ sql: main.sql, clock });
      const elsewhere = new PostgresIdempotencyStore({ sql: other.sql, clock });
      assert.deepEqual(await keys.claim("team", "k1", "fp1"), { kind: "claimed" });
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp1"), { kind: "pending" });
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp2"), { kind: "mismatch" });
      // Keys are per workspace.
      assert.deepEqual(await keys.claim("other", "k1", "fp2"), { kind: "claimed" });
      await keys.complete("team", "k1", { status: 201, body: '{"note":1}' }, "fp1");
      const replay = { kind: "replay", answer: { status: 201, body: '{"note":1}' } };
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp1"), replay);
      assert.deepEqual(await keys.claim("team", "k1", "fp2"), { kind: "mismatch" });
      now += 24 * 3600_000 - 1;
      assert.deepEqual(await keys.claim("team", "k1", "fp1"), replay); // kept 24 h
      now += 1;
      assert.deepEqual(await keys.claim("team", "k1", "fp2"), { kind: "claimed" }); // expired
      // A claim pending for more than 60 s may be taken again (its holder died).
      now += 60_000 - 1;
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp2"), { kind: "pending" });
      now += 1;
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp2"), { kind: "claimed" });
      // Taken over by another request: the first holder's late answer and release touch nothing.
      now += 60_000;
      assert.deepEqual(await keys.claim("team", "k1", "fp-B"), { kind: "claimed" });
      await elsewhere.complete("team", "k1", { status: 200, body: '{"who":"A"}' }, "fp2");
      await elsewhere.release("team", "k1", "fp2");
      assert.deepEqual(await keys.claim("team", "k1", "fp-B"), { kind: "pending" });
      await keys.complete("team", "k1", { status: 200, body: '{"who":"B"}' }, "fp-B");
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp-B"), {
        kind: "replay",
        answer: { status: 200, body: '{"who":"B"}' },
      });
      now += 24 * 3600_000;
      assert.deepEqual(await elsewhere.claim("team", "k1", "fp2"), { kind: "claimed" }); // expired
      // Released: the next request runs.
      await elsewhere.release("team", "k1", "fp2");
      assert.deepEqual(await keys.claim("team", "k1", "fp3"), { kind: "claimed" });
      // Release frees only pending claims.
      await keys.complete("team", "k1", { status: 200, body: "{}" }, "fp3");
      await keys.release("team", "k1", "fp3");
      assert.equal((await keys.claim("team", "k1", "fp3")).kind, "replay");
      // Pruning deletes what expired.
      now += 25 * 3600_000;
      assert.ok((await keys.prune()) >= 1);
      const [{ count }] = await main.sql<{ count: string }[]>`
        SELECT count(*) AS count FROM memo_idempotency`;
      assert.equal(Number(count), 0);
    });

    await t.step(
      "history: the fields round-trip; corrections on two instances at once both land; a stale expect writes nothing",
      async () => {
        const a = await main.project("team", "history");
        const b = await other.project("team", "history");
        const [first] = await a.upsert([{
          text: "Deploys run on Fridays",
          validFrom: "2026-01-01",
        }]);
        const [dated] = await a.upsert([{
          text: "The beta API is open",
          source: "doc:beta",
          supersedes: ["gone-note"], // a batch keeps links as given (a replica's)
          validUntil: "2026-02-01T12:00:00Z",
        }]);
        assert.deepEqual([dated.note.supersedes, dated.note.validUntil], [
          ["gone-note"],
          "2026-02-01T12:00:00.000Z",
        ]);
        // The same source key without history fields keeps the stored ones.
        const [kept] = await a.upsert([{
          text: "The beta API is open to all",
          source: "doc:beta",
        }]);
        assert.deepEqual([kept.status, kept.note.supersedes], ["updated", ["gone-note"]]);
        const patched = await a.update(dated.note.id, { supersedes: [], validUntil: null });
        assert.deepEqual([patched?.supersedes, patched?.validUntil], [undefined, undefined]);
        const { changes } = await storeOf(main, "history").changes(0, 100);
        assert.equal(
          changes.at(-1)?.op === "upsert" && changes.at(-1)?.revision,
          patched?.revision,
        );
        // A PATCH that is not a replica's has its links checked.
        await assert.rejects(
          a.update(first.note.id, { supersedes: ["nope"] }),
          /unknown note nope/,
        );

        // Two instances correct one note at once: both land, each superseding it.
        const [x, y] = await Promise.all([
          a.correct({ id: first.note.id, text: "Deploys run on Mondays" }),
          b.correct({ id: first.note.id, text: "Deploys run on Tuesdays" }),
        ]);
        const old = await b.get(first.note.id);
        assert.deepEqual(old?.supersededBy?.sort(), [x.note.id, y.note.id].sort());
        assert.deepEqual(
          (await a.list({ limit: 10 })).notes.map((n) => n.id).sort(),
          [
            dated.note.id,
            x.note.id,
            y.note.id,
          ].sort(),
        );

        // applyReplica: an expect that no longer holds writes nothing.
        const store = storeOf(main, "history");
        const before = await store.lastRevision();
        const current = (await store.get(x.note.id))!;
        const { revision: _, ...plain } = current;
        const edited = { ...plain, title: "Edited" };
        edited.hash = contentHash(edited);
        const stale = await store.applyReplica({
          put: [edited],
          remove: [],
          expect: { [x.note.id]: "not-its-hash" },
        });
        assert.deepEqual(stale.stale, [x.note.id]);
        assert.equal(await store.lastRevision(), before);
        await assert.rejects(
          store.applyReplica({ put: [], remove: [x.note.id], expectSha256: "0".repeat(64) }),
          MemoryValidationError,
        );
        const done = await store.applyReplica({
          put: [edited],
          remove: [y.note.id],
          expect: { [x.note.id]: current.hash },
        });
        assert.deepEqual([done.updated, done.removed], [[x.note.id], [y.note.id]]);
        assert.equal(await store.lastRevision(), before + 2);
        assert.equal((await store.get(x.note.id))?.title, "Edited");
      },
    );

    await t.step("recall through MemoCloudProject equals local lexical recall", async () => {
      const dir = await Deno.makeTempDir();
      const local = await openMemo({ rootDir: dir, indexCache: false });
      try {
        const texts = [
          "The staging database is db-stage-2 and backups run nightly",
          "Deploys run with make deploy from the main branch",
          "# On-call\nThe on-call rotation changes every Monday at 10:00",
          "Database migrations must be reviewed by the platform team",
          "The production database runs PostgreSQL 16 with two replicas",
          "Lunch is at noon on Fridays in the big room",
          "Deploy freezes start on December 20th",
        ];
        const result = await local.rememberMany(
          texts.map((text, i) => ({ text, labels: i % 2 ? ["ops"] : ["db"] })),
        );
        const notes = result.written;
        const project = await main.project("team", "recall");
        const upserted = await project.upsert(
          notes.map((n) => ({
            id: n.id,
            text: n.body,
            title: n.title,
            labels: n.labels,
            created: n.created,
            updated: n.updated,
          })),
        );
        assert.deepEqual(upserted.map((r) => r.note.id), notes.map((n) => n.id));
        for (const query of ["database", "deploy main", "on-call monday", "postgresql replicas"]) {
          for (const labels of [undefined, ["ops"]]) {
            const want = await local.recall(query, { limit: 5, labels, engine: "lexical" });
            const got = await project.recall(query, { limit: 5, labels });
            assert.deepEqual(
              got.map((h) => [h.note.id, h.score, h.matched]),
              want.map((h) => [h.note.id, h.score, h.matched]),
              `recall ${query}`,
            );
            for (const hit of got) assert.equal(hit.note.revision > 0, true);
          }
        }
      } finally {
        await local.close();
        await Deno.remove(dir, { recursive: true });
      }
    });

    await t.step(
      "history filters, supersededBy and similar from the held index equal a local memo's",
      async () => {
        const dir = await Deno.makeTempDir();
        const local = await openMemo({ rootDir: dir, indexCache: false, localEmbeddings: false });
        try {
          const project = await main.project("team", "held-history");
          const { note: old } = await local.remember({
            text: "The audit log is kept for 12 months",
            validUntil: "2026-06-01",
          });
          await local.remember({ text: "Deploys run on Fridays from the main branch" });
          const { note: fixed } = await local.correct({
            id: old.id,
            text: "The audit log is kept for 24 months",
            validFrom: "2026-06-01",
          });
          const all = (await local.list({ includeSuperseded: true, limit: 100 })).notes;
          await project.upsert(all.map(({ supersededBy: _, ...n }) => ({ ...n, text: n.body })));
          const ids = (notes: { id: string; supersededBy?: string[] }[]) =>
            notes.map((n) => [n.id, n.supersededBy ?? []]);
          const filters = [
            {},
            { includeSuperseded: true },
            { asOf: "2026-03-01" },
            { since: fixed.created },
            { until: fixed.created, includeSuperseded: true },
          ];
          for (const filter of filters) {
            const label = JSON.stringify(filter);
            const want = await local.recall("audit log months", {
              limit: 5,
              engine: "lexical",
              ...filter,
            });
            const got = await project.recall("audit log months", { limit: 5, ...filter });
            assert.deepEqual(ids(got.map((h) => h.note)), ids(want.map((h) => h.note)), label);
            const page = await project.list({ limit: 10, ...filter });
            const wantPage = await local.list({ limit: 10, ...filter });
            assert.deepEqual(ids(page.notes), ids(wantPage.notes), label);
            assert.equal(page.total, wantPage.total, label);
          }
          assert.deepEqual((await project.get(old.id))?.supersededBy, [fixed.id]);
          // A new note close to a stored one lists it, as remember does locally.
          const draft = { text: "The audit log is kept for 24 months." };
          const mine = await project.remember({ text: "Audit logs are kept for 24 months" });
          const theirs = await local.remember({ text: "Audit logs are kept for 24 months" });
          assert.equal(mine.status, "written");
          assert.deepEqual(mine.similar, theirs.similar);
          assert.equal((await project.remember(draft)).status, "unchanged");
        } finally {
          await local.close();
          await Deno.remove(dir, { recursive: true });
        }
      },
    );

    await t.step(
      "a connection reset as a new connection starts is the query's error, never an unhandled one; arrays of any text go through",
      async () => {
        // A proxy that resets the first connection at the first message after its start-up.
        let cuts = 1;
        const proxy = net.createServer((client) => {
          const server = net.connect(pg.port, "127.0.0.1");
          let messages = 0;
          server.on("data", (d) => client.write(d));
          client.on("data", (d) => {
            if (++messages === 2 && cuts > 0) {
              cuts--;
              client.resetAndDestroy();
              server.destroy();
            } else server.write(d);
          });
          for (const socket of [client, server]) socket.on("error", () => {});
          client.on("close", () => server.destroy());
          server.on("close", () => client.destroy());
        });
        await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
        const url = `postgres://postgres@127.0.0.1:${(proxy.address() as AddressInfo).port}/memo`;
        const unhandled: unknown[] = [];
        const onUnhandled = (e: PromiseRejectionEvent) => {
          unhandled.push(e.reason);
          e.preventDefault();
        };
        globalThis.addEventListener("unhandledrejection", onUnhandled);
        let store: PostgresCloudStore | undefined;
        try {
          // The driver's own query fails (read ECONNRESET): that error is the open's.
          await assert.rejects(
            PostgresCloudStore.open({ url, max: 1 }),
            /^Error: Cannot open the PostgreSQL store: /,
          );
          assert.equal(cuts, 0);
          store = await PostgresCloudStore.open({ url, max: 1 });
          const texts = ["a", 'b"c', "d\\e", "{x,y}", "NULL", " spaced ", "", "é ✓"];
          const rows = await store.sql<{ t: string }[]>`
            SELECT t FROM unnest(${texts}::text[]) WITH ORDINALITY AS q (t, i) ORDER BY i`;
          assert.deepEqual(rows.map((r) => r.t), texts);
          const numbers = await store.sql<{ n: string }[]>`
            SELECT n FROM unnest(${[1, Number.MAX_SAFE_INTEGER, -3]}::int8[]) AS q (n)`;
          assert.deepEqual(numbers.map((r) => r.n), ["1", String(Number.MAX_SAFE_INTEGER), "-3"]);
          assert.deepEqual(unhandled.map(String), []);
        } finally {
          globalThis.removeEventListener("unhandledrejection", onUnhandled);
          await store?.close();
          await new Promise((resolve) => proxy.close(resolve));
        }
      },
    );
  } finally {
    await Promise.all([main.close(), other.close()]);
    await pg.stop();
  }
});
