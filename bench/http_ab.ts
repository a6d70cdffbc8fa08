/**
 * memo's HTTP endpoint, this tree against an older commit, side by side (issue 34): `memo serve`
 * of both on a seeded project, loaded in turn with `wrk -t1 -c32` posting the same request, the
 * order flipping every round. Under Node (the default) each is its npm build
 * (`scripts/build_npm.ts`, installed into an empty project) run as `node …/cli.js serve`
 * (`node:http` through `platform/_node_serve.ts`); under Deno each checkout's
 * `deno run -A cli.ts serve`. The request log is on, to a pipe. Reports requests per second, the
 * server's CPU time per request (`/proc`) and p99, medians of the rounds, and this ÷ base: on a
 * shared machine the CPU a request costs is the steadier figure.
 *
 * Run: deno run -A --lock=deno.dev.lock bench/http_ab.ts [--host node|deno] [--base main]
 * [--rounds 4] [--duration 5] [--notes 200]
 * [--workloads session/ping,session/list,stateless/list,stateless/discover]
 * (the keys of {@linkcode httpWorkloads}: `session/recall` and `stateless/recall` too)
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import {
  corpus,
  cpuMs,
  DENO,
  fmt,
  freePort,
  httpWorkloads,
  loadAvg,
  log,
  luaScript,
  requireWrk,
  ROOT,
  seedProject,
  startTarget,
  wrk,
} from "./_http_kit.ts";
import { checkoutAt, currentCommit } from "./_checkout.ts";
import { buildNpm, installApp } from "./_npm_kit.ts";
import { median } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    host: { type: "string", default: "node" },
    base: { type: "string", default: "main" },
    rounds: { type: "string", default: "4" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    notes: { type: "string", default: "200" },
    workloads: {
      type: "string",
      default: "session/ping,session/list,stateless/list,stateless/discover",
    },
  },
});

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  const host = flags.host;
  if (host !== "node" && host !== "deno") throw new Error(`--host: node or deno, not ${host}`);
  const notes = Number(flags.notes);
  const { drafts, queries } = corpus(Math.max(notes, 1));
  const workloads = new Map(httpWorkloads(queries[0]).map((w) => [w.key, w]));
  const keys = flags.workloads.split(",");
  for (const key of keys) if (!workloads.has(key)) throw new Error(`unknown workload ${key}`);
  const temp = await Deno.makeTempDir({ prefix: "memo-http-ab-" });
  log(`seeding ${notes} notes`);
  const project = await seedProject(notes, drafts);
  const base = await checkoutAt(flags.base, join(temp, "base"));
  const head = await currentCommit();
  try {
    /** Each side: its name, and the command and arguments (the port last) of its `memo serve`. */
    const sides: [string, string, string[], string][] = [];
    for (const [name, repo] of [["this", ROOT], ["base", base.dir]]) {
      if (host === "deno") {
        sides.push([name, DENO, ["run", "-A", "--lock=deno.lock", "cli.ts"], repo]);
        continue;
      }
      log(`building and installing the npm packages of ${name === "this" ? head : base.commit}`);
      await buildNpm(repo, join(temp, `npm-${name}`));
      const bin = await installApp(join(temp, `app-${name}`), join(temp, `npm-${name}`));
      sides.push([name, "node", [bin], ROOT]);
    }
    const rows = new Map<string, { rps: number[]; cpu: number[]; p99: number[] }>();
    for (let round = 1; round <= Number(flags.rounds); round++) {
      for (const key of keys) {
        const w = workloads.get(key)!;
        const script = await luaScript([w.body], w.headers);
        for (const [name, command, args, cwd] of round % 2 ? sides : [...sides].reverse()) {
          const port = freePort();
          const target = await startTarget(
            name,
            [...args, "serve", "--dir", project, "--host", "127.0.0.1", "--port", String(port)],
            {},
            port,
            command,
            cwd,
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
      `\n${head} (this) against ${base.commit} (${flags.base}), under ${
        host === "node" ? `Node ${await nodeVersion()}` : `Deno ${Deno.version.deno}`
      }; ${notes} notes; wrk -t1 -c32 -d${flags.duration}s; ${flags.rounds} rounds, medians\n`,
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
    await Deno.remove(project, { recursive: true }).catch(() => {});
  }
}

async function nodeVersion(): Promise<string> {
  const out = await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}
