/**
 * An older commit of this repository, checked out for a benchmark's A/B (`bench/start_bench.ts`,
 * `bench/idle_bench.ts`): a detached `git worktree` in a temporary folder, removed at the end.
 * Old code is never committed; it exists only while the benchmark runs.
 *
 * @module
 */

import { ROOT } from "./_http_kit.ts";

/** Runs git in the repository; its stdout, or an error with its stderr. */
async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-C", ROOT, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed: ${dec.decode(out.stderr)}`);
  return dec.decode(out.stdout).trim();
}

/** A checkout of `commit` in `dir` (a new folder), and how to remove it. */
export interface Checkout {
  /** The folder (no trailing slash). */
  dir: string;
  /** The commit's short hash. */
  commit: string;
  /** Removes the worktree and its folder. */
  remove(): Promise<void>;
}

/** Checks `commit` out into `dir` as a detached worktree. */
export async function checkoutAt(commit: string, dir: string): Promise<Checkout> {
  await git(["worktree", "add", "--detach", "--quiet", dir, commit]);
  const short = await git(["-C", dir, "rev-parse", "--short", "HEAD"]);
  return {
    dir,
    commit: short,
    async remove() {
      await git(["worktree", "remove", "--force", dir]).catch(() => {});
      await git(["worktree", "prune"]).catch(() => {});
    },
  };
}

/** This checkout's short commit hash, with `+` when it has uncommitted changes. */
export async function currentCommit(): Promise<string> {
  const head = await git(["rev-parse", "--short", "HEAD"]);
  const dirty = await git(["status", "--porcelain", "--untracked-files=no"]);
  return dirty ? `${head}+` : head;
}
