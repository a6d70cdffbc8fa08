/**
 * A clone without the merge driver, with Debian's real git: the merge leaves conflict markers in
 * `notes.md`; reads return the merged notes, every write path is refused with the file untouched
 * byte for byte, and `memo resolve` writes the driver's bytes. Also: diff3 markers, and a note
 * that quotes markers in a fenced code block stays a note.
 */

import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { mergeNotesFiles, NOTES_PREAMBLE } from "@memo/memory";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/mod.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { gitRun as git } from "../testing/git.ts";
import { runCli } from "./main.ts";

/** Runs memo on the project in `dir`: its exit code and what it printed. */
async function memoIn(dir: string, ...argv: string[]) {
  const io = recordingIO(dir);
  const code = await runCli([...argv, "--dir", dir], io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

/** Runs memo with `--json` on the project in `dir`; it must exit 0: its answer. */
async function memoJson(dir: string, ...argv: string[]) {
  const r = await memoIn(dir, ...argv, "--json");
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

/**
 * Two branches that each remembered a note, merged by git's text merge: markers. `base` runs
 * before the base commit, `branch` on each branch before its note (hand edits of `notes.md`).
 */
async function conflictedClone(
  dir: string,
  style: "merge" | "diff3",
  edits: { base?: (path: string) => Promise<void>; branch?: (path: string) => Promise<void> } = {},
): Promise<string> {
  const memo = async (...argv: string[]) => {
    const r = await memoIn(dir, ...argv);
    assert.equal(r.code, 0, r.err);
  };
  const path = `${dir}/.memo/memory/notes.md`;
  await git(dir, "init", "-q", "-b", "main");
  await git(dir, "config", "user.email", "memo@example.com");
  await git(dir, "config", "user.name", "memo");
  await git(dir, "config", "merge.conflictStyle", style);
  await memo("remember", "Deploys run with make deploy");
  await edits.base?.(path);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "base");
  await git(dir, "checkout", "-qb", "bob");
  await edits.branch?.(path);
  await memo("remember", "bob says the queue is kafka");
  await git(dir, "commit", "-qam", "bob");
  await git(dir, "checkout", "-q", "main");
  await edits.branch?.(path);
  await memo("remember", "alice says the cache is redis");
  await git(dir, "commit", "-qam", "alice");
  const merged = await git(dir, "merge", "-q", "--no-edit", "bob");
  assert.notEqual(merged.code, 0, merged.out);
  return `${dir}/.memo/memory/notes.md`;
}

Deno.test("a clone without the driver: reads merge, writes are refused, memo resolve gives the driver's bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const path = await conflictedClone(dir, "merge");
    const conflicted = await readFile(path);
    assert.match(conflicted.toString(), /^<{7} HEAD$/m);
    const stage = async (n: number) => (await git(dir, "show", `:${n}:.memo/memory/notes.md`)).out;
    const driver = mergeNotesFiles({
      base: await stage(1),
      ours: await stage(2),
      theirs: await stage(3),
    });
    assert.ok(driver.ok);

    // Reads: the merged notes, nothing of the markers.
    const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
    try {
      const { notes } = await runtime.list({ limit: 10 });
      assert.deepEqual(notes.map((n) => n.body).sort(), [
        "Deploys run with make deploy",
        "alice says the cache is redis",
        "bob says the queue is kafka",
      ]);
      const stats = await runtime.stats();
      assert.equal(stats.unresolvedMerge?.base, "given"); // git's index stage 1
      // Every write is refused, the file untouched.
      const id = notes[0].id;
      for (
        const write of [
          () => runtime.remember({ text: "one more" }),
          () => runtime.update(id, { text: "changed" }),
          () => runtime.forget(id),
          () => runtime.syncConnectors(),
        ]
      ) {
        await assert.rejects(write(), (e: { code?: string; message: string }) => {
          assert.equal(e.code, "CONFLICT");
          assert.match(e.message, /memo resolve/);
          return true;
        });
      }
    } finally {
      await runtime.close();
    }
    const io = recordingIO(dir);
    assert.equal(await runCli(["remember", "via the CLI", "--dir", dir], io), 1);
    assert.match(io.err.join(""), /^memo: .*memo resolve/);
    assert.equal(io.err.join("").trim().split("\n").length, 1);
    const reader = recordingIO(dir);
    assert.equal(await runCli(["recall", "kafka", "--dir", dir], reader), 0);
    assert.doesNotMatch(reader.out.join(""), /={7}|<{7}/);
    assert.match(reader.err.join(""), /^memo: .*unresolved git merge/);
    assert.deepEqual(await readFile(path), conflicted); // byte for byte

    // memo resolve: the driver's bytes, then git add.
    const resolver = recordingIO(dir);
    assert.equal(await runCli(["resolve", "--dir", dir], resolver), 0);
    assert.match(resolver.out.join(""), /^Resolved .*3 notes kept.*\nNow run: git add /);
    assert.equal(await readFile(path, "utf8"), driver.text);
    const after = recordingIO(dir);
    assert.equal(await runCli(["remember", "after the merge", "--dir", dir], after), 0);
    assert.deepEqual(after.err, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("diff3 markers carry their own base; resolve writes the driver's bytes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const path = await conflictedClone(dir, "diff3");
    assert.match(await readFile(path, "utf8"), /^\|{7} /m);
    const stage = async (n: number) => (await git(dir, "show", `:${n}:.memo/memory/notes.md`)).out;
    const driver = mergeNotesFiles({
      base: await stage(1),
      ours: await stage(2),
      theirs: await stage(3),
    });
    const io = recordingIO(dir);
    assert.equal(await runCli(["resolve", "--dir", dir, "--json"], io), 0);
    const report = JSON.parse(io.out.join(""));
    assert.equal(report.base, "file");
    assert.equal(report.notes, 3);
    assert.ok(driver.ok);
    assert.equal(await readFile(path, "utf8"), driver.text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a code block a note leaves open does not hide git's markers after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const memo = (...argv: string[]) => memoJson(dir, ...argv);
    await git(dir, "init", "-q", "-b", "main");
    await git(dir, "config", "user.email", "memo@example.com");
    await git(dir, "config", "user.name", "memo");
    // A note whose body opens a code block and never closes it, then the note both sides edit.
    await memo("remember", "Deploy steps:\n```bash\nmake deploy");
    const { note } = await memo("remember", "the cache is redis");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "checkout", "-qb", "a");
    await memo("update", note.id, "--text", "the cache is memcached");
    await git(dir, "commit", "-qam", "a");
    await git(dir, "checkout", "-q", "main");
    await memo("update", note.id, "--text", "the cache is valkey");
    await git(dir, "commit", "-qam", "main");
    const merged = await git(dir, "merge", "-q", "--no-edit", "a");
    assert.notEqual(merged.code, 0, merged.out);
    const path = `${dir}/.memo/memory/notes.md`;
    const conflicted = await readFile(path);
    assert.match(conflicted.toString(), /^<{7} HEAD$/m);

    const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
    try {
      const stats = await runtime.stats();
      assert.ok(stats.unresolvedMerge, "the merge is seen");
      const { notes } = await runtime.list({ limit: 10 });
      for (const n of notes) assert.doesNotMatch(n.body, /^(<{7}|={7}|>{7})/m, n.body);
      await assert.rejects(runtime.remember({ text: "one more" }), { code: "CONFLICT" });
    } finally {
      await runtime.close();
    }
    assert.deepEqual(await readFile(path), conflicted); // byte for byte
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a note quoting conflict markers in a fenced code block stays a note", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const marker = (id: string) =>
      `<!-- memo:note {"id":"${id}","labels":[],"created":"2026-01-01T00:00:00.000Z"} -->\n`;
    const text = NOTES_PREAMBLE + marker("n1") + "## How git shows a conflict\n```\n" +
      "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```\n\n" + marker("n2") +
      "## Setext\nTitle\n=======\n\n";
    await Deno.mkdir(`${dir}/.memo/memory`, { recursive: true });
    await writeFile(`${dir}/.memo/memory/notes.md`, text);
    const io = recordingIO(dir);
    assert.equal(await runCli(["get", "n1", "--dir", dir, "--json"], io), 0);
    assert.match(io.out.join(""), /\\n<{7} HEAD\\n/); // in the body, as written
    assert.deepEqual(io.err, []); // no unresolved merge
    assert.equal(await runCli(["remember", "a write works", "--dir", dir], recordingIO(dir)), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("git's hunk inside a code block is git's while the file is unmerged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const memo = (...argv: string[]) => memoIn(dir, ...argv, "--json");
    const json = (...argv: string[]) => memoJson(dir, ...argv);
    await git(dir, "init", "-q", "-b", "main");
    await git(dir, "config", "user.email", "memo@example.com");
    await git(dir, "config", "user.name", "memo");
    // Both sides change one line deep in a note's code block: git puts a hunk there, apart
    // from the one on the note's marker line.
    const body = (flag: string) =>
      `Run this:\n\`\`\`sh\ncd app\nexport A=1\nexport B=2\nexport C=3\nmake deploy${flag}\n\`\`\`\nthen check.`;
    const { note } = await json("remember", body(""), "--title", "How to deploy");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-qm", "base");
    await git(dir, "checkout", "-qb", "b1");
    await json("update", note.id, "--text", body(" --prod"));
    await git(dir, "commit", "-qam", "b1");
    await git(dir, "checkout", "-q", "main");
    await json("update", note.id, "--text", body(" --fast"));
    await git(dir, "commit", "-qam", "main");
    const merged = await git(dir, "merge", "-q", "--no-edit", "b1");
    assert.notEqual(merged.code, 0, merged.out);
    const path = `${dir}/.memo/memory/notes.md`;
    const conflicted = await readFile(path);
    assert.match(conflicted.toString(), /^<{7} HEAD\nmake deploy --fast\n={7}\n/m);

    const runtime = createMemoMcpRuntimeFromConfig({ rootDir: dir });
    try {
      const stats = await runtime.stats();
      assert.equal(stats.unresolvedMerge?.hunks, 2, "both hunks are git's");
      const { notes } = await runtime.list({ limit: 10 });
      for (const n of notes) assert.doesNotMatch(n.body, /^\\?(<{7}|={7}|>{7})/m, n.body);
      await assert.rejects(runtime.remember({ text: "one more" }), { code: "CONFLICT" });
    } finally {
      await runtime.close();
    }
    assert.deepEqual(await readFile(path), conflicted); // byte for byte
    const doctor = await memo("doctor");
    assert.match(doctor.out, /unresolved-merge/);

    const resolved = await memo("resolve");
    assert.equal(resolved.code, 0, resolved.err);
    const after = (await readFile(path)).toString();
    assert.doesNotMatch(after, /^\\?(<{7}|>{7})/m);
    const { notes } = await json("list");
    // One side wins; the other is kept whole in a conflict copy.
    const bodies: string[] = notes.map((n: { body: string }) => n.body);
    assert.equal(bodies.length, 2, bodies.join("\n---\n"));
    const [win, lose] = bodies.includes(body(" --prod"))
      ? [body(" --prod"), body(" --fast")]
      : [body(" --fast"), body(" --prod")];
    assert.ok(bodies.includes(win), bodies.join("\n---\n"));
    assert.ok(bodies.some((b) => b !== win && b.endsWith(`\n\n${lose}`)), bodies.join("\n---\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("while the file is unmerged, a note that quotes markers in a code block, changed by neither side, stays whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const memo = (...argv: string[]) => memoJson(dir, ...argv);
    // A hand edit (the docs invite them): the base note quotes git's markers in a closed code block.
    const quote = "```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n```";
    const quoted = `Deploys run with make deploy\n${quote}`;
    await conflictedClone(dir, "merge", {
      base: (path) => edit(path, "\nDeploys run with make deploy\n", `\n${quoted}\n`),
    });
    const bodies = async () =>
      (await memo("list", "--limit", "50")).notes.map((n: { body: string }) => n.body).sort();
    const expected = [quoted, "alice says the cache is redis", "bob says the queue is kafka"];
    assert.deepEqual(await bodies(), expected, "read while conflicted");
    await memo("resolve");
    // The quoting note keeps its body, and gets no conflict copy; both sides' notes are there.
    assert.deepEqual(await bodies(), expected);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a base in git's index that cannot be read as notes: memo resolve merges two-way, as memo doctor says it will", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const memo = (...argv: string[]) => memoIn(dir, ...argv);
    // The base commit holds a damaged marker; both branches mend it the same way.
    await conflictedClone(dir, "merge", {
      base: (path) => edit(path, `"labels":[]`, `"labels":[`),
      branch: (path) => edit(path, `"labels":[,`, `"labels":[],`),
    });
    const problems = JSON.parse((await memo("doctor", "--json")).out).problems;
    const merge = problems.find((p: { code: string }) => p.code === "unresolved-merge");
    assert.match(merge.fix, /^memo resolve /);
    const resolved = await memo("resolve");
    assert.equal(resolved.code, 0, resolved.err);
    const listed = await memo("list", "--json");
    const bodies = JSON.parse(listed.out).notes.map((n: { body: string }) => n.body).sort();
    assert.deepEqual(bodies, [
      "Deploys run with make deploy",
      "alice says the cache is redis",
      "bob says the queue is kafka",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Replaces the first `from` in the file at `path` with `to`. */
async function edit(path: string, from: string, to: string): Promise<void> {
  const text = (await readFile(path)).toString();
  assert.ok(text.includes(from), `${from} is not in ${path}`);
  await writeFile(path, text.replace(from, to));
}

Deno.test("memo tidy on a conflicted notes.md prints the plan of the merge, with no diff", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-conflict-" });
  try {
    const path = await conflictedClone(dir, "merge");
    const before = await readFile(path);
    for (const argv of [["tidy"], ["tidy", "--json"]]) {
      const io = recordingIO(dir);
      assert.equal(await runCli([...argv, "--dir", dir], io), 0, io.err.join(""));
      assert.doesNotMatch(io.out.join(""), /^(---|\+\+\+) /m, "no diff of the markers' bytes");
    }
    assert.deepEqual(await readFile(path), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
