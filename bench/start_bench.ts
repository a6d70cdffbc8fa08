/**
 * Cold start A/B: how long `memo mcp` takes from its spawn to the `initialize` result, against
 * memo at an older commit (the baseline, `--base`, 5081ee0 by default: the end of the MCP
 * 2026-07-28 work, before semantic recall) and the official SDK's `McpServer` stdio server, under
 * Deno and under Node, in one run:
 *
 * - `deno run -A cli.ts mcp` of this checkout and of the baseline (a temporary git worktree);
 * - `node …/@memo/mcp-server/cli.js mcp` of both, each built with its own
 *   `scripts/build_npm.ts` and installed into an empty project (`npm install --install-links`);
 * - the SDK v1 `McpServer` with one `echo` tool over `StdioServerTransport`, under Node
 *   (`sdk_server.mjs`, as `bench/npm_bench.ts`) and under Deno (`bench/stdio_sdk_peer.ts`).
 *
 * A start is timed as `bench/stdio_bench.ts` times it: the SDK's `Client` over
 * `StdioClientTransport`, from the spawn to the `initialize` result, on an empty project; the
 * client then closes (which ends the process). One warm-up round is not counted; each round
 * starts every contender once, in an order that rotates from round to round. Reports p50 and p95
 * of each and the ratios the goals read: memo ≤ 1.1× the baseline (same runtime), and memo ≤ 0.3×
 * the SDK server under Node; and, less moved by a busy machine than the wall time, the CPU time of
 * the server's threads when the `initialize` result arrives (`/proc/<pid>/task/…/schedstat`).
 *
 * Run: deno run -A --lock=deno.dev.lock bench/start_bench.ts [--rounds 15] [--base 5081ee0] [--deno-only] [--json FILE]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { percentile } from "./_report.ts";
import { type StdioCommand, timedConnect } from "./_stdio_kit.ts";
import { DENO, loadAvg, log, ROOT } from "./_http_kit.ts";
import { buildNpm, installApp, run, SDK, SDK_SERVER } from "./_npm_kit.ts";
import { checkoutAt, currentCommit } from "./_checkout.ts";
import { threadsCpuMs } from "./_mcp_process.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "15" },
    base: { type: "string", default: "5081ee0" },
    "deno-only": { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds);
/** The goal of issue 22: memo's cold start at most this times the baseline's, same runtime. */
const GOAL_VS_BASE = 1.1;
/** The goal of issue 22: memo's cold start at most this times the SDK server's under Node. */
const GOAL_VS_SDK = 0.3;

interface Contender extends StdioCommand {
  name: string;
}

interface Row {
  name: string;
  p50: number;
  p95: number;
  /** Median CPU time of the server's threads at the initialize result. */
  cpuP50: number;
  times: number[];
  cpu: number[];
}

async function main() {
  const work = await Deno.makeTempDir({ prefix: "memo-start-bench-" });
  const here = await currentCommit();
  log(`checking out the baseline ${flags.base}`);
  const base = await checkoutAt(flags.base!, join(work, "base"));
  try {
    const project = join(work, "project");
    await Deno.mkdir(project);
    const memoArgs = ["mcp", "--dir", project];
    const contenders: Contender[] = [
      {
        name: `memo ${here} (deno)`,
        command: DENO,
        args: ["run", "-A", "--quiet", `${ROOT}cli.ts`, ...memoArgs],
        cwd: ROOT,
      },
      {
        name: `memo ${base.commit} (deno)`,
        command: DENO,
        args: ["run", "-A", "--quiet", `${base.dir}/cli.ts`, ...memoArgs],
        cwd: base.dir,
      },
      {
        name: "SDK McpServer (deno)",
        command: DENO,
        args: [
          "run",
          "-A",
          "--quiet",
          `--lock=${ROOT}deno.dev.lock`,
          `${ROOT}bench/stdio_sdk_peer.ts`,
        ],
        cwd: ROOT,
      },
    ];
    let node = "";
    if (!flags["deno-only"]) {
      log("building and installing the npm packages of both commits, and the SDK");
      const [now, old] = await Promise.all([
        buildNpm(ROOT, join(work, "npm-now")).then(() =>
          installApp(join(work, "app-now"), join(work, "npm-now"), [SDK])
        ),
        buildNpm(base.dir, join(work, "npm-base")).then(() =>
          installApp(join(work, "app-base"), join(work, "npm-base"))
        ),
      ]);
      const sdkServer = join(work, "app-now", "sdk_server.mjs");
      await Deno.writeTextFile(sdkServer, SDK_SERVER);
      node = (await run("node", ["--version"], work)).trim();
      contenders.push(
        { name: `memo ${here} (node)`, command: "node", args: [now, ...memoArgs], cwd: work },
        {
          name: `memo ${base.commit} (node)`,
          command: "node",
          args: [old, ...memoArgs],
          cwd: work,
        },
        {
          name: "SDK McpServer (node)",
          command: "node",
          args: [sdkServer],
          cwd: join(work, "app-now"),
        },
      );
    }

    const times: number[][] = contenders.map(() => []);
    const cpu: number[][] = contenders.map(() => []);
    const loads: string[] = [loadAvg()];
    for (let round = -1; round < ROUNDS; round++) {
      log(round < 0 ? "warm-up round" : `round ${round + 1}/${ROUNDS}`);
      // Rotate the order so that no contender always runs right after another.
      for (let k = 0; k < contenders.length; k++) {
        const i = (k + Math.max(round, 0)) % contenders.length;
        const { client, ms, pid } = await timedConnect(contenders[i]);
        const cpuMs = pid === null ? NaN : threadsCpuMs(pid);
        await client.close();
        if (round >= 0) {
          times[i].push(ms);
          cpu[i].push(cpuMs);
        }
      }
    }
    loads.push(loadAvg());

    const rows: Row[] = contenders.map((c, i) => {
      const sorted = [...times[i]].sort((a, b) => a - b);
      return {
        name: c.name,
        p50: percentile(sorted, 0.5),
        p95: percentile(sorted, 0.95),
        cpuP50: percentile([...cpu[i]].sort((a, b) => a - b), 0.5),
        times: times[i],
        cpu: cpu[i],
      };
    });
    const p50 = (i: number) => rows[i]?.p50 ?? NaN;
    const cpu50 = (i: number) => rows[i]?.cpuP50 ?? NaN;
    const cpuRatios = { denoVsBase: cpu50(0) / cpu50(1), nodeVsBase: cpu50(3) / cpu50(4) };
    const ratios = {
      denoVsBase: p50(0) / p50(1),
      denoVsSdkDeno: p50(0) / p50(2),
      denoVsSdkNode: p50(0) / p50(5),
      nodeVsBase: p50(3) / p50(4),
      nodeVsSdkNode: p50(3) / p50(5),
      baseDenoVsSdkNode: p50(1) / p50(5),
    };

    const machine =
      `${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, ` +
      `Deno ${Deno.version.deno}${node ? `, node ${node}` : ""}`;
    const f = (n: number) => Number.isFinite(n) ? n.toFixed(0) : "-";
    const r = (n: number) => Number.isFinite(n) ? `${n.toFixed(2)}×` : "-";
    console.log(`cold start: ${machine}; load average ${loads.join(" → ")}`);
    console.log(
      `\nspawn to the initialize result, empty project, ${ROUNDS} rounds alternating (ms)\n`,
    );
    console.log("| server | p50 | p95 | CPU at the answer, p50 |");
    console.log("|---|---:|---:|---:|");
    for (const row of rows) {
      console.log(`| ${row.name} | ${f(row.p50)} | ${f(row.p95)} | ${f(row.cpuP50)} |`);
    }
    console.log("\n| ratio of the p50s | measured | goal |");
    console.log("|---|---:|---:|");
    console.log(
      `| memo ÷ memo ${base.commit}, Deno | ${r(ratios.denoVsBase)} | ≤ ${GOAL_VS_BASE}× |`,
    );
    console.log(
      `| memo ÷ memo ${base.commit}, Node | ${r(ratios.nodeVsBase)} | ≤ ${GOAL_VS_BASE}× |`,
    );
    console.log(`| CPU: memo ÷ memo ${base.commit}, Deno | ${r(cpuRatios.denoVsBase)} | |`);
    console.log(`| CPU: memo ÷ memo ${base.commit}, Node | ${r(cpuRatios.nodeVsBase)} | |`);
    console.log(
      `| memo (Deno) ÷ SDK server (Node) | ${r(ratios.denoVsSdkNode)} | ≤ ${GOAL_VS_SDK}× |`,
    );
    console.log(`| memo (Node) ÷ SDK server (Node) | ${r(ratios.nodeVsSdkNode)} | |`);
    console.log(`| memo (Deno) ÷ SDK server (Deno) | ${r(ratios.denoVsSdkDeno)} | |`);
    console.log(
      `| memo ${base.commit} (Deno) ÷ SDK server (Node) | ${r(ratios.baseDenoVsSdkNode)} | |`,
    );
    if (flags.json) {
      const result = {
        date: new Date().toISOString(),
        machine,
        commit: here,
        base: base.commit,
        rounds: ROUNDS,
        load: loads,
        rows,
        ratios,
        cpuRatios,
      };
      await Deno.writeTextFile(flags.json, JSON.stringify(result, null, 2) + "\n");
    }
  } finally {
    await base.remove();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) await main();
