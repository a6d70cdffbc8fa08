/**
 * Real git for tests: one runner with a fixed identity and no editor, so commits, merges and
 * rebases never stop to ask.
 *
 * @module
 */

import assert from "node:assert/strict";

/** The environment git runs with: an author and committer, and an editor that accepts. */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: "memo",
  GIT_AUTHOR_EMAIL: "memo@example.com",
  GIT_COMMITTER_NAME: "memo",
  GIT_COMMITTER_EMAIL: "memo@example.com",
  GIT_EDITOR: "true",
};

/**
 * Runs git in `cwd`: its exit code and its output (stdout, then stderr).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gitRun } from "./git.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal((await gitRun(dir, "init", "-q")).code, 0);
 * assert.notEqual((await gitRun(dir, "no-such-command")).code, 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function gitRun(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  const { code, stdout, stderr } = await new Deno.Command("git", { args, cwd, env: GIT_ENV })
    .output();
  const text = new TextDecoder();
  return { code, out: text.decode(stdout) + text.decode(stderr) };
}

/**
 * Runs git in `cwd` and fails the test, with git's output, unless it exits 0; its output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { git } from "./git.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await git(dir, "init", "-q", "-b", "main");
 * assert.equal((await git(dir, "branch", "--show-current")).trim(), "main");
 * await assert.rejects(git(dir, "no-such-command"), /git no-such-command: /);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { code, out } = await gitRun(cwd, ...args);
  assert.equal(code, 0, `git ${args.join(" ")}: ${out}`);
  return out;
}
