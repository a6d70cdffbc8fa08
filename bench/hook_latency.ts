/**
 * The cold latency of `memo hook`, from spawn to exit, beside its yardsticks in the same run:
 *
 * - at 10,000 notes, `memo hook --client claude-code prompt` and `session-start` against
 *   `memo --version` (goal: the hook's p95 at most 2× the version's);
 * - at 100,000 notes (about 103 MB of notes.md), the same hook against a cold `memo recall` of
 *   the same prompt (goal: at most 0.5× the recall's p95).
 *
 * Each project is made with `bench/_notes_corpus.ts`, then warmed once (the hooks' index and the
 * lexical snapshot built: the steady state between two writes). Each round starts every
 * contender once, in an order that rotates from round to round; every hook run has a fresh
 * session id. The hooks' index build (`memo hook --rebuild`, which a hook starts apart after a
 * change of notes.md) is timed once.
 *
 * Run: nice deno run -A bench/hook_latency.ts [--rounds 15] [--sizes 10000,100000] [--json FILE]
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
    json: { type: "string" },
  },
});
const ROUNDS = Number(flags.rounds);
const CLI = join(ROOT, "cli.ts");
const PROMPT = "how does the staging database deploy runbook handle a rate limit";

/** Spawn to exit, in ms; stdin gets `input`. */
async function timed(args: string[], input = ""): Promise<number> {
  const start = performance.now();
  const child = new Deno.Command(DENO, {
    args: ["run", "-A", CLI, ...args],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const status = await child.status;
  const ms = performance.now() - start;
  if (!status.success) throw new Error(`memo ${args.join(" ")} exited ${status.code}`);
  return ms;
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
}

const rows: Row[] = [];
const goals: { what: string; ratio: number; bound: number; ok: boolean }[] = [];
const rebuilds: { notes: number; ms: number }[] = [];
for (const size of flags.sizes.split(",").map(Number)) {
  const dir = await Deno.makeTempDir({ prefix: `memo-hook-${size}-` });
  try {
    log(`${size} notes: generating`);
    await generateNotes(dir, size);
    // The index rebuild after a change (timed once), then the steady state.
    rebuilds.push({
      notes: size,
      ms: await timed(
        ["hook", "--client", "claude-code", "session-start"],
        hookInput(dir, "session-start"),
      ),
    });
    await timed(["recall", PROMPT, "--dir", dir, "--limit", "10"]);
    const contenders: { name: string; run: () => Promise<number> }[] = [
      { name: "memo --version", run: () => timed(["--version"]) },
      {
        name: "memo hook prompt",
        run: () => timed(["hook", "--client", "claude-code", "prompt"], hookInput(dir, "prompt")),
      },
      {
        name: "memo hook session-start",
        run: () =>
          timed(
            ["hook", "--client", "claude-code", "session-start"],
            hookInput(dir, "session-start"),
          ),
      },
    ];
    if (size >= 100_000) {
      contenders.push({
        name: "memo recall",
        run: () => timed(["recall", PROMPT, "--dir", dir, "--limit", "10"]),
      });
    }
    const times = new Map(contenders.map((c) => [c.name, [] as number[]]));
    await contenders[1].run(); // warm-up, not counted
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < contenders.length; i++) {
        const c = contenders[(i + round) % contenders.length];
        times.get(c.name)!.push(await c.run());
      }
    }
    const p95 = (name: string) => percentile([...times.get(name)!].sort((a, b) => a - b), 0.95);
    for (const [name, xs] of times) {
      const sorted = [...xs].sort((a, b) => a - b);
      rows.push({ notes: size, name, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) });
    }
    for (const hook of ["memo hook prompt", "memo hook session-start"]) {
      if (size <= 10_000) {
        const ratio = p95(hook) / p95("memo --version");
        goals.push({
          what: `${size}: ${hook} p95 / memo --version p95`,
          ratio,
          bound: 2,
          ok: ratio <= 2,
        });
      }
      if (size >= 100_000) {
        const ratio = p95(hook) / p95("memo recall");
        goals.push({
          what: `${size}: ${hook} p95 / cold memo recall p95`,
          ratio,
          bound: 0.5,
          ok: ratio <= 0.5,
        });
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

console.log(`memo hook latency, spawn to exit, ${ROUNDS} rounds, load ${loadAvg()}`);
for (const r of rows) {
  console.log(
    `${String(r.notes).padStart(7)} notes  ${r.name.padEnd(24)} p50 ${
      r.p50.toFixed(0).padStart(5)
    } ms  p95 ${r.p95.toFixed(0).padStart(5)} ms`,
  );
}
for (const r of rebuilds) {
  console.log(
    `${String(r.notes).padStart(7)} notes  index rebuild (first hook after a change): ${
      r.ms.toFixed(0)
    } ms`,
  );
}
for (const g of goals) {
  console.log(`${g.ok ? "ok  " : "MISS"} ${g.what}: ${g.ratio.toFixed(2)} (goal <= ${g.bound})`);
}
if (flags.json) {
  await Deno.writeTextFile(
    flags.json,
    JSON.stringify({ rounds: ROUNDS, load: loadAvg(), rows, rebuilds, goals }, null, 2) + "\n",
  );
}
