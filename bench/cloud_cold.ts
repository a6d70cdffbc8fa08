/**
 * Cold recall at every size (issue 35): the first recall of a fresh Cloud API instance (`deno
 * serve cloud/main.ts`, its own start not counted) on a project of 10,000, 30,000 and 100,000 notes
 * (the 1 KB notes of `bench/index_scale.ts`), with the project's index snapshot in PostgreSQL
 * against without one (a rebuild from the notes), alternating, all sizes in one run on one
 * PostgreSQL cluster (`coldSnapshot` of `bench/_cloud_at_scale.ts`). Goal: at most 0.25× at every
 * size. The parts of a snapshot load are profiled by `bench/cloud_cold_parts.ts`.
 *
 * Run: deno run -A bench/cloud_cold.ts [--sizes 10000,30000,100000] [--runs 3] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { PostgresCloudStore } from "../cloud/postgres/store.ts";
import { startPostgres } from "../tests/_postgres.ts";
import { cpuModel, loadAvg, log } from "./_http_kit.ts";
import { coldSnapshot } from "./_cloud_at_scale.ts";
import { corpus } from "./index_scale.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    sizes: { type: "string", default: "10000,30000,100000" },
    runs: { type: "string", default: "3" },
    json: { type: "string" },
  },
});

if (import.meta.main) {
  const sizes = flags.sizes.split(",").map(Number);
  log(`cloud_cold: ${sizes.join(", ")} notes; ${cpuModel()}, load ${loadAvg()}`);
  const pg = await startPostgres();
  try {
    const { note, queries } = corpus(50_000);
    const loader = await PostgresCloudStore.open({ url: pg.url, max: 4, snapshots: false });
    try {
      for (const size of sizes) {
        const project = await loader.project("bench", `c${size}`);
        for (let i = 0; i < size; i += 1000) {
          await project.upsert(
            Array.from({ length: Math.min(1000, size - i) }, (_, k) => {
              const n = note(i + k);
              return { text: n.body, title: n.title, labels: n.labels };
            }),
          );
        }
        log(`loaded ${size} notes`);
      }
      await loader.sql.unsafe("VACUUM ANALYZE");
    } finally {
      await loader.close();
    }
    const asked = queries(40);
    const rows = [];
    for (const size of sizes) {
      const result = await coldSnapshot(pg.url, `c${size}`, asked, Number(flags.runs));
      rows.push({ notes: size, ...result });
      log(`${size} notes: ${JSON.stringify(result)}`);
    }
    for (const r of rows) {
      console.log(
        `${r.notes} notes: rebuild ${r.withoutMs.join(", ")} ms; snapshot ${
          r.withMs.join(", ")
        } ms: ${r.ratio}× (goal ≤ 0.25×); snapshot ${r.snapshotMB} MB`,
      );
    }
    if (flags.json) {
      await Deno.writeTextFile(
        flags.json,
        JSON.stringify({ load: loadAvg(), rows }, null, 2) + "\n",
      );
    }
  } finally {
    await pg.stop();
  }
}
