/**
 * The cold latency of `memo hook`, from spawn to exit, beside its yardsticks in the same run:
 *
 * - at 10,000 notes, `memo hook --client claude-code prompt` and `session-start` against
 *   `memo --version` (goal: the hook's p95 at most 2× the version's);
 * - at 100,000 notes (about 103 MB of notes.md), the same hook against a cold `memo recall` of
 *   the same prompt (goal: at most 0.5× the recall's p95).
 *
 * Each project is made with `bench/_notes_corpus.ts`, then warmed once (the hooks' index and the
 * lexical snapshot built: the steady state between two writes). Every process runs with a
 * `MEMO_HOME` of the bench's own: an empty user scope (the hooks, `memo --version` and
 * `memo recall`), and a small one (`--user-notes`, default 50 notes, some about the prompt's
 * words: `memo hook … (user N)` and, at 100k, `memo recall (user N)`), so that the hook reads
 * every scope as one memory and is held to the same goals. Each round starts every
 * contender once, in an order that rotates from round to round; every hook run has a fresh
 * session id. The hooks' index build (`memo hook --rebuild`, which a hook starts apart after a
 * change of notes.md) is timed once.
 *
 * Run: nice deno run -A bench/hook_latency.ts [--rounds 15] [--sizes 10000,100000]
 * [--user-notes 50] [--json FILE]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { join } from "node:path";
import { percentile } from "./_report.ts";
import { DENO, loadAvg, log, ROOT } from "./_http_kit.ts";
import { generateNotes } from "./_notes_corpus.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "15" },
    sizes: { type: "string", default: "10000,100000" },
    "user-notes": { type: "string", default: "50" },
    json: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds);
const USER_NOTES = Number(flags["user-notes"]);
const CLI = join(ROOT, "cli.ts");
const PROMPT = "how does the staging database deploy runbook handle a rate limit";

/** A run: spawn to exit (wall), and the CPU time of the process (user + system, `/usr/bin/time`). */
interface Timing {
  wall: number;
  cpu: number;
}

/**
 * Runs `memo ARGS` with `input` on stdin and `MEMO_HOME` set to `home`, under `/usr/bin/time` (the
 * same for every contender).
 */
async function timed(args: string[], home: string, input = ""): Promise<Timing> {
  const start = performance.now();
  const child = new Deno.Command("/usr/bin/time", {
    args: ["-f", "%U %S", DENO, "run", "-A", CLI, ...args],
    env: { MEMO_HOME: home },
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const { code, stderr } = await child.output();
  const wall = performance.now() - start;
  if (code !== 0) throw new Error(`memo ${args.join(" ")} exited ${code}`);
  const [user, system] = new TextDecoder().decode(stderr).trim().split("\n").at(-1)!.split(" ")
    .map(Number);
  return { wall, cpu: (user + system) * 1000 };
}

let session = 0;
function hookInput(dir: string, event: string): string {
  return JSON.stringify({
    session_id: `bench-${++session}`,
    cwd: dir,
    hook_event_name: event === "prompt" ? "UserPromptSubmit" : "SessionStart",
    prompt: PROMPT,
    source: "startup",
  });
}

interface Row {
  notes: number;
  name: string;
  p50: number;
  p95: number;
  cpuP50: number;
  cpuP95: number;
}

/** A user scope (`<home>/memory/notes.md`) of `count` short notes, some about the prompt. */
async function userScope(home: string, project: string, count: number): Promise<void> {
  await Deno.mkdir(home, { recursive: true });
  if (!count) return;
  const { openScopedStore } = await import("@memo/memory");
  const store = openScopedStore(project, { memoHome: home, serve: ["user"] });
  await store.load();
  // Half of them hold every word of the prompt, in a short note: they rank first, so that a hook
  // reads their bodies from the user scope's file (the worst case).
  const topics = ["the staging database deploy runbook for a rate limit", "code review", "tabs"];
  await store.commit({
    notes: Array.from({ length: count }, (_, i) => ({
      text: `Ada's habit ${i}: she checks ${i % 2 ? topics[1 + ((i >> 1) % 2)] : topics[0]} first`,
      scope: "user" as const,
    })),
  });
  await store.close();
}

const rows: Row[] = [];
const goals: { what: string; ratio: number; cpuRatio: number; bound: number; ok: boolean }[] = [];
const rebuilds: { notes: number; ms: number }[] = [];
for (const size of flags.sizes.split(",").map(Number)) {
  const dir = await Deno.makeTempDir({ prefix: `memo-hook-${size}-` });
  const homes = await Deno.makeTempDir({ prefix: `memo-hook-homes-` });
  const empty = join(homes, "empty");
  const small = join(homes, "small");
  const user = `(user ${USER_NOTES})`;
  try {
    log(`${size} notes: generating`);
    await generateNotes(dir, size);
    await userScope(empty, dir, 0);
    await userScope(small, dir, USER_NOTES);
    // The index build (timed once: what `memo hook --rebuild` does apart after a change of
    // notes.md, while the hooks read the old index), then the steady state.
    rebuilds.push({
      notes: size,
      ms: (await timed(["hook", "--rebuild", "--dir", dir], empty)).wall,
    });
    await timed(["hook", "--rebuild", "--dir", dir], small); // the user scope's part
    await timed(["recall", PROMPT, "--dir", dir, "--limit", "10"], empty);
    const hook = (event: string, home: string) => () =>
      timed(["hook", "--client", "claude-code", event], home, hookInput(dir, event));
    const contenders: { name: string; run: () => Promise<Timing> }[] = [
      { name: "memo --version", run: () => timed(["--version"], empty) },
      { name: "memo hook prompt", run: hook("prompt", empty) },
      { name: "memo hook session-start", run: hook("session-start", empty) },
      { name: `memo hook prompt ${user}`, run: hook("prompt", small) },
      { name: `memo hook session-start ${user}`, run: hook("session-start", small) },
    ];
    if (size >= 100_000) {
      const recall = (home: string) => () =>
        timed(["recall", PROMPT, "--dir", dir, "--limit", "10"], home);
      contenders.push({ name: "memo recall", run: recall(empty) });
      contenders.push({ name: `memo recall ${user}`, run: recall(small) });
    }
    const times = new Map(contenders.map((c) => [c.name, [] as Timing[]]));
    await contenders[1].run(); // warm-ups, not counted
    await contenders[3].run();
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < contenders.length; i++) {
        const c = contenders[(i + round) % contenders.length];
        times.get(c.name)!.push(await c.run());
      }
    }
    const sorted = (name: string, of: keyof Timing) =>
      times.get(name)!.map((t) => t[of]).sort((a, b) => a - b);
    const p95 = (name: string) => percentile(sorted(name, "wall"), 0.95);
    const cpu95 = (name: string) => percentile(sorted(name, "cpu"), 0.95);
    for (const name of times.keys()) {
      rows.push({
        notes: size,
        name,
        p50: percentile(sorted(name, "wall"), 0.5),
        p95: p95(name),
        cpuP50: percentile(sorted(name, "cpu"), 0.5),
        cpuP95: cpu95(name),
      });
    }
    for (const hook of contenders.map((c) => c.name).filter((n) => n.startsWith("memo hook"))) {
      if (size <= 10_000) {
        const ratio = p95(hook) / p95("memo --version");
        const cpuRatio = cpu95(hook) / cpu95("memo --version");
        goals.push({
          cpuRatio,
          what: `${size}: ${hook} p95 / memo --version p95`,
          ratio,
          bound: 2,
          ok: ratio <= 2,
        });
      }
      if (size >= 100_000) {
        // The yardstick reads the same scopes as the hook.
        const yardstick = hook.endsWith(user) ? `memo recall ${user}` : "memo recall";
        const ratio = p95(hook) / p95(yardstick);
        const cpuRatio = cpu95(hook) / cpu95(yardstick);
        goals.push({
          cpuRatio,
          what: `${size}: ${hook} p95 / cold ${yardstick} p95`,
          ratio,
          bound: 0.5,
          ok: ratio <= 0.5,
        });
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(homes, { recursive: true });
  }
}

console.log(
  `memo hook latency, spawn to exit, ${ROUNDS} rounds, user scope: empty or ${USER_NOTES} notes, ` +
    `load ${loadAvg()}`,
);
for (const r of rows) {
  console.log(
    `${String(r.notes).padStart(7)} notes  ${r.name.padEnd(36)} p50 ${
      r.p50.toFixed(0).padStart(5)
    } ms  p95 ${r.p95.toFixed(0).padStart(5)} ms   CPU p50 ${
      r.cpuP50.toFixed(0).padStart(5)
    } ms  p95 ${r.cpuP95.toFixed(0).padStart(5)} ms`,
  );
}
for (const r of rebuilds) {
  console.log(
    `${String(r.notes).padStart(7)} notes  index build (memo hook --rebuild): ${
      r.ms.toFixed(0)
    } ms`,
  );
}
for (const g of goals) {
  console.log(
    `${g.ok ? "ok  " : "MISS"} ${g.what}: ${g.ratio.toFixed(2)} (goal <= ${g.bound}; CPU ${
      g.cpuRatio.toFixed(2)
    })`,
  );
}
if (flags.json) {
  await Deno.writeTextFile(
    flags.json,
    JSON.stringify({ rounds: ROUNDS, load: loadAvg(), rows, rebuilds, goals }, null, 2) + "\n",
  );
}
