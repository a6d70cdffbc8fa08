/**
 * `deno task test`, after `test_setup.ts`: every test and every documentation
 * example, `deno test -A --parallel --doc`, arranged for a short wall time on
 * a small machine:
 *
 * - **More test files at once than cores.** Many of the slow files mostly
 *   wait (for a Deno, Node, PostgreSQL or Chromium process to start, for npm,
 *   for a server to answer), so `DENO_JOBS` is twice the CPUs unless it is
 *   set. On this repository's 2-core machine, busy with other jobs, `tests/`
 *   took 457 s with 2 at once and 265 s with 4.
 * - **The slowest files first** ({@linkcode SLOWEST_FIRST}): Deno starts the
 *   files in the order given, then the rest in path order, and a long file
 *   started last would run alone at the end.
 *
 * Arguments are passed on to `deno test` (`deno task test --filter recall`).
 *
 * @module
 */

/**
 * The files that take longest, longest first (seconds each, alone, on the
 * loaded 2-core machine): the npm build under Node (143), the hybrid
 * end-to-end test (70), the conformance suites (62), the cloud end-to-end
 * test (42), the web page in Chromium (33), connector faults (29), killed
 * writers (28), the browser CORS test (25), the embedder's model (23), the
 * PostgreSQL store (21), then the doc examples that start PostgreSQL, and the
 * files of 10-16 s.
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
  "cloud/postgres/store.ts",
  "cloud/postgres/_migrations.ts",
  "cloud/postgres/idempotency.ts",
  "tests/mcp_inspector_test.ts",
  "tests/postgres_harness_test.ts",
  "tests/recall_offline_test.ts",
  "tests/mcp_sdk_v2_test.ts",
  "tests/cli_process_test.ts",
  "tests/mcp_fuzz_test.ts",
  "tests/web_build_test.ts",
];

/**
 * The `deno test` arguments and `DENO_JOBS` for `extra` arguments, `env`'s
 * `DENO_JOBS` and `cpus` cores. With a file or folder among the arguments,
 * only those run (in the order given).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SLOWEST_FIRST, testCommand } from "./test_run.ts";
 *
 * const all = testCommand([], undefined, 2);
 * assert.equal(all.jobs, "4");
 * assert.deepEqual(all.args.slice(0, 4), ["test", "-A", "--parallel", "--doc"]);
 * assert.deepEqual(all.args.slice(4), [...SLOWEST_FIRST, "."]);
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
): { args: string[]; jobs: string } {
  // A word that is not a flag, nor a flag's value, names what to run.
  const valued = new Set(["--filter", "--reporter", "--junit-path", "--shuffle", "--coverage"]);
  const named = extra.some((word, i) =>
    !word.startsWith("-") && !(i > 0 && valued.has(extra[i - 1]))
  );
  return {
    args: [
      "test",
      "-A",
      "--parallel",
      "--doc",
      ...extra,
      ...(named ? [] : [...SLOWEST_FIRST, "."]),
    ],
    jobs: jobs || String(Math.max(2, 2 * cpus)),
  };
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname;
  const { args, jobs } = testCommand(
    Deno.args,
    Deno.env.get("DENO_JOBS"),
    navigator.hardwareConcurrency ?? 1,
  );
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    env: { DENO_JOBS: jobs },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  Deno.exit(code);
}
