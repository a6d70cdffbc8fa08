/**
 * `deno task test:stress`: runs the test suite (`deno task test`) N times,
 * each in a fresh clone of the current commit, while a CPU hog runs beside it
 * (two busy loops at the script's own priority, normally nice 0, started and
 * stopped by the script), and reports each run's result, duration and failing
 * tests. A suite that passes here does not depend on a quiet machine.
 *
 * Usage: `deno run -A scripts/test_stress.ts [--runs N] [--hog N] [--keep]
 * [--timeout-min M] [--repo DIR] [--task NAME]`
 *
 * - `--runs N`: how many runs (default 5);
 * - `--hog N`: busy loops beside the suite (default 2; `--hog 0` measures a
 *   quiet run);
 * - `--keep`: keep the clones (each run's log is kept either way);
 * - `--timeout-min M`: a run still going after M minutes is stopped and
 *   counted as failed (default 30);
 * - `--repo DIR`: the repository to clone (default: this one); `--task NAME`:
 *   the task to run (default `test`).
 *
 * Only committed work is tested: the clones check out `HEAD`. The logs go to
 * a temporary folder that the report names, each line stamped with the
 * seconds since its run started. It exits 1 when a run failed.
 *
 * @module
 */

import { join } from "node:path";

/** What one run of the suite did. */
export interface StressRun {
  /** 1-based. */
  run: number;
  passed: boolean;
  /** Wall time of `deno task test`, in milliseconds (the clone excluded). */
  ms: number;
  /** Names of the failing tests, as Deno's report lists them (`name => file:line:col`). */
  failures: string[];
  /** Why the run failed when no test is named (a type error, a timeout). */
  note?: string;
  /** The run's full output. */
  log: string;
}

/**
 * The failing tests that a `deno test` report (without colours) lists under
 * its `FAILURES` header, one `name => file:line:col` a line (a failing step
 * is `test ... step => …`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { failedTests } from "./test_stress.ts";
 *
 * const report = " FAILURES \n\nfails => ./a_test.ts:2:6\nsteps ... bad => ./a_test.ts:5:11\n\n" +
 *   "FAILED | 1 passed | 2 failed (1s)\n";
 * assert.deepEqual(failedTests(report), [
 *   "fails => ./a_test.ts:2:6",
 *   "steps ... bad => ./a_test.ts:5:11",
 * ]);
 * assert.deepEqual(failedTests("ok | 3 passed | 0 failed (1s)\n"), []);
 * ```
 */
export function failedTests(output: string): string[] {
  const lines = output.split(/\r?\n/);
  const start = lines.findLastIndex((line) => line.trim() === "FAILURES");
  if (start < 0) return [];
  const failures: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^(FAILED|ok) \|/.test(line)) break;
    if (line.trim()) failures.push(line.trim());
  }
  return failures;
}

/**
 * Milliseconds as `m:ss` (or `h:mm:ss`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { minutes } from "./test_stress.ts";
 *
 * assert.equal(minutes(272_400), "4:32");
 * assert.equal(minutes(3_723_000), "1:02:03");
 * ```
 */
export function minutes(ms: number): string {
  const s = Math.round(ms / 1000);
  const mm = String(Math.floor(s / 60) % 60);
  const ss = String(s % 60).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm.padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/**
 * The report's lines: one per run, then the total.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatReport } from "./test_stress.ts";
 *
 * const lines = formatReport([
 *   { run: 1, passed: true, ms: 300_000, failures: [], log: "/tmp/run-1.log" },
 *   { run: 2, passed: false, ms: 320_000, failures: ["t => ./a_test.ts:1:6"], log: "/tmp/run-2.log" },
 * ]);
 * assert.deepEqual(lines, [
 *   "run 1: passed in 5:00",
 *   "run 2: FAILED in 5:20 (log /tmp/run-2.log)",
 *   "  t => ./a_test.ts:1:6",
 *   "1 of 2 runs passed; durations 5:00 to 5:20",
 * ]);
 * ```
 */
export function formatReport(runs: readonly StressRun[]): string[] {
  const lines: string[] = [];
  for (const r of runs) {
    if (r.passed) {
      lines.push(`run ${r.run}: passed in ${minutes(r.ms)}`);
      continue;
    }
    lines.push(`run ${r.run}: FAILED in ${minutes(r.ms)} (log ${r.log})`);
    for (const name of r.failures) lines.push(`  ${name}`);
    if (r.note) lines.push(`  ${r.note}`);
  }
  const times = runs.map((r) => r.ms);
  const passed = runs.filter((r) => r.passed).length;
  lines.push(
    `${passed} of ${runs.length} runs passed; durations ${minutes(Math.min(...times))} to ${
      minutes(Math.max(...times))
    }`,
  );
  return lines;
}

/** Options of {@linkcode parseStressArgs}'s result. */
export interface StressOptions {
  /** @default 5 */
  runs: number;
  /** Busy loops beside the suite. @default 2 */
  hog: number;
  /** Keep the clones. @default false */
  keep: boolean;
  /** A run still going after this is stopped and failed. @default 30 */
  timeoutMin: number;
  /** The repository to clone. @default this one */
  repo: string;
  /** The task to run in each clone. @default "test" */
  task: string;
}

/**
 * The script's flags.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseStressArgs } from "./test_stress.ts";
 *
 * const o = parseStressArgs(["--runs", "2", "--hog", "0"], "/repo");
 * assert.deepEqual(o, { runs: 2, hog: 0, keep: false, timeoutMin: 30, repo: "/repo", task: "test" });
 * assert.throws(() => parseStressArgs(["--runs", "0"], "/repo"), /--runs/);
 * ```
 */
export function parseStressArgs(args: readonly string[], repo: string): StressOptions {
  const options: StressOptions = {
    runs: 5,
    hog: 2,
    keep: false,
    timeoutMin: 30,
    repo,
    task: "test",
  };
  const count = (flag: string, value: string | undefined, min: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new Error(`Cannot read ${flag}: expected a whole number from ${min}, got ${value}`);
    }
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === "--keep") options.keep = true;
    else if (flag === "--runs") options.runs = count(flag, args[++i], 1);
    else if (flag === "--hog") options.hog = count(flag, args[++i], 0);
    else if (flag === "--timeout-min") options.timeoutMin = count(flag, args[++i], 1);
    else if (flag === "--repo") options.repo = args[++i] ?? "";
    else if (flag === "--task") options.task = args[++i] ?? "";
    else throw new Error(`Cannot read ${flag}: not a flag of test_stress.ts (see its module doc)`);
  }
  if (!options.repo || !options.task) throw new Error("Cannot read --repo or --task: empty");
  return options;
}

/** Runs a command to its end; throws with its output when it fails. */
async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}):\n${text}`);
  return text;
}

/** The busy loops: one Deno process each, spinning on one core. */
export interface Hog {
  readonly pids: number[];
  stop(): Promise<void>;
}

/**
 * Starts `n` busy loops (one process each, at this process's priority) and
 * returns how to stop them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startHog } from "./test_stress.ts";
 *
 * const hog = startHog(1);
 * assert.equal(hog.pids.length, 1);
 * await hog.stop();
 * ```
 */
export function startHog(n: number): Hog {
  const children = Array.from({ length: n }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["eval", "for (;;) {}"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn());
  let stopped: Promise<void> | undefined;
  return {
    pids: children.map((c) => c.pid),
    stop() {
      stopped ??= (async () => {
        for (const child of children) {
          try {
            child.kill("SIGKILL");
          } catch { /* gone */ }
        }
        await Promise.all(children.map((c) => c.status));
      })();
      return stopped;
    },
  };
}

/** The nice value of a process (Linux), for the report. */
async function niceOf(pid: number): Promise<string> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16] ?? "?";
  } catch {
    return "?";
  }
}

/** Every descendant of `pid` (Linux `/proc`; elsewhere none). */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number[]>();
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry.name)]);
      } catch { /* gone meanwhile */ }
    }
  } catch {
    return [];
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of parents.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

/** Stops a process and every process under it (their pids, on Linux). */
async function killTree(pid: number): Promise<void> {
  for (const p of [...await descendants(pid), pid]) {
    try {
      Deno.kill(p, "SIGKILL");
    } catch { /* gone */ }
  }
}

/** What to stop when the script is interrupted: the hog and the suite running now. */
const running = { hog: undefined as Hog | undefined, suite: undefined as number | undefined };

/** Runs the suite once in `dir`; stops it (and what it started) after `timeoutMs`. */
async function runSuite(
  dir: string,
  task: string,
  timeoutMs: number,
  logPath: string,
): Promise<{ code: number; ms: number; output: string; timedOut: boolean }> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", task],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  }).spawn();
  running.suite = child.pid;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void killTree(child.pid);
  }, timeoutMs);
  // The log stamps each line with the seconds since the start: a timeline of the run.
  const log = await Deno.open(logPath, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    let partial = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      output += chunk;
      const lines = (partial + chunk).split("\n");
      partial = lines.pop()!;
      const at = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
      await log.write(encoder.encode(lines.map((line) => `[${at}] ${line}\n`).join("")));
    }
    if (partial) await log.write(encoder.encode(`[end] ${partial}\n`));
  };
  const [, , status] = await Promise.all([
    collect(child.stdout),
    collect(child.stderr),
    child.status,
  ]);
  clearTimeout(timer);
  running.suite = undefined;
  log.close();
  return { code: status.code, ms: performance.now() - started, output, timedOut };
}

/** The runs, one after the other, with the hog beside each; returns what each did. */
export async function stress(
  options: StressOptions,
  say: (line: string) => void,
): Promise<StressRun[]> {
  const head = (await run("git", ["rev-parse", "HEAD"], options.repo)).trim();
  const work = await Deno.makeTempDir({ prefix: "memo-stress-" });
  say(
    `test_stress: ${options.runs} run(s) of \`deno task ${options.task}\` at ${
      head.slice(0, 12)
    }, ${options.hog} busy loop(s) beside it; logs in ${work}`,
  );
  const runs: StressRun[] = [];
  for (let i = 1; i <= options.runs; i++) {
    const dir = join(work, `clone-${i}`);
    await run("git", ["clone", "--quiet", "--no-checkout", options.repo, dir], work);
    await run("git", ["checkout", "--quiet", "--detach", head], dir);
    const hog = startHog(options.hog);
    running.hog = hog;
    const load = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
    say(
      `run ${i}: started (hog pids ${hog.pids.join(", ") || "none"}, nice ${
        hog.pids.length ? await niceOf(hog.pids[0]) : "-"
      }; load ${load.split(" ").slice(0, 3).join(" ")})`,
    );
    const log = join(work, `run-${i}.log`);
    let result;
    try {
      result = await runSuite(dir, options.task, options.timeoutMin * 60_000, log);
    } finally {
      await hog.stop();
      running.hog = undefined;
    }
    const failures = failedTests(result.output);
    const entry: StressRun = { run: i, passed: result.code === 0, ms: result.ms, failures, log };
    if (result.timedOut) entry.note = `stopped after ${options.timeoutMin} minutes`;
    else if (!entry.passed && !failures.length) {
      entry.note = result.output.trim().split("\n").slice(-3).join(" / ");
    }
    runs.push(entry);
    say(formatReport([entry]).slice(0, -1).join("\n"));
    if (!options.keep) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return runs;
}

if (import.meta.main) {
  const repo = new URL("..", import.meta.url).pathname;
  let options: StressOptions;
  try {
    options = parseStressArgs(Deno.args, repo);
  } catch (e) {
    console.error(`test_stress: ${(e as Error).message}`);
    Deno.exit(2);
  }
  // Interrupted: stop the busy loops and the suite, then go.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, async () => {
      await running.hog?.stop();
      if (running.suite !== undefined) await killTree(running.suite);
      console.error(`test_stress: ${signal}: the busy loops and the suite are stopped`);
      Deno.exit(130);
    });
  }
  const runs = await stress(options, (line) => console.log(line));
  console.log("");
  for (const line of formatReport(runs)) console.log(line);
  Deno.exit(runs.every((r) => r.passed) ? 0 : 1);
}
