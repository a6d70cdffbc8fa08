/**
 * memo's git wiring with Debian's real git: `memo init` wires the merge driver (idempotent, and
 * not outside git), a fresh clone is warned once on stderr (and `memo mcp`'s stdout stays
 * JSON-RPC), and `memo doctor` names each problem with a stable code and a fix at the root.
 */

import assert from "node:assert/strict";
import { mkdir, readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NOTES_PREAMBLE, serializeNote } from "@memo/memory";
import { recordingIO } from "../../testing/cli_io.ts";
import { git } from "../../testing/git.ts";
import { readUntil } from "../../testing/wait.ts";
import { runCli } from "../main.ts";

const CLI = fileURLToPath(new URL("../../cli.ts", import.meta.url));
async function memo(cwd: string, ...argv: string[]) {
  const io = recordingIO(cwd);
  const code = await runCli(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

async function withTemp(fn: (base: string) => Promise<void>): Promise<void> {
  const base = await realpath(await Deno.makeTempDir({ prefix: "memo-git-wiring-" }));
  try {
    await fn(base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/** A repository with a committed, wired memo project holding one note. */
async function wiredRepo(base: string): Promise<string> {
  const repo = join(base, "repo");
  await mkdir(repo);
  await git(repo, "init", "-q", "-b", "main");
  assert.equal((await memo(repo, "init")).code, 0);
  assert.equal((await memo(repo, "remember", "Deploys run with make deploy")).code, 0);
  await git(repo, "add", "-A");
  await git(repo, "commit", "-qm", "memo");
  return repo;
}

Deno.test("memo init in a git work tree wires the merge driver, once; outside git it does not", async () => {
  await withTemp(async (base) => {
    const repo = await wiredRepo(base);
    assert.equal(
      await readFile(join(repo, ".memo/.gitattributes"), "utf8"),
      "# memo merges its notes note by note (memo merge-file)\nmemory/notes.md merge=memo\n",
    );
    const driver = (await git(repo, "config", "--local", "--get", "merge.memo.driver")).trim();
    assert.ok(driver.endsWith(`${CLI} merge-file %O %A %B`), driver);
    assert.equal(
      (await git(repo, "config", "--local", "--get", "merge.memo.name")).trim(),
      "memo notes merge",
    );
    const config = await readFile(join(repo, ".git/config"), "utf8");
    const again = await memo(repo, "init", "--json");
    assert.equal(again.code, 0);
    const result = JSON.parse(again.out);
    assert.deepEqual(result.git, { attributes: "unchanged", config: "unchanged", driver });
    assert.ok(result.files.every((f: { status: string }) => f.status === "unchanged"));
    assert.equal(await readFile(join(repo, ".git/config"), "utf8"), config);
    assert.equal(await git(repo, "status", "--porcelain"), "");

    const plain = join(base, "plain");
    await mkdir(plain);
    const outside = JSON.parse((await memo(plain, "init", "--json")).out);
    assert.equal(outside.git, undefined);
    assert.deepEqual(outside.files.map((f: { path: string }) => f.path), [
      ".memo/config.json",
      ".memo/.gitignore",
    ]);
    const doctor = await memo(plain, "doctor", "--json");
    assert.deepEqual([doctor.code, JSON.parse(doctor.out)], [0, { problems: [] }]); // not a problem
    assert.match((await memo(plain, "doctor")).out, /^memo doctor: nothing to fix in .*plain\n$/);
  });
});

Deno.test("a fresh clone without the driver: one memo: line on stderr (CLI, mcp, serve), mcp's stdout JSON-RPC only", async () => {
  await withTemp(async (base) => {
    const repo = await wiredRepo(base);
    const clone = join(base, "clone");
    await git(base, "clone", "-q", repo, clone);
    const fix = `memo init --dir ${clone}`;

    const recall = await memo(join(clone), "recall", "deploy");
    assert.equal(recall.code, 0);
    assert.match(recall.out, /make deploy/);
    const lines = recall.err.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, recall.err);
    assert.match(lines[0], /^memo: this clone has no merge driver/);
    assert.ok(lines[0].endsWith(`run: ${fix}`), lines[0]);
    assert.equal((await memo(clone, "merge-file", "--help")).err, ""); // never there

    // memo mcp as a process, stderr not a terminal: the line on stderr, JSON-RPC on stdout.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CLI, "mcp", "--dir", clone],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const requests = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "memory_stats", arguments: {} },
      },
    ];
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n")));
    await writer.write(new TextEncoder().encode("\n"));
    await writer.close();
    const output = await child.output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    const answers = stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(answers.map((a) => [a.jsonrpc, a.id]), [["2.0", 1], ["2.0", 2]]);
    assert.equal(answers[1].result.structuredContent.notes, 1);
    assert.deepEqual(answers[1].result.structuredContent.git, { driver: "missing", fix });
    assert.deepEqual(stderr.split("\n").filter(Boolean), [lines[0]]);

    // memo serve: the same line on stderr, once, beside its banner.
    const server = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CLI, "serve", "--port", "0", "--dir", clone],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderrReader = server.stderr.getReader();
    try {
      const seen = await readUntil(
        stderrReader,
        (t) => t.includes(lines[0]),
        "memo serve's missing-driver line",
      );
      assert.equal(seen.text.split("\n").filter((l) => l === lines[0]).length, 1, seen.text);
    } finally {
      server.kill("SIGTERM");
      await stderrReader.cancel().catch(() => {});
      await server.status;
    }

    const doctor = await memo(clone, "doctor", "--json");
    assert.equal(doctor.code, 1);
    assert.deepEqual(JSON.parse(doctor.out).problems.map((p: { code: string }) => p.code), [
      "git-driver-missing",
    ]);
    assert.equal(JSON.parse(doctor.out).problems[0].fix, fix);
    assert.equal((await memo(clone, "init")).code, 0); // the fix
    assert.equal((await memo(clone, "doctor")).code, 0);
    assert.equal((await memo(clone, "recall", "deploy")).err, "");
  });
});

Deno.test("memo doctor finds each kind of problem, with stable codes and fixes at the root", async () => {
  await withTemp(async (base) => {
    const root = join(base, "project");
    const deep = join(root, "src", "deep");
    await mkdir(deep, { recursive: true });
    await git(root, "init", "-q");
    await mkdir(join(root, ".memo", "memory"), { recursive: true }); // no attribute, no .gitignore
    const note = (id: string, body: string, supersedes?: string[]) =>
      serializeNote({
        id,
        title: body,
        body,
        labels: [],
        hash: "0123abcd",
        created: "2026-01-01T00:00:00.000Z",
        updated: "2026-01-01T00:00:00.000Z",
        ...(supersedes ? { supersedes } : {}),
      });
    const notes = join(root, ".memo", "memory", "notes.md");
    await writeFile(
      notes,
      NOTES_PREAMBLE + note("n1", "one") + note("n1", "again") + note("n2", "two", ["ghost"]) +
        "<!-- memo:note {not json} -->\n## Broken\nbody\n\n",
    );
    const found = await memo(deep, "doctor", "--json");
    assert.equal(found.code, 1);
    const problems = JSON.parse(found.out).problems as { code: string; fix: string }[];
    assert.deepEqual(problems.map((p) => p.code), [ // the wiring, then the notes in file order
      "git-attribute-missing",
      "gitignore-leaks",
      "duplicate-id",
      "damaged-note",
      "dangling-supersedes",
    ]);
    for (const p of problems.filter((p) => p.code.startsWith("git"))) {
      assert.equal(p.fix, `memo init --dir ${root}`); // the root, not the subfolder
    }
    const human = await memo(deep, "doctor");
    assert.equal(human.code, 1);
    assert.equal(human.out.split("\n").filter(Boolean).length, problems.length);
    assert.match(human.out, /^git-attribute-missing: .*; fix: memo init --dir /m);

    await writeFile(
      notes,
      NOTES_PREAMBLE + "<<<<<<< HEAD\n" + note("a", "a") + "=======\n" +
        note("b", "b") + ">>>>>>> other\n",
    );
    const merge = JSON.parse((await memo(deep, "doctor", "--json")).out).problems;
    assert.deepEqual(merge.at(-1), {
      code: "unresolved-merge",
      message: ".memo/memory/notes.md holds an unresolved merge (git's conflict markers)",
      fix: `memo resolve --dir ${root}, then git add .memo/memory/notes.md`,
    });
    // A side memo cannot read as notes: memo resolve would fail, so the fix is by hand.
    await writeFile(
      notes,
      NOTES_PREAMBLE + "<!-- memo:note {not json} -->\n## Broken\nbody\n\n<<<<<<< HEAD\n" +
        note("a", "a") + "=======\n" + note("b", "b") + ">>>>>>> other\n",
    );
    const damaged = JSON.parse((await memo(deep, "doctor", "--json")).out).problems.at(-1);
    assert.equal(damaged.code, "unresolved-merge");
    const brokenAt = NOTES_PREAMBLE.split("\n").length; // the file's line of the broken marker
    assert.match(
      damaged.message,
      new RegExp(`its ours side cannot be read as notes \\(line ${brokenAt}: `),
    );
    assert.match(
      damaged.fix,
      new RegExp(`^edit \\.memo/memory/notes\\.md: mend that note \\(line ${brokenAt}\\)`),
    );
    // After a hunk whose sides differ in length, the line named is still the file's own.
    const after = NOTES_PREAMBLE + "<<<<<<< HEAD\n" + note("a", "a") + note("c", "c") +
      note("d", "d") + "=======\n" + note("b", "b") + ">>>>>>> other\n\n" +
      "<!-- memo:note {not json} -->\n## Broken\nbody\n";
    await writeFile(notes, after);
    const later = JSON.parse((await memo(deep, "doctor", "--json")).out).problems.at(-1);
    const line = after.split("\n").indexOf("<!-- memo:note {not json} -->") + 1;
    assert.match(
      later.message,
      new RegExp(`cannot be read as notes \\(line ${line}: `),
      later.message,
    );

    assert.equal((await memo(root, "init")).code, 0);
    await writeFile(notes, NOTES_PREAMBLE + note("a", "a"));
    assert.deepEqual(JSON.parse((await memo(deep, "doctor", "--json")).out), { problems: [] });

    // A configuration every other command refuses.
    const config = join(root, ".memo", "config.json");
    for (
      const [text, message] of [
        ["{bad json", /^Cannot read \.memo\/config\.json: it is not valid JSON/],
        ['{"runtime":"bogus"}', /runtime must be local, hybrid or cloud/],
        ['{"recall":{"engine":"vector","localEmbeddings":false}}', /needs embeddings/],
      ] as const
    ) {
      await writeFile(config, text);
      const bad = await memo(deep, "doctor", "--json");
      assert.equal(bad.code, 1, text);
      const [problem] = JSON.parse(bad.out).problems;
      assert.equal(problem.code, "config-invalid");
      assert.match(problem.message, message);
      assert.equal(problem.fix, `edit ${config} (see docs/configuration.md)`);
    }
    await writeFile(config, "{}");
    assert.deepEqual(JSON.parse((await memo(deep, "doctor", "--json")).out), { problems: [] });
    const empty = join(base, "empty");
    await mkdir(empty);
    const none = await memo(empty, "doctor", "--json");
    assert.deepEqual([none.code, JSON.parse(none.out).problems[0].code], [1, "no-project"]);
  });
});
