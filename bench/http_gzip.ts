/**
 * HTTP benchmark of gzip on the hosted endpoint (issue 22, "smaller
 * answers"), in one run against:
 *
 * - base: the same endpoint at another commit (`--base`, default `main`),
 *   checked out for the run in a temporary git worktree (removed at the end),
 *   so that small answers can be held to at least 0.95× of it;
 * - bare: a bare `Deno.serve` answering the very bytes memo answered
 *   (captured at the start of the run), gzipped per request like memo's when
 *   the request asks for gzip (bench/peers/bare.ts), the ceiling;
 * - sdk-v2: the SDK v2's stateless handler (bench/peers/sdk_v2_http.ts) for
 *   `tools/list`, as in bench/http_stateless.ts (it never compresses).
 *
 * memo and base serve the same project (`--notes` English-like notes of
 * bench/_http_kit.ts, plus one short note), with local embeddings off so that
 * no background embedding competes with the load. The workloads, all stateless
 * (MCP 2026-07-28) requests: small answers (`server/discover`, also asking
 * for gzip, and `get_note` of the short note asking for gzip: under 1 KB, so
 * plain, but over 341 characters, so counted in bytes on the way), then
 * `tools/list` and a 50-note `list_notes`, each without and with
 * `Accept-Encoding: gzip`.
 *
 * wrk (Debian's), 2 threads, 32 connections. Each round (3 by default) starts
 * every target, then loads them in turn workload by workload (the order
 * flipping every round), so that memo and base are measured seconds apart
 * under the same background load, with the server's CPU time per request
 * (/proc). On a busy machine, loads taken a few seconds apart move by 2×; so
 * the run ends with the two trees' handlers in this one process, in
 * alternating batches of a few milliseconds (bench/_handler_ab.ts), which
 * holds the 0.95× goal on small answers to a few percent. The report gives
 * medians over the rounds, and memo ÷ base as the median of each round's
 * (or batch pair's) ratio.
 *
 * Run: deno run -A bench/http_gzip.ts [--duration 5] [--warmup 2] [--notes 1000] [--rounds 3] [--base main] [--only memo,base,bare,sdk-v2] [--workloads discover,discover-gz,get-gz,list,list-gz,list50,list50-gz] [--handler on|off] [--json out.json]
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  corpus,
  cpuModel,
  DENO,
  denoServeArgs,
  fmt,
  freePort,
  loadAvg,
  log,
  luaScript,
  onlyTargets,
  requireWrk,
  ROOT,
  seedProject,
  startTarget,
  STATELESS_VERSION,
  statelessRequest,
  type Target,
  wrk,
  type WrkResult,
} from "./_http_kit.ts";
import { checkGoals, type Goal, median } from "./_report.ts";
import { gunzip, rawPost } from "../testing/raw_http.ts";
import { type AbResult, type AbSide, handlerAb, responseStepAb } from "./_handler_ab.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "2" },
    notes: { type: "string", default: "1000" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "3" },
    base: { type: "string", default: "main" },
    only: { type: "string" },
    workloads: { type: "string" },
    handler: { type: "string", default: "on" },
    json: { type: "string" },
  },
});
const DURATION = Number(flags.duration);
const WARMUP = Number(flags.warmup);
const NOTES = Number(flags.notes);
const CONNECTIONS = Number(flags.connections);
const ROUNDS = Number(flags.rounds);

/** Target names, in the order of a round. */
const NAMES = ["memo", "base", "bare", "sdk-v2"] as const;
const GZIP = { "Accept-Encoding": "gzip" };

/** One kind of request sent under load. */
interface Workload {
  key: string;
  label: string;
  headers: Record<string, string>;
  body: string;
  /** Whether it counts as a small answer (held to 0.95× of base). */
  small?: boolean;
  /** Whether memo and base answer it alike (then their handlers are also compared in process). */
  paired?: boolean;
  script?: string;
}

/** What one answer looks like on the wire. */
interface Answer {
  status: number;
  encoding: string | null;
  /** Body bytes as sent. */
  bytes: number;
  /** The JSON, decoded. */
  text: string;
}

/** POSTs one request over a raw socket (so that the bytes on the wire are seen). */
async function answerOf(url: string, w: Workload): Promise<Answer> {
  const { port, pathname } = new URL(url);
  const raw = await rawPost(Number(port), pathname, w.body, w.headers);
  const encoding = raw.headers.get("content-encoding");
  return {
    status: raw.status,
    encoding,
    bytes: raw.body.length,
    text: encoding === "gzip" ? await gunzip(raw.body) : new TextDecoder().decode(raw.body),
  };
}

/** Checks one answer: 200, a complete result without a tool error. */
function checked(url: string, w: Workload, a: Answer): Answer {
  const json = JSON.parse(a.text);
  if (a.status !== 200 || !json.result || json.result.isError) {
    throw new Error(`${url} ${w.key}: unexpected answer ${a.status} ${a.text.slice(0, 300)}`);
  }
  return a;
}

/** Adds a git worktree of `ref` in a temporary folder; returns it and the commit. */
async function worktreeOf(ref: string): Promise<{ dir: string; commit: string }> {
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", { args, cwd: ROOT, stderr: "piped", stdout: "piped" })
      .output();
    if (!out.success) {
      throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return new TextDecoder().decode(out.stdout).trim();
  };
  const dir = `${await Deno.makeTempDir({ prefix: "memo-bench-base-" })}/memo`;
  await git("worktree", "add", "--detach", dir, ref);
  return { dir, commit: await git("-C", dir, "rev-parse", "--short", "HEAD") };
}

async function removeWorktree(dir: string): Promise<void> {
  await new Deno.Command("git", {
    args: ["worktree", "remove", "--force", dir],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
  }).output();
  await Deno.remove(dir.slice(0, dir.lastIndexOf("/")), { recursive: true }).catch(() => {});
}

/**
 * CPU seconds a process has used so far (user + system, all its threads;
 * /proc/PID/stat counts in ticks of 1/100 s).
 */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Stops a target, killing it if it has not exited 10 s after SIGTERM. */
async function stopTarget(t: Target): Promise<void> {
  const timer = setTimeout(() => {
    try {
      Deno.kill(t.pid, "SIGKILL");
    } catch { /* gone */ }
  }, 10_000);
  await t.stop();
  clearTimeout(timer);
}

if (import.meta.main) await main();

async function main() {
  await requireWrk();
  const only = onlyTargets(flags.only, NAMES);
  log(`seeding ${NOTES} notes`);
  const { drafts } = corpus(NOTES);
  const project = await seedProject(NOTES, drafts);
  let shortId: string;
  {
    const { openMemo } = await import("../memory/mod.ts");
    const memo = await openMemo({ rootDir: project });
    shortId = (await memo.remember({ title: "Short note", text: "Deploys run with make deploy." }))
      .note.id;
    await memo.close();
  }
  const env = { MEMO_ROOT_DIR: project, MEMO_LOCAL_EMBEDDINGS: "false" };
  let base: { dir: string; commit: string } | undefined;
  try {
    base = only.has("base") ? await worktreeOf(flags.base!) : undefined;
    if (base) log(`base: ${flags.base} at ${base.commit} in ${base.dir}`);
    await measure(only, env, shortId, base);
  } finally {
    await Deno.remove(project, { recursive: true }).catch(() => {});
    if (base) await removeWorktree(base.dir);
  }
}

/** The run itself, once the project and the base's worktree exist. */
async function measure(
  only: Set<string>,
  env: Record<string, string>,
  shortId: string,
  base: { dir: string; commit: string } | undefined,
): Promise<void> {
  const startMemo = (port: number) => startTarget("memo", denoServeArgs(port), env, port);

  const list = statelessRequest("tools/list");
  const list50 = statelessRequest("tools/call", { name: "list_notes", arguments: { limit: 50 } });
  const discover = statelessRequest("server/discover");
  const workloads: Workload[] = [
    { key: "discover", label: "server/discover", small: true, paired: true, ...discover },
    {
      key: "discover-gz",
      label: "server/discover, asking for gzip",
      small: true,
      paired: true,
      ...discover,
    },
    {
      key: "get-gz",
      label: "get_note (a short note), asking for gzip",
      small: true,
      paired: true,
      ...statelessRequest("tools/call", { name: "get_note", arguments: { id: shortId } }),
    },
    { key: "list", label: "tools/list", paired: true, ...list },
    { key: "list-gz", label: "tools/list, gzip", ...list },
    { key: "list50", label: "list_notes, 50 notes", paired: true, ...list50 },
    { key: "list50-gz", label: "list_notes, 50 notes, gzip", ...list50 },
  ];
  for (const w of workloads) {
    if (w.key.endsWith("-gz")) w.headers = { ...w.headers, ...GZIP };
  }
  const chosen = new Set(flags.workloads?.split(",") ?? workloads.map((w) => w.key));
  for (const key of chosen) {
    if (!workloads.some((w) => w.key === key)) throw new Error(`--workloads: unknown ${key}`);
  }
  const byKey = (key: string) => workloads.find((w) => w.key === key)!;

  // memo's answers, byte for byte, for the ceiling; and the short note's id.
  const answerFiles: Record<string, string> = {};
  const sizes: Record<string, Answer> = {};
  const memo = await startMemo(freePort());
  try {
    for (const w of workloads) sizes[w.key] = checked(memo.url, w, await answerOf(memo.url, w));
    for (const key of ["discover", "list", "list50"]) {
      answerFiles[key] = await Deno.makeTempFile({ suffix: ".json" });
      await Deno.writeTextFile(answerFiles[key], sizes[key].text);
    }
  } finally {
    await stopTarget(memo);
  }
  for (const w of workloads) {
    const a = sizes[w.key];
    log(
      `${w.label}: ${a.bytes} bytes on the wire${
        a.encoding ? ` (${a.encoding}, ${a.text.length} plain)` : ""
      }`,
    );
  }

  // Which workloads each target runs, and how it starts (bare: once per answer).
  interface Plan {
    target: string;
    start: (port: number) => Promise<Target>;
    workloads: Workload[];
  }
  const bare = (answer?: string) => (port: number) =>
    startTarget(
      "bare",
      ["run", "-A", "bench/peers/bare.ts", String(port), ...(answer ? [answer] : [])],
      {},
      port,
    );
  const plans: Plan[] = [];
  if (only.has("memo")) plans.push({ target: "memo", start: startMemo, workloads });
  if (base) {
    plans.push({
      target: "base",
      start: (port) => startTarget("base", denoServeArgs(port), env, port, DENO, base.dir),
      workloads,
    });
  }
  if (only.has("bare")) {
    plans.push({
      target: "bare",
      start: bare(answerFiles.discover),
      workloads: [byKey("discover"), byKey("discover-gz")],
    });
    plans.push({
      target: "bare",
      start: bare(answerFiles.list),
      workloads: [byKey("list"), byKey("list-gz")],
    });
    plans.push({
      target: "bare",
      start: bare(answerFiles.list50),
      workloads: [byKey("list50"), byKey("list50-gz")],
    });
  }
  if (only.has("sdk-v2")) {
    plans.push({
      target: "sdk-v2",
      start: (p) =>
        startTarget(
          "sdk-v2",
          ["run", "-A", "--lock=deno.dev.lock", "bench/peers/sdk_v2_http.ts", String(p)],
          {},
          p,
        ),
      workloads: [byKey("list"), byKey("list-gz")],
    });
  }
  for (const w of workloads) w.script = await luaScript([w.body], w.headers);

  interface Row extends WrkResult {
    round: number;
    target: string;
    key: string;
    workload: string;
    wireBytes: number;
    /** Server CPU time per request, µs. */
    cpuUs: number;
    loadavg: string;
  }
  const rows: Row[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // Every target of the round listens at once (idle until loaded), and each
      // workload goes to them in turn, so that memo and base are measured
      // seconds apart; the order flips every round.
      const started: { plan: Plan; target: Target }[] = [];
      try {
        for (const plan of plans) started.push({ plan, target: await plan.start(freePort()) });
        for (const w of workloads.filter((w) => chosen.has(w.key))) {
          const turn = started.filter((s) => s.plan.workloads.includes(w));
          if (round % 2 === 0) turn.reverse();
          for (const { plan, target } of turn) {
            const a = checked(target.url, w, await answerOf(target.url, w));
            await wrk(target.url, w.script!, WARMUP, CONNECTIONS);
            const loadavg = loadAvg();
            const cpuBefore = cpuSeconds(target.pid);
            const r = await wrk(target.url, w.script!, DURATION, CONNECTIONS);
            const cpuUs = (cpuSeconds(target.pid) - cpuBefore) / r.requests * 1e6;
            rows.push({
              round,
              target: plan.target,
              key: w.key,
              workload: w.label,
              wireBytes: a.bytes,
              ...r,
              cpuUs,
              loadavg,
            });
            log(
              `round ${round} ${plan.target} ${w.label}: ${r.rps.toFixed(0)} req/s, ` +
                `p50 ${r.p50ms.toFixed(2)} ms, p99 ${r.p99ms.toFixed(2)} ms, ` +
                `${
                  cpuUs.toFixed(0)
                } µs CPU/request, ${a.bytes} B, errors ${r.errors} (load ${loadavg})`,
            );
          }
        }
      } finally {
        for (const { target } of started) await stopTarget(target);
      }
    }
  } finally {
    for (const file of [...Object.values(answerFiles), ...workloads.map((w) => w.script!)]) {
      await Deno.remove(file).catch(() => {});
    }
  }

  // Medians over the rounds, per target and workload; memo ÷ other as the
  // median of each round's ratio (throughput: memo ÷ other; CPU: other ÷ memo,
  // so that above 1 is better in both).
  const cell = (target: string, key: string) =>
    rows.filter((r) => r.target === target && r.key === key);
  const ratio = (key: string, of: string, by: (memo: Row, other: Row) => number) => {
    const per = cell("memo", key).map((m) => {
      const o = cell(of, key).find((r) => r.round === m.round);
      return o ? by(m, o) : NaN;
    }).filter(Number.isFinite);
    return per.length ? median(per) : NaN;
  };
  const rpsRatio = (key: string, of: string) => ratio(key, of, (m, o) => m.rps / o.rps);
  const cpuRatio = (key: string, of: string) => ratio(key, of, (m, o) => o.cpuUs / m.cpuUs);
  const med = (cells: Row[], pick: (r: Row) => number) => median(cells.map(pick));
  const lines: string[] = [];
  lines.push(
    `machine: ${cpuModel()}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
      `wrk -t2 -c${CONNECTIONS} -d${DURATION}s (${WARMUP} s warm-up); ${ROUNDS} round(s), medians; ` +
      `${NOTES + 1} notes; base ${flags.base}${
        base ? ` (${base.commit})` : ""
      }; ${STATELESS_VERSION}`,
    "",
    "| workload | target | bytes | req/s | p50 ms | p99 ms | CPU µs/req | req/s ÷ base | CPU base ÷ memo | req/s ÷ bare |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const w of workloads) {
    for (const target of NAMES) {
      const cells = cell(target, w.key);
      if (!cells.length) continue;
      const memo = target === "memo";
      const cols = [
        w.label,
        target,
        String(cells[0].wireBytes),
        fmt(med(cells, (r) => r.rps)),
        fmt(med(cells, (r) => r.p50ms), 2),
        fmt(med(cells, (r) => r.p99ms), 2),
        fmt(med(cells, (r) => r.cpuUs)),
        memo ? fmt(rpsRatio(w.key, "base"), 2) : "",
        memo ? fmt(cpuRatio(w.key, "base"), 2) : "",
        memo ? fmt(rpsRatio(w.key, "bare"), 2) : "",
      ];
      lines.push(`| ${cols.join(" | ")} |`);
    }
  }
  // The handlers of both trees in this process, in alternating batches.
  let ab: AbResult[] = [];
  let steps: AbResult[] = [];
  if (base && only.has("memo") && flags.handler !== "off") {
    log("handler A/B in process");
    ab = await handlerAb(
      ROOT,
      `${base.dir}/`,
      workloads.filter((w) => w.paired && chosen.has(w.key)).map((w) => ({
        key: w.key,
        label: w.label,
        headers: w.headers,
        body: w.key === "get-gz" ? w.body.replace(shortId, "{id}") : w.body,
      })),
    );
    // The one step of the small answers' path that changed, alone.
    log("the answer's last step A/B in process");
    steps = await responseStepAb(
      ROOT,
      `${base.dir}/`,
      workloads.filter((w) => w.small && chosen.has(w.key)).map((w) => ({
        key: w.key,
        label: w.label,
        json: sizes[w.key].text,
        headers: w.headers,
      })),
    );
    lines.push(
      "",
      "In one process, alternating batches, CPU time, each side's fastest tenth (and median) " +
        "of 60 batches. The handlers: each tree's createHttpHandler and protocol server on an " +
        "in-memory runtime of 50 notes, batches of 300 requests:",
      "",
      "| workload | memo µs/req | base µs/req | memo ÷ base (throughput) |",
      "|---|---:|---:|---:|",
    );
    const us = (x: AbSide, digits: number, scale = 1) =>
      `${fmt(x.fast * scale, digits)} (${fmt(x.median * scale, digits)})`;
    for (const r of ab) {
      lines.push(`| ${r.label} | ${us(r.memo, 1)} | ${us(r.base, 1)} | ${fmt(r.ratio, 3)} |`);
    }
    lines.push(
      "",
      "The one step of a small answer's path that changed: the Response built from the answer " +
        "(memo: answerResponse, which also decides on gzip; base: rpcResponse), batches of " +
        "5,000, set against what a whole request costs base over HTTP (its CPU per request " +
        "above):",
      "",
      "| workload | bytes | memo ns | base ns | added ns | base µs/request | bound on memo ÷ base |",
      "|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const r of steps) {
      lines.push(
        `| ${r.label} | ${sizes[r.key].bytes} | ${us(r.memo, 0, 1000)} | ` +
          `${us(r.base, 0, 1000)} | ${fmt((r.memo.fast - r.base.fast) * 1000)} | ` +
          `${fmt(med(cell("base", r.key), (x) => x.cpuUs))} | ${fmt(bound(r.key), 4)} |`,
      );
    }
  }
  /** 1 − (what the step adds ÷ base's CPU per request over HTTP). */
  function bound(key: string): number {
    const r = steps.find((x) => x.key === key);
    const whole = med(cell("base", key), (x) => x.cpuUs);
    return r ? 1 - Math.max(0, r.memo.fast - r.base.fast) / whole : NaN;
  }
  const goals: Goal[] = workloads.filter((w) => w.small && chosen.has(w.key)).flatMap((w) => [{
    goal: `${w.label}: memo ≥ 0.95× base (${flags.base}), bound from the changed step`,
    value: bound(w.key),
    min: 0.95,
    shown: (v: number) => `${v.toFixed(4)}×`,
  }, {
    goal: `${w.label}: memo ≥ 0.95× base (${flags.base}), handlers in one process`,
    value: ab.find((r) => r.key === w.key)?.ratio ?? NaN,
    min: 0.95,
    shown: (v: number) => `${v.toFixed(3)}×`,
  }, {
    goal: `${w.label}: memo ≥ 0.95× base (${flags.base}) over HTTP, req/s in turn`,
    value: rpsRatio(w.key, "base"),
    min: 0.95,
    shown: (v: number) => `${v.toFixed(3)}×`,
  }, {
    goal: `${w.label}: memo ≥ 0.95× base (${flags.base}) over HTTP, CPU per request`,
    value: cpuRatio(w.key, "base"),
    min: 0.95,
    shown: (v: number) => `${v.toFixed(3)}×`,
  }]);
  const checkedGoals = checkGoals(goals);
  lines.push("", "| goal | measured | met |", "|---|---:|---|");
  for (const g of checkedGoals) lines.push(`| ${g.goal} | ${g.measured} | ${g.met} |`);
  console.log(lines.join("\n"));
  if (flags.json) {
    await Deno.writeTextFile(
      flags.json,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          cpu: cpuModel(),
          base: base?.commit,
          rows,
          handlers: ab,
          steps,
          goals: checkedGoals,
        },
        null,
        2,
      ) + "\n",
    );
  }
  const errors = rows.reduce((a, r) => a + r.errors, 0);
  if (errors > 0) {
    console.error(`bench: ${errors} errors under load`);
    Deno.exit(1);
  }
}
