/**
 * Scopes (issue 32) and git: in a real repository after `memo init`, writes in every scope (and
 * moves between them) leave `git status` showing `.memo/memory/notes.md` alone: the local notes
 * and their lock are ignored, the user notes live outside the work tree, the caches and the move
 * journal are ignored.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../cli/main.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { git } from "../testing/git.ts";
import { tempDir } from "../testing/temp_dir.ts";
import { runProcess } from "./_run_process.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

Deno.test("git status after writes in every scope shows only .memo/memory/notes.md changed", async () => {
  await using base = await tempDir("memo-scopes-git-");
  const root = join(base.path, "repo");
  const memoHome = join(base.path, "home", "memo");
  await Deno.mkdir(root);
  await git(root, "init", "-q", "-b", "main");
  const env = { MEMO_HOME: memoHome, NO_COLOR: "1" };

  // memo init, as a person runs it; its files and one project note are committed.
  const init = await runProcess(Deno.execPath(), ["run", "-A", CLI, "init"], { cwd: root, env });
  assert.equal(init.code, 0, init.err);
  const ignore = await readFile(join(root, ".memo", ".gitignore"), "utf8");
  for (const line of ["memory/notes.local.md", "memory/notes.local.md.lock"]) {
    assert.ok(ignore.split("\n").includes(line), `.memo/.gitignore ignores ${line}:\n${ignore}`);
  }
  const memo = async (...args: string[]) => {
    const io = recordingIO(root);
    io.env = env;
    const code = await runCli(args, io);
    assert.equal(code, 0, `memo ${args.join(" ")}: ${io.err.join("")}`);
    return io.out.join("");
  };
  await memo("remember", "Deploys run with make deploy");
  await git(root, "add", "-A");
  await git(root, "commit", "-qm", "memo init");
  assert.equal(await git(root, "status", "--porcelain", "--untracked-files=all"), "");

  // Writes in every scope, a move out of the project and one into it, an edit of each.
  await memo("remember", "My checkout runs the API on port 8081", "--scope", "local");
  await memo("remember", "Ada prefers small commits", "--scope", "user");
  const moving = JSON.parse(await memo("remember", "Staging lives in eu-west-1", "--json"));
  const id: string = moving.note?.id ?? moving.id;
  assert.ok(id, JSON.stringify(moving));
  await memo("update", id, "--scope", "local");
  await memo("update", id, "--scope", "user");
  await memo("update", id, "--scope", "project");
  await memo("update", id, "--scope", "local");
  await memo("remember", "The team reviews on Tuesdays");
  const listed = JSON.parse(await memo("list", "--json"));
  const notes: { scope?: string }[] = listed.notes ?? listed;
  assert.deepEqual(
    notes.map((n) => n.scope ?? "project").sort(),
    ["local", "local", "project", "project", "user"],
    JSON.stringify(listed),
  );

  // Git sees the project's notes change, and nothing else.
  const status = await git(root, "status", "--porcelain", "--untracked-files=all", "--ignored=no");
  assert.equal(status, " M .memo/memory/notes.md\n");
  const diff = await git(root, "diff", "--", ".memo/memory/notes.md");
  assert.match(diff, /The team reviews on Tuesdays/);
  assert.doesNotMatch(diff, /port 8081|small commits|eu-west-1/, "no local or user note");
  // The local notes exist, ignored; the user notes live outside the work tree.
  assert.match(await readFile(join(root, ".memo", "memory", "notes.local.md"), "utf8"), /8081/);
  assert.match(await readFile(join(memoHome, "memory", "notes.md"), "utf8"), /small commits/);
});
