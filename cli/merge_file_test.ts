/**
 * `memo merge-file` with Debian's real git: a merge of two branches that each remembered a note
 * succeeds through the driver, and a side that cannot be read falls back to `git merge-file`.
 */

import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { recordingIO } from "../testing/cli_io.ts";
import { gitRun as git } from "../testing/git.ts";
import { runCli } from "./main.ts";

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));

Deno.test("memo merge-file merges two branches' notes in a real git merge", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-git-" });
  try {
    const memo = async (...argv: string[]) =>
      assert.equal(await runCli([...argv, "--dir", dir], recordingIO(dir)), 0);
    await git(dir, "init", "-q", "-b", "main");
    await git(dir, "config", "user.email", "memo@example.com");
    await git(dir, "config", "user.name", "memo");
    await git(dir, "config", "merge.memo.name", "memo notes merge");
    await git(
      dir,
      "config",
      "merge.memo.driver",
      `${Deno.execPath()} run -A ${CLI} merge-file %O %A %B`,
    );
    await mkdir(`${dir}/.memo`, { recursive: true });
    await writeFile(`${dir}/.memo/.gitattributes`, "memory/notes.md merge=memo\n");
    await memo("remember", "Deploys run with make deploy");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "checkout", "-qb", "bob");
    await memo("remember", "bob says the queue is kafka");
    await git(dir, "commit", "-qam", "bob");
    await git(dir, "checkout", "-q", "main");
    await memo("remember", "alice says the cache is redis");
    await git(dir, "commit", "-qam", "alice");
    const merged = await git(dir, "merge", "-q", "--no-edit", "bob");
    assert.equal(merged.code, 0, merged.out);
    const text = await readFile(`${dir}/.memo/memory/notes.md`, "utf8");
    assert.doesNotMatch(text, /^(<{7}|={7}|>{7})/m);
    for (const body of ["make deploy", "queue is kafka", "cache is redis"]) {
      assert.ok(text.includes(body), `${body} is in the merged notes`);
    }
    assert.equal((await git(dir, "status", "--porcelain")).out, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("memo merge-file falls back to git merge-file on a side it cannot read, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-git-" });
  try {
    await writeFile(`${dir}/base`, "# Memory\n");
    await writeFile(`${dir}/ours`, "# Memory\n<!-- memo:note {broken -->\n## x\nours\n");
    await writeFile(`${dir}/theirs`, "# Memory\nplain text\n");
    const io = recordingIO(dir);
    assert.equal(await runCli(["merge-file", "base", "ours", "theirs"], io), 1);
    assert.match(
      io.err.join(""),
      /^memo: merge-file: ours cannot be read as notes .*git merge-file/,
    );
    assert.match(await readFile(`${dir}/ours`, "utf8"), /^<{7} /m); // git's own conflict
    assert.deepEqual(io.out, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
