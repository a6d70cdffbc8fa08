/**
 * Corrections, supersede links and `remember` with `supersedes` on the PostgreSQL store read only
 * what they need (`cloud/postgres/_history.ts`), against a real throwaway cluster:
 *
 * - they answer (notes, links, errors and their messages) exactly as a `Memo` client over the
 *   same store does (`MemoCloudProject`, which reads every note), step by step;
 * - in a project of 3,000 notes, each reads a handful of rows, counted by the driver on a pool
 *   of its own (a `Memo` client reads every one of them).
 *
 * @module
 */

import assert from "node:assert/strict";
import postgres from "postgres";
import { PostgresCloudStore, PostgresMemoryStore } from "../cloud/postgres/store.ts";
import { PostgresCloudProject } from "../cloud/postgres/_project.ts";
import { IndexBudget } from "../cloud/projects/budget.ts";
import { MemoCloudProject } from "../cloud/projects/memo_project.ts";
import type { CloudProject } from "../cloud/store.ts";
import { startPostgres } from "./_postgres.ts";

/** A project of the PostgreSQL store over pool `sql` (snapshots off). */
function pgProject(sql: postgres.Sql, projectId: string): PostgresCloudProject {
  const store = new PostgresMemoryStore({ sql, workspaceId: "team", projectId });
  return new PostgresCloudProject(store, {
    sql,
    dedicated: () => sql,
    budget: new IndexBudget(64 * 1024 * 1024),
    format: "test",
    counters: { loaded: 0, rejected: 0, built: 0, written: 0, skipped: 0, failed: 0 },
    background: new Set(),
    clock: () => new Date(),
    transient: { tail: Promise.resolve() },
  }, `team/${projectId}`);
}

type Named = Map<string, string>;

/** An answer or an error with ids named (new ids get names in order) and times left out. */
function shape(value: unknown, names: Named): unknown {
  const name = (id: string) => {
    if (!names.has(id)) names.set(id, `new${names.size}`);
    return names.get(id)!;
  };
  const ids = (text: string) => {
    for (const [id, n] of names) text = text.replaceAll(id, n);
    return text;
  };
  const walk = (v: unknown, key?: string): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    if (typeof v !== "string") return typeof v === "number" && key === "revision" ? "n" : v;
    if (key === "id" || key === "supersedes" || key === "supersededBy" || key === "superseded") {
      return name(v);
    }
    if (key === "hash" || key === "created" || key === "updated") return "t";
    if (key === "validUntil" && !/^2026-03/.test(v)) return "now";
    return ids(v);
  };
  return walk(value);
}

async function outcome(run: () => Promise<unknown>, names: Named): Promise<unknown> {
  try {
    return { ok: shape(await run(), names) };
  } catch (e) {
    const { name, message, code, details } = e as Record<string, unknown>;
    return { error: shape({ name, message, code, details }, names) };
  }
}

Deno.test("PostgreSQL: corrections and supersede links read only what they need", async (t) => {
  const pg = await startPostgres();
  const cloud = await PostgresCloudStore.open({ url: pg.url, max: 2, snapshots: false });
  let rows = 0;
  const counted = postgres(pg.url, {
    max: 2,
    onnotice: () => {},
    transform: { row: { from: (row: unknown) => (rows++, row) } },
  });
  try {
    await t.step("the same answers and errors as a Memo client over the same store", async () => {
      const sides: [CloudProject, Named][] = [
        [
          new MemoCloudProject(
            new PostgresMemoryStore({ sql: cloud.sql, workspaceId: "team", projectId: "memo" }),
            { closeStore: false },
          ),
          new Map(),
        ],
        [pgProject(cloud.sql, "targeted"), new Map()],
      ];
      const seed = [
        { text: "Deploys run on Fridays", validFrom: "2026-01-01" },
        { text: "Staging is eu-west-1" },
        { text: "Staging lives in eu-west-1" },
        { text: "The CI token rotates monthly", source: "wiki:ci" },
        { text: "Backups run nightly" },
      ];
      for (const [project, names] of sides) {
        const written = await project.upsert(seed);
        written.forEach((w, i) => names.set(w.note.id, `seed${i}`));
      }
      const steps: ((ids: (name: string) => string) => (p: CloudProject) => Promise<unknown>)[] = [
        (id) => (p) =>
          p.correct({ id: id("seed0"), text: "Deploys run on Mondays", validFrom: "2026-03-02" }),
        (id) => (p) => p.correct({ id: id("seed0"), text: "Deploys run on Tuesdays" }),
        () => (p) => p.correct({ id: "nope", text: "x" }),
        (id) => (p) => p.correct({ id: id("seed1"), text: "staging IS eu-west-1!" }),
        (id) => (p) => p.correct({ id: id("seed1"), text: "  " }),
        (id) => (p) =>
          p.correct({ id: id("new5"), text: "Deploys run on Sundays", validFrom: "2026-02-01" }),
        (id) => (p) => p.correct({ id: id("seed1"), text: "Staging lives in EU-west-1." }),
        (id) => (p) => p.correct({ id: id("seed1"), text: "Staging lives in EU-west-1." }),
        (id) => (p) => p.supersede({ ids: [id("seed1")], by: id("seed2") }),
        (id) => (p) => p.supersede({ ids: [id("seed2")], by: id("seed1") }),
        (id) => (p) => p.supersede({ ids: [id("seed2")], by: "nope" }),
        (id) => (p) => p.supersede({ ids: ["nope"], by: id("seed4") }),
        (id) => (p) => p.supersede({ ids: [id("seed4")], by: id("seed4") }),
        (id) => (p) => p.supersede({ ids: [id("seed3")], by: id("seed4") }),
        (id) => (p) => p.remember({ text: "Backups run hourly", supersedes: [id("seed4")] }),
        () => (p) => p.remember({ text: "Backups run daily", supersedes: ["nope"] }),
        () => (p) => p.remember({ text: "Backups run daily", supersedes: ["Not An Id"] }),
        (id) => (p) => p.remember({ text: "backups run nightly", supersedes: [id("seed4")] }),
        (id) => (p) => p.remember({ text: "Backups run nightly!", supersedes: [id("seed3")] }),
        (id) => (p) =>
          p.remember({
            text: "CI tokens rotate weekly",
            source: "wiki:ci",
            supersedes: [id("seed0")],
          }),
        (id) => (p) =>
          p.remember({
            text: "CI tokens rotate daily",
            source: "wiki:ci",
            supersedes: [id("seed3")],
          }),
        (id) => (p) => p.remember({ text: "Staging is EU-west-1", supersedes: [id("seed2")] }), // a cycle
        (id) => (p) => p.get(id("seed4")),
      ];
      for (const [i, step] of steps.entries()) {
        const [memo, targeted] = await Promise.all(sides.map(([project, names]) => {
          const byName = new Map([...names].map(([id, n]) => [n, id]));
          return outcome(() => step((n) => byName.get(n) ?? n)(project), names);
        }));
        assert.deepEqual(targeted, memo, `step ${i}`);
        // Key order too: the API answers these objects as they are.
        assert.equal(JSON.stringify(targeted), JSON.stringify(memo), `step ${i}`);
      }
      await (sides[0][0] as MemoCloudProject).close();
    });

    await t.step("in a project of 3,000 notes, each reads a handful of rows", async () => {
      const store = new PostgresMemoryStore({
        sql: cloud.sql,
        workspaceId: "team",
        projectId: "big",
      });
      const drafts = Array.from({ length: 3000 }, (_, i) => ({
        text: `Service ${i} deploys from branch release-${i} at ${i % 24}:00 UTC`,
      }));
      const notes = (await store.upsert(drafts)).map((r) => r.note);
      const project = pgProject(counted, "big");
      const read = async (run: () => Promise<unknown>) => {
        rows = 0;
        await run();
        return rows;
      };
      const fixed = await project.correct({ id: notes[0].id, text: "Service 0 deploys from main" });
      assert.deepEqual(fixed.superseded, [notes[0].id]);
      assert.ok(
        await read(() =>
          project.correct({ id: fixed.note.id, text: "Service 0 deploys from trunk" })
        ) <= 10,
      );
      assert.ok(await read(() => project.supersede({ ids: [notes[1].id], by: notes[2].id })) <= 10);
      // The held index (within the budget) answers `similar`: loaded once, then caught up.
      await project.recall("service", { limit: 1 });
      const remembered = await read(() =>
        project.remember({ text: "Service 3 deploys from main", supersedes: [notes[3].id] })
      );
      assert.ok(remembered <= 20, `${remembered} rows`);
      // What a Memo client reads for the same correction: every note.
      const memo = new MemoCloudProject(
        new PostgresMemoryStore({ sql: counted, workspaceId: "team", projectId: "big" }),
      );
      const all = await read(() =>
        memo.correct({ id: notes[4].id, text: "Service 4 deploys from main" })
      );
      assert.ok(all >= 3000, `${all} rows`);
      await memo.close();
    });
  } finally {
    await counted.end({ timeout: 1 });
    await cloud.close();
    await pg.stop();
  }
});
