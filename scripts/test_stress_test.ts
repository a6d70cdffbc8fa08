import assert from "node:assert/strict";
import { join } from "node:path";
import { formatReport, stress } from "./test_stress.ts";

/** Runs git in `cwd`, as a fixed author, without the user's configuration. */
async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=stress", "-c", "user.email=stress@example.com", ...args],
    cwd,
    stdin: "null",
    env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

/** Whether a process is alive (signal 0 is not offered: SIGCONT leaves it as it was). */
function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}

Deno.test("stress() runs the task in fresh clones of HEAD beside a hog, and names the failing tests", async () => {
  const repo = await Deno.makeTempDir({ prefix: "memo-stress-repo-" });
  try {
    await Deno.writeTextFile(
      join(repo, "deno.json"),
      JSON.stringify({ tasks: { check: "deno test --no-check" } }),
    );
    await Deno.writeTextFile(
      join(repo, "a_test.ts"),
      'Deno.test("passes", () => {});\n' +
        'Deno.test("counts the clone", async () => {\n' +
        '  if (await Deno.stat("uncommitted.txt").then(() => true, () => false)) {\n' +
        '    throw new Error("the clone holds an uncommitted file");\n' +
        "  }\n" +
        "});\n" +
        'Deno.test("fails", () => { throw new Error("boom"); });\n',
    );
    await git(repo, "init", "--quiet");
    await git(repo, "add", ".");
    await git(repo, "commit", "--quiet", "-m", "a suite with one failing test");
    await Deno.writeTextFile(join(repo, "uncommitted.txt"), "not in HEAD");

    const said: string[] = [];
    const hogs: number[] = [];
    const runs = await stress(
      { runs: 1, hog: 1, keep: false, timeoutMin: 5, repo, task: "check" },
      (line) => {
        said.push(line);
        const pids = /hog pids (\d+)/.exec(line);
        if (pids) hogs.push(Number(pids[1]));
      },
    );
    assert.equal(runs.length, 1);
    for (const r of runs) {
      assert.equal(r.passed, false);
      assert.deepEqual(r.failures, ["fails => ./a_test.ts:7:6"]);
      assert.match(await Deno.readTextFile(r.log), /^\[ *\d+\.\d\] FAILED \| 2 passed/m);
    }
    assert.equal(hogs.length, 1, said.join("\n"));
    assert.ok(hogs.every((pid) => !alive(pid)), "the busy loops are stopped");
    const report = formatReport(runs);
    assert.match(report.at(-1)!, /^0 of 1 runs passed; durations /);
    assert.equal(report.filter((l) => l === "  fails => ./a_test.ts:7:6").length, 1);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
});
