/**
 * `deno task test`, after `test_setup.ts`: every test and every documentation
 * example, arranged for a short wall time and little CPU on a small machine:
 *
 * - **The documentation examples a folder at a time.** `deno test --doc` runs
 *   each of the ~1,240 examples as a module in a new isolate that loads its
 *   module graph again, about half of the suite's CPU. `doc_examples.ts`
 *   writes the same examples as modules and one runner per folder, so each
 *   folder's examples share one isolate and one module graph; every example
 *   is still its own `Deno.test`, named like Deno names it
 *   (`memory/recall.ts#12-30.ts`), and is type-checked with the rest in the
 *   one check `deno test` makes. The generated files live in hidden
 *   `.doc_examples/` folders and are removed when the run ends.
 * - **More test files at once than cores.** Many of the slow files mostly
 *   wait (for a Deno, Node, PostgreSQL or Chromium process to start, for npm,
 *   for a server to answer), so `DENO_JOBS` is twice the CPUs unless it is
 *   set. On this repository's 2-core machine, busy with other jobs, `tests/`
 *   took 457 s with 2 at once and 265 s with 4.
 * - **The slowest files first** ({@linkcode SLOWEST_FIRST}): Deno starts the
 *   files in the order given, then the rest in path order, and a long file
 *   started last would run alone at the end. A source file in that list
 *   stands for its examples, which get a runner of their own.
 *
 * Arguments are passed on to `deno test` (`deno task test --filter recall`).
 * With a file or folder among them, only those run, with Deno's own `--doc`.
 *
 * @module
 */

import { cleanExamples, writeExamples, type Written } from "./doc_examples.ts";

/**
 * The files that take longest, longest first (seconds each, alone, on the
 * loaded 2-core machine): the npm build under Node (143), the hybrid
 * end-to-end test (70), the conformance suites (62), the cloud end-to-end
 * test (42), the web page in Chromium (33), connector faults (29), killed
 * writers (28), the browser CORS test (25), the embedder's model (23), the
 * PostgreSQL store (21), then the files of 10-16 s. A source file (not a test)
 * stands for its documentation examples: those below each start a
 * PostgreSQL cluster or a browser (10-18 s each), and get a runner of their
 * own so they run beside the rest rather than one after another.
 */
export const SLOWEST_FIRST: readonly string[] = [
  "tests/npm_build_test.ts",
  "tests/hybrid_e2e_test.ts",
  "tests/conformance_test.ts",
  "tests/cloud_e2e_test.ts",
  "tests/web_page_test.ts",
  "tests/connectors_faults_test.ts",
  "tests/store_processes_test.ts",
  "tests/browser_cors_test.ts",
  "memory/embed/load_test.ts",
  "tests/cloud_postgres_store_test.ts",
  "cloud/postgres/_rate_limit.ts",
  "cloud/postgres/_project.ts",
  "cloud/postgres/store.ts",
  "cloud/postgres/_migrations.ts",
  "cloud/postgres/idempotency.ts",
  "cloud/postgres/memory_store.ts",
  "tests/_postgres.ts",
  "cloud/postgres/_history.ts",
  "tests/mcp_inspector_test.ts",
  "tests/postgres_harness_test.ts",
  "tests/recall_offline_test.ts",
  "tests/mcp_sdk_v2_test.ts",
  "tests/cli_process_test.ts",
  "tests/mcp_fuzz_test.ts",
  "tests/web_build_test.ts",
  "tests/_chromium.ts",
  "tests/_browser.ts",
];

/** Whether `path` is a test file (its own tests), not a source file standing for its examples. */
function isTestFile(path: string): boolean {
  return /(^|\/|_|\.)test\.[cm]?[jt]sx?$/.test(path);
}

/**
 * The `deno test` arguments and `DENO_JOBS` for `extra` arguments, `env`'s
 * `DENO_JOBS` and `cpus` cores, and the runners `doc_examples.ts` wrote
 * (`examples`). With a file or folder among the arguments, only those run (in
 * the order given), their examples with `--doc`. Otherwise the slowest first
 * (a source file of {@linkcode SLOWEST_FIRST} by its own runner), then the
 * other runners, then every test file (`.`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SLOWEST_FIRST, testCommand } from "./test_run.ts";
 *
 * const runners = [
 *   "cloud/postgres/.doc_examples/store.ts_test.ts",
 *   "memory/.doc_examples/examples_1_test.ts",
 * ];
 * const all = testCommand([], undefined, 2, { runners, native: [], examples: 300 });
 * assert.equal(all.jobs, "4");
 * assert.deepEqual(all.args.slice(0, 3), ["test", "-A", "--parallel"]);
 * assert.ok(all.args.indexOf(runners[0]) < all.args.indexOf(runners[1]));
 * assert.equal(all.args.at(-1), ".");
 * assert.ok(!all.args.includes("cloud/postgres/store.ts"));
 * assert.ok(all.args.includes(SLOWEST_FIRST[0]));
 * const some = testCommand(["--filter", "recall", "memory/"], "3", 2);
 * assert.deepEqual(some, {
 *   args: ["test", "-A", "--parallel", "--doc", "--filter", "recall", "memory/"],
 *   jobs: "3",
 * });
 * ```
 */
export function testCommand(
  extra: readonly string[],
  jobs: string | undefined,
  cpus: number,
  examples?: Written,
): { args: string[]; jobs: string } {
  jobs = jobs || String(Math.max(2, 2 * cpus));
  if (isNamed(extra) || !examples) {
    return { args: ["test", "-A", "--parallel", "--doc", ...extra], jobs };
  }
  const runnerOf = (file: string) => {
    const slash = file.lastIndexOf("/") + 1;
    return `${file.slice(0, slash)}.doc_examples/${file.slice(slash)}_test.ts`;
  };
  const first: string[] = [];
  for (const file of SLOWEST_FIRST) {
    if (isTestFile(file)) first.push(file);
    else if (examples.runners.includes(runnerOf(file))) first.push(runnerOf(file));
  }
  const rest = examples.runners.filter((r) => !first.includes(r));
  return { args: ["test", "-A", "--parallel", ...extra, ...first, ...rest, "."], jobs };
}

/** Whether `extra` names what to run: a word that is not a flag, nor a flag's value. */
function isNamed(extra: readonly string[]): boolean {
  const valued = new Set(["--filter", "--reporter", "--junit-path", "--shuffle", "--coverage"]);
  return extra.some((word, i) => !word.startsWith("-") && !(i > 0 && valued.has(extra[i - 1])));
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  const cpus = navigator.hardwareConcurrency ?? 1;
  const env = Deno.env.get("DENO_JOBS");
  // The user scope of the tests is a folder of their own: the person's MEMO_HOME (by default
  // ~/.local/share/memo) is never read or written by a test, whatever it holds.
  const memoHome = Deno.makeTempDirSync({ prefix: "memo-test-home-" });
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(memoHome, { recursive: true });
    } catch {
      // already gone
    }
  });
  // The tests import test-only npm packages, which `deno.lock` leaves out (scripts/runtime_lock.ts).
  const run = async (args: string[], jobs: string) => {
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: [args[0], "--lock=deno.dev.lock", ...args.slice(1)],
      cwd: root,
      env: { DENO_JOBS: jobs, MEMO_HOME: memoHome },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    return code;
  };
  if (isNamed(Deno.args)) {
    const { args, jobs } = testCommand(Deno.args, env, cpus);
    Deno.exit(await run(args, jobs));
  }
  // Ctrl-C reaches `deno test` too; wait for it to stop, then clean up.
  Deno.addSignalListener("SIGINT", () => {});
  let code = 1;
  try {
    const alone = SLOWEST_FIRST.filter((f) => !isTestFile(f));
    const written = await writeExamples(root.replace(/\/$/, ""), { alone });
    const { args, jobs } = testCommand(Deno.args, env, cpus, written);
    code = await run(args, jobs);
    // Examples doc_examples.ts cannot move run in their own files, as Deno runs them.
    if (written.native.length) {
      const more = await run(
        ["test", "-A", "--parallel", "--doc", ...Deno.args, ...written.native],
        jobs,
      );
      code ||= more;
    }
  } finally {
    await cleanExamples(root.replace(/\/$/, ""));
  }
  Deno.exit(code);
}
