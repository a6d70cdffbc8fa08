/**
 * The index budget bounds an instance's memory (issue 35): with a budget of B, a Cloud API instance
 * (`deno serve cloud/main.ts`, as deployed) that has served many projects settles at most at the
 * RSS of one that served one project plus 2 × B. "Settles": its RSS 10 s after the last request.
 *
 * In one run, on one PostgreSQL cluster: `--projects` projects of `--notes` short notes (about 240
 * characters, the notes of `bench/cloud_scale.ts`'s budget run) with their index snapshots; then,
 * for each budget, an instance that serves one project (a few recalls) and one that serves every
 * project (`--passes` passes in turn, then `--recalls` recalls of random projects), each settled.
 *
 * Run: deno run -A bench/cloud_budget.ts [--projects 120] [--notes 1500] [--budgets 64]
 *        [--passes 2] [--recalls 600] [--settle 10] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { startPostgres } from "../tests/_postgres.ts";
import { cpuModel, loadAvg, log } from "./_http_kit.ts";
import { startInstance } from "./_cloud_at_scale.ts";
import { seedProjects, writeSnapshots } from "./_budget_calibration.ts";
import { corpus } from "./index_scale.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    projects: { type: "string", default: "120" },
    notes: { type: "string", default: "1500" },
    budgets: { type: "string", default: "64" },
    passes: { type: "string", default: "2" },
    recalls: { type: "string", default: "600" },
    settle: { type: "string", default: "10" },
    json: { type: "string" },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (import.meta.main) {
  const projects = Number(flags.projects);
  const notes = Number(flags.notes);
  const settleMs = Number(flags.settle) * 1000;
  log(`cloud_budget: ${projects} projects of ${notes} notes; ${cpuModel()}, load ${loadAvg()}`);
  const pg = await startPostgres();
  try {
    let t = performance.now();
    const names = await seedProjects(pg.url, "b", projects, notes);
    log(`seeded in ${Math.round((performance.now() - t) / 1000)} s`);
    t = performance.now();
    await writeSnapshots(pg.url, names);
    log(`snapshots written in ${Math.round((performance.now() - t) / 1000)} s`);
    const asked = corpus(50_000).queries(200);
    const rows = [];
    for (const budgetMb of flags.budgets.split(",").map(Number)) {
      const env = { MEMO_CLOUD_INDEX_BUDGET_MB: String(budgetMb) };
      // One project.
      const one = await startInstance(pg.url, env);
      let oneMB: number;
      let oneFigures: unknown;
      try {
        for (let i = 0; i < 20; i++) {
          await one.client(names[0]).recall(asked[i % asked.length], { limit: 10 });
        }
        await sleep(settleMs);
        oneMB = one.rssMB();
        oneFigures = await one.figures();
      } finally {
        await one.kill();
      }
      // Every project.
      const many = await startInstance(pg.url, env);
      try {
        let q = 0;
        const peak: number[] = [];
        for (let pass = 0; pass < Number(flags.passes); pass++) {
          for (const name of names) {
            await many.client(name).recall(asked[q++ % asked.length], { limit: 10 });
          }
          peak.push(many.rssMB());
        }
        let seed = 35;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        for (let i = 0; i < Number(flags.recalls); i++) {
          const name = names[Math.floor(random() * names.length)];
          await many.client(name).recall(asked[q++ % asked.length], { limit: 10 });
        }
        const lastMB = many.rssMB();
        await sleep(settleMs);
        const settledMB = many.rssMB();
        const figures = await many.figures() as { index: Record<string, number> };
        const row = {
          budgetMb,
          oneProjectMB: oneMB,
          afterPassesMB: peak,
          lastRequestMB: lastMB,
          settledMB,
          boundMB: oneMB + 2 * budgetMb,
          overOneInBudgets: Math.round((settledMB - oneMB) / budgetMb * 100) / 100,
          accountedMB: Math.round(figures.index.bytes / 1048576 * 10) / 10,
          heldProjects: figures.index.projects,
          evictions: figures.index.evictions,
          figures,
          oneFigures,
        };
        rows.push(row);
        log(
          `budget ${budgetMb} MB: one project ${oneMB} MB; every project: ${
            peak.join("/")
          } MB after the passes, ` +
            `${lastMB} MB at the last request, settled ${settledMB} MB (bound ${row.boundMB} MB: ` +
            `one + ${row.overOneInBudgets} B); accounted ${row.accountedMB} MB in ${row.heldProjects} projects`,
        );
      } finally {
        await many.kill();
      }
    }
    if (flags.json) {
      await Deno.writeTextFile(
        flags.json,
        JSON.stringify({ projects, notes, rows }, null, 2) + "\n",
      );
    }
  } finally {
    await pg.stop();
  }
}
