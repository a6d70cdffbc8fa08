/**
 * Where a cold recall's time goes (issue 35): a project of `--notes` notes (the 1 KB notes of
 * `bench/index_scale.ts`) and its index snapshot in PostgreSQL; then, in fresh processes
 * alternating, the steps of an instance's first recall timed one by one:
 *
 * - from the snapshot: the header query, the bytes (binary `COPY` on a connection of its own), the
 *   checksum and the decoding of the arrays, the rows and the import into a `ProjectIndex`, the
 *   changes after it, the first ranking;
 * - the rebuild: every note read from PostgreSQL and indexed, the first ranking;
 * - and the whole first recall through `PostgresCloudStore` (the store's own path, both ways).
 *
 * Run: deno run -A bench/cloud_cold_parts.ts [--notes 30000] [--runs 3]
 *
 * @module
 */

import { parseArgs } from "node:util";
import postgres from "postgres";
import { decodeLexicalSnapshot } from "@memo/memory";
import { PostgresCloudStore, PostgresMemoryStore } from "../cloud/postgres/store.ts";
import { latestSnapshot, readSnapshot } from "../cloud/postgres/_snapshots.ts";
import { changesAfter, readAllNotes } from "../cloud/postgres/_index_reads.ts";
import { snapshotFormat } from "../cloud/projects/index_snapshot.ts";
import { ProjectIndex } from "../cloud/projects/project_index.ts";
import { SCHEMA_VERSION } from "../cloud/postgres/_migrations.ts";
import { startPostgres } from "../tests/_postgres.ts";
import { cpuModel, loadAvg, log } from "./_http_kit.ts";
import { corpus } from "./index_scale.ts";

const { values: flags, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    notes: { type: "string", default: "30000" },
    runs: { type: "string", default: "3" },
  },
});

/** One fresh process: `mode` is `parts` (the snapshot's steps), `rebuild` or `store-*`. */
async function child(url: string, mode: string, query: string) {
  const store = await PostgresCloudStore.open({ url, max: 4, snapshots: false });
  const sql = store.sql;
  await sql`SELECT 1`;
  const ms: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    ms[name] = Math.round((now - t) * 10) / 10;
    t = now;
  };
  const start = performance.now();
  if (mode.startsWith("store")) {
    await (await store.project("bench", "p")).recall(query, { limit: 10 });
    lap("recall");
  } else {
    const pid = (await new PostgresMemoryStore({ sql, workspaceId: "bench", projectId: "p" })
      .pid())!;
    const format = snapshotFormat(SCHEMA_VERSION);
    let index: ProjectIndex;
    t = performance.now();
    if (mode === "parts") {
      const header = (await latestSnapshot(sql, pid, format))!;
      lap("header");
      const conn = postgres(url, { max: 1, onnotice: () => {} });
      await conn`SELECT 1`; // the store keeps one connected ahead of need
      t = performance.now();
      const bytes = await readSnapshot(() => conn, pid, format, header);
      lap("read");
      const key = `${format}:${pid}:${header.seq}`;
      decodeLexicalSnapshot(bytes, key);
      lap("checksum+arrays");
      index = ProjectIndex.importSnapshot(bytes, key)!;
      lap("import");
      ms.importLessArrays = Math.round((ms.import - ms["checksum+arrays"]) * 10) / 10;
      await changesAfter(sql, pid, index.seq);
      lap("changes");
      ms.MB = Math.round(bytes.byteLength / 1048576);
    } else {
      index = new ProjectIndex();
      index.finish(await readAllNotes(sql, pid, (page) => index.add(page)));
      lap("build");
    }
    index.search(query, { limit: 10 });
    lap("ranking");
  }
  ms.total = Math.round(performance.now() - start);
  console.log(JSON.stringify(ms));
  await store.close();
}

if (import.meta.main && positionals[0] === "child") {
  await child(positionals[1], positionals[2], positionals[3]);
} else if (import.meta.main) {
  const notes = Number(flags.notes);
  log(`cloud_cold_parts: ${notes} notes; ${cpuModel()}, load ${loadAvg()}`);
  const pg = await startPostgres();
  try {
    const { note, queries } = corpus(50_000);
    const store = await PostgresCloudStore.open({
      url: pg.url,
      max: 4,
      snapshots: { minNotes: 100, minChanges: 1, changeRatio: 0, delayMs: 0 },
    });
    const project = await store.project("bench", "p");
    for (let i = 0; i < notes; i += 1000) {
      await project.upsert(Array.from({ length: Math.min(1000, notes - i) }, (_, k) => {
        const n = note(i + k);
        return { text: n.body, title: n.title, labels: n.labels };
      }));
    }
    await project.recall("warm", { limit: 10 });
    while (store.stats().snapshots!.written < 1) await new Promise((r) => setTimeout(r, 50));
    await store.close();
    const asked = queries(50);
    const all: Record<string, Record<string, number>[]> = {};
    let q = 0;
    for (let run = 0; run < Number(flags.runs); run++) {
      for (const mode of ["rebuild", "parts", "store-with"]) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", import.meta.filename!, "child", pg.url, mode, asked[q++]],
          stderr: "inherit",
        }).output();
        const ms = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
        (all[mode] ??= []).push(ms);
        log(`${mode}: ${JSON.stringify(ms)}`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    for (const [mode, rows] of Object.entries(all)) {
      const keys = Object.keys(rows[0]);
      console.log(
        `${mode}: ` + keys.map((k) => `${k} ${median(rows.map((r) => r[k]))}`).join(", "),
      );
    }
    console.log(`load ${loadAvg()}`);
  } finally {
    await pg.stop();
  }
}
