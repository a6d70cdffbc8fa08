import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { recordingIO } from "../../testing/cli_io.ts";
import { runCli } from "../main.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function notesOf(dir: string): Promise<Json[]> {
  const io = recordingIO(dir);
  assert.equal(await runCli(["list", "--json", "--limit", "1000"], io), 0);
  return JSON.parse(io.out.join("")).notes;
}

async function put(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

test("memo import reads a Claude Code memory folder: one note per ## section", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-claude-" });
  try {
    await put(dir, {
      "repo/CLAUDE.md": "# Acme app\n\nUse pnpm, never npm.\n\n## Build & test\n\n" +
        "Run `pnpm test` before pushing. See [debugging](docs/debugging.md).\n\n" +
        "## Style\n\nTabs, not spaces. @docs/style.md\n\n## Empty\n",
      "repo/docs/debugging.md": "## Flaky tests\n\nRun them twice.\n",
      "repo/docs/style.md": "## Naming\n\nsnake_case files.\n",
      "repo/.claude/memory/deploys.md": "## Deploys\n\nFridays are frozen.\n",
      "repo/.claude/settings.json": "{}",
      "repo/.claude/commands/ship.md": "## Ship\n\nA slash command, not memory.\n",
    });
    const io = recordingIO(dir);
    assert.equal(await runCli(["import", "repo", "--json"], io), 0, io.err.join(""));
    const summary = JSON.parse(io.out.join(""));
    assert.equal(summary.format, "claude");
    assert.deepEqual(summary.skipped, []);
    const notes = await notesOf(dir);
    const rows = notes.map((n) => [n.source, n.title, n.body, n.labels]);
    rows.sort((a, b) => a[0] < b[0] ? -1 : 1);
    assert.deepEqual(rows, [
      ["claude:.claude/memory/deploys.md#deploys", "Deploys", "Fridays are frozen.", ["claude"]],
      ["claude:CLAUDE.md", "Acme app", "Use pnpm, never npm.", ["claude"]],
      [
        "claude:CLAUDE.md#build--test",
        "Build & test",
        "Run `pnpm test` before pushing. See [debugging](docs/debugging.md).",
        ["claude"],
      ],
      ["claude:CLAUDE.md#style", "Style", "Tabs, not spaces. @docs/style.md", ["claude"]],
      ["claude:docs/debugging.md#flaky-tests", "Flaky tests", "Run them twice.", ["claude"]],
      ["claude:docs/style.md#naming", "Naming", "snake_case files.", ["claude"]],
    ]);
    assert.equal(summary.written, 6);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo import says which markdown a Claude Code folder left unread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-unread-" });
  try {
    await put(dir, {
      "vault/CLAUDE.md": "## Vault rules\n\nLink notes.\n",
      "vault/Ideas/Rockets.md": "# Rockets\n\nLand them.\n",
      "vault/Daily.md": "Quiet day.\n",
      "vault/.obsidian/workspace.md": "editor state\n",
      "one/CLAUDE.md": "## Only\n\nthis.\n",
      "graph.jsonl": JSON.stringify({ type: "entity", name: "A", entityType: "t" }) + "\n",
    });
    const io = recordingIO(dir);
    assert.equal(await runCli(["import", "vault", "--json"], io), 0, io.err.join(""));
    assert.deepEqual(io.err, [
      "memo: 2 other markdown files under vault were not read as Claude Code memory; " +
      "import them with --from markdown\n",
    ]);
    const summary = JSON.parse(io.out.join(""));
    assert.equal(summary.format, "claude");
    assert.equal(summary.written, 1);
    assert.equal(summary.unread, 2);
    for (const source of ["one", "graph.jsonl"]) {
      const other = recordingIO(dir);
      assert.equal(await runCli(["import", source, "--json"], other), 0, other.err.join(""));
      assert.deepEqual(other.err, []);
      assert.equal(JSON.parse(other.out.join("")).unread, 0);
    }
    const markdown = recordingIO(dir);
    assert.equal(await runCli(["import", "vault", "--from", "markdown"], markdown), 0);
    assert.deepEqual(markdown.err, []);
    assert.match(markdown.out[0], /^Imported 3 records from vault \(markdown\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo import reads an Obsidian-style folder: front matter becomes labels, title and times", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-obsidian-" });
  try {
    await put(dir, {
      "vault/Ideas/Rockets.md": "---\ntags: [space, '#idea']\ncreated: 2024-03-01\n" +
        "modified: 2024-04-02T10:00:00Z\n---\n# Reusable rockets\n\nLand them on a barge.\n",
      "vault/Daily/2024-05-01.md": "---\ntitle: May Day\ntags:\n  - daily\n---\nQuiet day.\n",
      "vault/Plain.md": "No front matter here.\n",
      "vault/.obsidian/workspace.md": "## Not a note\n\nEditor state.\n",
      "vault/node_modules/x/README.md": "not a note\n",
    });
    const io = recordingIO(dir);
    assert.equal(await runCli(["import", "vault"], io), 0, io.err.join(""));
    assert.deepEqual(io.out, [
      "Imported 3 records from vault (markdown): 3 written, 0 updated, 0 unchanged, 0 skipped.\n",
    ]);
    const notes = await notesOf(dir);
    const bySource = Object.fromEntries(notes.map((n) => [n.source, n]));
    assert.deepEqual(Object.keys(bySource).sort(), [
      "file:Daily/2024-05-01.md",
      "file:Ideas/Rockets.md",
      "file:Plain.md",
    ]);
    const rockets = bySource["file:Ideas/Rockets.md"];
    assert.equal(rockets.title, "Reusable rockets");
    assert.equal(rockets.body, "Land them on a barge.");
    assert.deepEqual(rockets.labels.sort(), ["idea", "space"]);
    assert.equal(rockets.created, "2024-03-01T00:00:00.000Z");
    assert.equal(rockets.updated, "2024-04-02T10:00:00.000Z");
    assert.equal(bySource["file:Daily/2024-05-01.md"].title, "May Day");
    assert.deepEqual(bySource["file:Daily/2024-05-01.md"].labels, ["daily"]);
    assert.equal(bySource["file:Plain.md"].title, "Plain");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo import skips bad input with its file and line; --strict refuses it all", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-bad-" });
  try {
    const entity = (name: string) =>
      JSON.stringify({ type: "entity", name, entityType: "person", observations: ["hi"] });
    await put(dir, {
      "graph.jsonl": [entity("Ada"), "{not json", entity("Grace")].join("\n") + "\n",
      "vault/good.md": "# Good\n\nFine.\n",
      // Valid UTF-8 on lines 1 and 2, a lone 0xff byte on line 3.
      "vault/latin1.md": new Uint8Array([
        ...new TextEncoder().encode("# Caf\n\nline two "),
        0xff,
        ...new TextEncoder().encode("\n"),
      ]),
    });
    // Something already stored, so that a refused import visibly leaves it alone.
    const io = recordingIO(dir);
    assert.equal(await runCli(["remember", "kept", "--source", "x:kept"], io), 0);
    const notesMd = join(dir, ".memo", "memory", "notes.md");
    const before = await Deno.readFile(notesMd);

    for (const [source, skip] of [["graph.jsonl", "graph.jsonl:2: "], ["vault", "latin1.md:3: "]]) {
      const strict = recordingIO(dir);
      assert.equal(await runCli(["import", source, "--strict"], strict), 1);
      assert.deepEqual(strict.out, []);
      assert.equal(strict.err.length, 2);
      assert.ok(strict.err[0].startsWith(`memo: skipped ${skip}`), strict.err[0]);
      assert.equal(strict.err[1], `memo: Cannot import ${source}: 1 record is bad (--strict)\n`);
      assert.deepEqual(await Deno.readFile(notesMd), before, "nothing written");
    }

    const jsonl = recordingIO(dir);
    assert.equal(await runCli(["import", "graph.jsonl", "--json"], jsonl), 0);
    const summary = JSON.parse(jsonl.out.join(""));
    assert.equal(summary.written, 2);
    assert.equal(summary.skipped.length, 1);
    assert.deepEqual(
      { file: summary.skipped[0].file, line: summary.skipped[0].line },
      { file: "graph.jsonl", line: 2 },
    );
    assert.match(jsonl.err[0], /^memo: skipped graph\.jsonl:2: .+\n$/);

    // A reason that would quote a secret (a front matter line holding a token) masks it.
    const token = "ghp_ZK2vNTaIlzUaP8YUAZtvaJko1sGEultVpJkQ";
    await put(dir, { "fm/deploy.md": `---\ntitle: Deploy\nGITHUB_TOKEN=${token}\n---\nbody\n` });
    const fm = recordingIO(dir);
    assert.equal(await runCli(["import", "fm", "--from", "markdown", "--json"], fm), 0);
    const printed = fm.out.join("") + fm.err.join("");
    assert.match(printed, /cannot read front matter line/);
    assert.ok(!printed.includes(token.slice(4)), printed);

    const md = recordingIO(dir);
    assert.equal(await runCli(["import", "vault"], md), 0);
    assert.deepEqual(md.err, ["memo: skipped latin1.md:3: not UTF-8\n"]);
    assert.equal(
      md.out[0],
      "Imported 1 record from vault (markdown): 1 written, 0 updated, 0 unchanged, 1 skipped.\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo import: --from wins, an unknown source is a usage error, a missing one fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-usage-" });
  try {
    await put(dir, { "notes.txt": "just text\n", "memory.jsonl": "" });
    const run = async (...args: string[]) => {
      const io = recordingIO(dir);
      return { code: await runCli(args, io), io };
    };
    let r = await run("import", "notes.txt");
    assert.equal(r.code, 2);
    assert.match(
      r.io.err[0],
      /^memo: Cannot tell what notes\.txt holds: pass --from server-memory\|claude\|markdown\|memo-jsonl/,
    );
    r = await run("import", "notes.txt", "--from", "markdown", "--json");
    assert.equal(r.code, 0, r.io.err.join(""));
    assert.equal(JSON.parse(r.io.out.join("")).written, 1);
    r = await run("import", "notes.txt", "--from", "csv");
    assert.equal(r.code, 2);
    assert.match(r.io.err[0], /--from must be one of server-memory, claude, markdown, memo-jsonl/);
    r = await run("import", "nowhere.jsonl");
    assert.equal(r.code, 1);
    assert.deepEqual(r.io.err, ["memo: Cannot import nowhere.jsonl: no such file or folder\n"]);
    r = await run("import");
    assert.equal(r.code, 2);
    // An empty .jsonl file is an export of an empty project: nothing to write, exit 0.
    r = await run("import", "memory.jsonl");
    assert.equal(r.code, 0, r.io.err.join(""));
    assert.deepEqual(r.io.out, [
      "Imported 0 records from memory.jsonl (memo-jsonl): 0 written, 0 updated, 0 unchanged, 0 skipped.\n",
    ]);
    // An empty file with --from: nothing to write, and still a summary.
    r = await run("import", "memory.jsonl", "--from", "server-memory");
    assert.equal(r.code, 0, r.io.err.join(""));
    assert.match(r.io.out[0], /^Imported 0 records from memory\.jsonl \(server-memory\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo import draws its progress on a terminal only, on stderr", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-import-tty-" });
  try {
    await put(dir, { "vault/a.md": "# A\n\nalpha\n", "vault/b.md": "# B\n\nbeta\n" });
    const io = recordingIO(dir, "", { terminal: true });
    assert.equal(await runCli(["import", "vault"], io), 0);
    assert.match(io.err.join(""), /memo: reading \[#+\] 2\/2/);
    assert.match(io.err.join(""), /memo: writing 2 notes/);
    assert.equal(io.out.length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo forget --source removes exactly the notes under the prefix, after a confirmation", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-forget-source-" });
  try {
    const io = recordingIO(dir);
    for (const [text, source] of [["a", "imp:1"], ["b", "imp:2"], ["c", "other:imp:3"]]) {
      assert.equal(await runCli(["remember", text, "--source", source], io), 0);
    }
    assert.equal(await runCli(["remember", "no source"], io), 0);
    const run = async (args: string[], stdin = "", terminal = false) => {
      const r = recordingIO(dir, stdin, { terminal });
      return { code: await runCli(args, r), io: r };
    };
    // Off a terminal, --yes is needed; an empty prefix and an id with --source are refused.
    let r = await run(["forget", "--source", "imp:"]);
    assert.equal(r.code, 2);
    assert.match(r.io.err[0], /^memo: forget --source needs --yes when not on a terminal/);
    assert.equal((await run(["forget", "--source", "", "--yes"])).code, 2);
    assert.equal((await run(["forget", "x", "--source", "imp:", "--yes"])).code, 2);
    assert.equal((await notesOf(dir)).length, 4);

    // On a terminal: asked, and "n" (or nothing) forgets nothing.
    r = await run(["forget", "--source", "imp:"], "n\n", true);
    assert.equal(r.code, 1);
    assert.equal(r.io.err[0], 'Forget 2 notes whose source starts with "imp:"? [y/N] ');
    assert.match(r.io.err[1], /not confirmed, nothing forgotten/);
    assert.equal((await notesOf(dir)).length, 4);

    r = await run(["forget", "--source", "imp:"], "y\n", true);
    assert.equal(r.code, 0, r.io.err.join(""));
    assert.deepEqual(r.io.out, ['Forgot 2 notes whose source starts with "imp:".\n']);
    assert.deepEqual((await notesOf(dir)).map((n) => n.title), ["c", "no source"]);

    r = await run(["forget", "--source", "imp:", "--yes"]);
    assert.deepEqual([r.code, r.io.out], [0, ['No notes whose source starts with "imp:".\n']]);
    // A token typed as the prefix is not said back.
    const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    r = await run(["forget", "--source", token, "--yes"]);
    assert.equal(r.code, 0);
    assert.doesNotMatch(r.io.out.join(""), /A1b2C3d4E5f6G7h8/);

    const [c] = await notesOf(dir);
    r = await run(["forget", "--source", "other:", "--yes", "--json"]);
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.io.out.join("")), { forgotten: 1, ids: [c.id] });
    // forget ID is as before.
    const [last] = await notesOf(dir);
    r = await run(["forget", last.id]);
    assert.equal(r.code, 0);
    assert.deepEqual(await notesOf(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
