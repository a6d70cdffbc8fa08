/**
 * memo's HTTP endpoint under Node, this tree against an older commit, side by side (issue 34, the
 * Node adapter): both npm builds (`scripts/build_npm.ts`, installed into empty projects), each
 * `node …/cli.js serve` (`node:http` through `platform/_node_serve.ts`, the request log on, to a
 * pipe), loaded in turn with `wrk -t1 -c32` posting the same request, the order flipping every
 * round. Reports requests per second and the server's CPU time per request (`/proc`), medians of
 * the rounds, and this ÷ base: on a shared machine the CPU a request costs is the steadier figure.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/http_node_ab.ts [--base main] [--rounds 4]
 * [--duration 5] [--workloads session/ping,session/list,stateless/list,stateless/discover]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  cpuMs,
  fmt,
  freePort,
  loadAvg,
  log,
  luaScript,
  requireWrk,
  ROOT,
  rpc,
  SESSION_HEADERS,
  startTarget,
  statelessRequest,
  wrk,
} from "./_http_kit.ts";
import { checkoutAt, currentCommit } from "./_checkout.ts";
import { buildNpm, installApp } from "./_npm_kit.ts";
import { median } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string", default: "main" },
    rounds: { type: "string", default: "4" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    workloads: {
      type: "string",
      default: "session/ping,session/list,stateless/list,stateless/discover",
    },
  },
});

const SESSION = { ...SESSION_HEADERS, "MCP-Protocol-Version": "2025-11-25" };
const WORKLOADS: Record<string, { body: string; headers: Record<string, string> }> = {
  "session/ping": { body: rpc("ping"), headers: SESSION },
  "session/list": { body: rpc("tools/list"), headers: SESSION },
  "stateless/list": statelessRequest("tools/list"),
  "stateless/discover": statelessRequest("server/discover"),
};

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  const keys = flags.workloads.split(",");
  for (const key of keys) if (!WORKLOADS[key]) throw new Error(`unknown workload ${key}`);
  const temp = await Deno.makeTempDir({ prefix: "memo-node-ab-" });
  const project = join(temp, "project");
  await Deno.mkdir(project);
  const base = await checkoutAt(flags.base, join(temp, "base"));
  const head = await currentCommit();
  try {
    const bins: [string, string][] = [];
    for (const [name, repo] of [["this", ROOT], ["base", base.dir]]) {
      log(`building and installing the npm packages of ${name === "this" ? head : base.commit}`);
      await buildNpm(repo, join(temp, `npm-${name}`));
      bins.push([name, await installApp(join(temp, `app-${name}`), join(temp, `npm-${name}`))]);
    }
    const rows = new Map<string, { rps: number[]; cpu: number[]; p99: number[] }>();
    for (let round = 1; round <= Number(flags.rounds); round++) {
      for (const key of keys) {
        const script = await luaScript([WORKLOADS[key].body], WORKLOADS[key].headers);
        for (const [name, bin] of round % 2 ? bins : [...bins].reverse()) {
          const port = freePort();
          const target = await startTarget(
            name,
            [bin, "serve", "--dir", project, "--host", "127.0.0.1", "--port", String(port)],
            {},
            port,
            "node",
          );
          try {
            const url = target.url;
            await wrk(url, script, Number(flags.warmup), 32, 1);
            const before = cpuMs(target.pid);
            const w = await wrk(url, script, Number(flags.duration), 32, 1);
            const cpu = ((cpuMs(target.pid) - before) * 1000) / w.requests;
            const row = rows.get(`${key} ${name}`) ?? { rps: [], cpu: [], p99: [] };
            rows.set(`${key} ${name}`, row);
            row.rps.push(w.rps);
            row.cpu.push(cpu);
            row.p99.push(w.p99ms);
            log(
              `round ${round} ${key} ${name}: ${fmt(w.rps)} req/s, CPU ${
                fmt(cpu, 1)
              } µs/request, ` +
                `p99 ${fmt(w.p99ms, 2)} ms, errors ${w.errors} (load ${loadAvg()})`,
            );
          } finally {
            await target.stop();
          }
        }
      }
    }
    console.log(
      `\n${head} (this) against ${base.commit} (${flags.base}), under Node ${await nodeVersion()}; ` +
        `wrk -t1 -c32 -d${flags.duration}s; ${flags.rounds} rounds, medians\n`,
    );
    console.log(
      "| workload | this req/s | base req/s | req/s this ÷ base | this CPU µs/req | base CPU µs/req | CPU this ÷ base | p99 ms this / base |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const key of keys) {
      const a = rows.get(`${key} this`)!, b = rows.get(`${key} base`)!;
      console.log(
        `| ${key} | ${fmt(median(a.rps))} | ${fmt(median(b.rps))} | ${
          fmt(median(a.rps) / median(b.rps), 2)
        }× | ${fmt(median(a.cpu), 1)} | ${fmt(median(b.cpu), 1)} | ${
          fmt(median(a.cpu) / median(b.cpu), 2)
        }× | ${fmt(median(a.p99), 2)} / ${fmt(median(b.p99), 2)} |`,
      );
    }
  } finally {
    await base.remove();
    await Deno.remove(temp, { recursive: true }).catch(() => {});
  }
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}
