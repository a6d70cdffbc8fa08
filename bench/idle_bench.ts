/**
 * Idle cost of `memo mcp` after one lexical recall: RSS and CPU time of the process `--window`
 * seconds after its spawn, with the default offline model (`use-lite`, engine `auto`, which stays
 * lexical with it) against local embeddings turned off (`MEMO_LOCAL_EMBEDDINGS=false`), in one
 * run. With `use-lite` and `auto` nothing of the embedder should load, so the two must be equal
 * within 10%. `--base COMMIT` adds memo at that commit with `use-lite` (a temporary git
 * worktree), to show the cost before a change.
 *
 * Each start: spawn `deno run -A cli.ts mcp --dir <project of 3 notes>`, `initialize`,
 * `notifications/initialized`, one `recall` (`auto`), then nothing until `--window` seconds after
 * the spawn; then RSS (`VmRSS`) and CPU (utime + stime from `/proc/<pid>/stat`, clock ticks of
 * 10 ms) are read and the process is ended by closing its stdin. The contenders take turns
 * (one start each per round, the order rotating); medians over `--rounds`.
 *
 * Run: deno run -A bench/idle_bench.ts [--rounds 9] [--window 6] [--base COMMIT] [--json FILE]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { median } from "./_report.ts";
import { loadAvg, log, ROOT, rssKiB } from "./_http_kit.ts";
import { clockTicks, processTicks, startMcp } from "./_mcp_process.ts";
import { type Checkout, checkoutAt, currentCommit } from "./_checkout.ts";
import { seedSmallProject } from "../testing/small_project.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "9" },
    window: { type: "string", default: "6" },
    base: { type: "string" },
    json: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds);
const WINDOW_MS = Number(flags.window) * 1000;
/** The goal of issue 22: use-lite within this fraction of embeddings off, RSS and CPU. */
const GOAL_WITHIN = 0.1;

interface Contender {
  name: string;
  env: Record<string, string>;
  checkout: string;
}

interface Sample {
  rssMiB: number;
  cpuMs: number;
  engine: string;
}

async function sample(c: Contender, dir: string, ticksPerS: number): Promise<Sample> {
  const spawned = performance.now();
  const mcp = startMcp(c.name, dir, c.env, c.checkout);
  try {
    await mcp.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "idle-bench", version: "1.0.0" },
    });
    await mcp.notify("notifications/initialized");
    const result = await mcp.request("tools/call", {
      name: "recall",
      arguments: { query: "how do deploys run" },
    });
    const rest = WINDOW_MS - (performance.now() - spawned);
    if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    return {
      rssMiB: rssKiB(mcp.pid) / 1024,
      cpuMs: processTicks(mcp.pid) * 1000 / ticksPerS,
      engine: result?.structuredContent?.engine ?? "?",
    };
  } finally {
    await mcp.stop();
  }
}

async function main() {
  const ticksPerS = await clockTicks();
  const work = await Deno.makeTempDir({ prefix: "memo-idle-bench-" });
  const here = await currentCommit();
  let base: Checkout | undefined;
  try {
    const project = join(work, "project");
    await seedSmallProject(project);
    const contenders: Contender[] = [
      { name: `use-lite (${here})`, env: {}, checkout: ROOT },
      {
        name: `embeddings off (${here})`,
        env: { MEMO_LOCAL_EMBEDDINGS: "false" },
        checkout: ROOT,
      },
    ];
    if (flags.base) {
      log(`checking out ${flags.base}`);
      base = await checkoutAt(flags.base, join(work, "base"));
      contenders.push({ name: `use-lite (${base.commit})`, env: {}, checkout: base.dir });
    }
    const samples: Sample[][] = contenders.map(() => []);
    const loads = [loadAvg()];
    for (let round = 0; round < ROUNDS; round++) {
      log(`round ${round + 1}/${ROUNDS}`);
      for (let k = 0; k < contenders.length; k++) {
        const i = (k + round) % contenders.length;
        samples[i].push(await sample(contenders[i], project, ticksPerS));
      }
    }
    loads.push(loadAvg());
    const rows = contenders.map((c, i) => ({
      name: c.name,
      rssMiB: median(samples[i].map((s) => s.rssMiB)),
      cpuMs: median(samples[i].map((s) => s.cpuMs)),
      engines: [...new Set(samples[i].map((s) => s.engine))],
      samples: samples[i],
    }));
    const ratios = { rss: rows[0].rssMiB / rows[1].rssMiB, cpu: rows[0].cpuMs / rows[1].cpuMs };
    const within = (r: number) => Math.abs(r - 1) <= GOAL_WITHIN ? "yes" : "MISSED";
    console.log(
      `idle memo mcp: ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
        `load average ${loads.join(" → ")}`,
    );
    console.log(
      `\n${WINDOW_MS / 1000} s after the spawn, one auto recall served, 3 notes; ` +
        `medians of ${ROUNDS} starts each\n`,
    );
    console.log("| memo mcp | RSS, MiB | CPU, ms | recall engine |");
    console.log("|---|---:|---:|---|");
    for (const r of rows) {
      console.log(
        `| ${r.name} | ${r.rssMiB.toFixed(1)} | ${r.cpuMs.toFixed(0)} | ${r.engines.join(", ")} |`,
      );
    }
    console.log(`\n| use-lite ÷ embeddings off | measured | goal |`);
    console.log("|---|---:|---|");
    console.log(`| RSS | ${ratios.rss.toFixed(2)}× | within 10% (${within(ratios.rss)}) |`);
    console.log(`| CPU | ${ratios.cpu.toFixed(2)}× | within 10% (${within(ratios.cpu)}) |`);
    if (flags.json) {
      await Deno.writeTextFile(
        flags.json,
        JSON.stringify(
          {
            date: new Date().toISOString(),
            rounds: ROUNDS,
            windowS: WINDOW_MS / 1000,
            load: loads,
            rows,
            ratios,
          },
          null,
          2,
        ) + "\n",
      );
    }
  } finally {
    await base?.remove();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
