import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkedFiles, parseClaudeFile, slugOf } from "./claude.ts";
import { readImportSource } from "./mod.ts";

Deno.test("readImportSource() reads a Claude Code memory folder", async () => {
  const base = await mkdtemp(join(tmpdir(), "memo-claude-test-"));
  const dir = join(base, "project");
  try {
    for (const d of ["docs", ".claude/rules", ".claude/commands", ".claude/agents", "memory"]) {
      await mkdir(join(dir, d), { recursive: true });
    }
    const write = (f: string, text: string | Uint8Array) => writeFile(join(dir, f), text);
    await write(
      "CLAUDE.md",
      [
        "# Acme app",
        "",
        "Monorepo; see @docs/architecture.md and [notes](memory/topics.md#top).",
        "",
        "## Build & test",
        "",
        "- `pnpm test` runs everything",
        "",
        "```md",
        "## not a heading [x](docs/ignored.md)",
        "```",
        "",
        "## Empty section",
        "",
        "## Outside",
        "See [up](../outside.md) and [web](https://example.com/a.md) and @~/global.md.",
      ].join("\n"),
    );
    await write("CLAUDE.local.md", "## My sandbox\nUse port 3001.\n");
    await write("docs/architecture.md", "## Layers\nweb → api → db\n[back](../CLAUDE.md)\n");
    await write("docs/ignored.md", "## Never\nread\n");
    await write("memory/topics.md", "Topic intro.\n## Deploys\nFridays only.\n");
    await write(".claude/rules/style.md", "## Style\nTabs.\n");
    await write(".claude/commands/fix.md", "## Command\nnot memory\n");
    await write(".claude/agents/rev.md", "## Agent\nnot memory\n");
    await write(".claude/settings.json", "{}");
    await write(".claude/rules/latin1.md", new Uint8Array([0x23, 0x0a, 0x61, 0xe9, 0x0a]));
    await writeFile(join(base, "outside.md"), "## Out\nno\n");
    const read = await readImportSource(dir);
    assert.equal(read.format, "claude");
    assert.deepEqual(
      read.records.map((r) => [r.file, r.line, r.draft.title, r.draft.source]),
      [
        [".claude/rules/style.md", 1, "Style", "claude:.claude/rules/style.md#style"],
        ["CLAUDE.local.md", 1, "My sandbox", "claude:CLAUDE.local.md#my-sandbox"],
        ["CLAUDE.md", 1, "Acme app", "claude:CLAUDE.md"],
        ["CLAUDE.md", 5, "Build & test", "claude:CLAUDE.md#build--test"],
        ["CLAUDE.md", 15, "Outside", "claude:CLAUDE.md#outside"],
        ["docs/architecture.md", 1, "Layers", "claude:docs/architecture.md#layers"],
        ["memory/topics.md", 1, "topics.md", "claude:memory/topics.md"],
        ["memory/topics.md", 2, "Deploys", "claude:memory/topics.md#deploys"],
      ],
    );
    const build = read.records[3].draft;
    assert.equal(
      build.text,
      "- `pnpm test` runs everything\n\n```md\n## not a heading [x](docs/ignored.md)\n```",
    );
    assert.deepEqual(build.labels, ["claude"]);
    assert.deepEqual(read.skipped, [{
      file: ".claude/rules/latin1.md",
      line: 2,
      reason: "not UTF-8",
    }]);
  } finally {
    await rm(base, { recursive: true });
  }
});

Deno.test("readImportSource() reads one MEMORY.md and its topic files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-claude-one-"));
  try {
    await writeFile(join(dir, "MEMORY.md"), "- [Debugging](debugging.md): notes\n");
    await writeFile(join(dir, "debugging.md"), "# Debugging\n## Flaky\nRetry.\n");
    const progress: number[] = [];
    const read = await readImportSource(join(dir, "MEMORY.md"), {
      onProgress: (done) => progress.push(done),
    });
    assert.equal(read.format, "claude");
    assert.deepEqual(read.records.map((r) => [r.file, r.draft.title, r.draft.text]), [
      ["MEMORY.md", "MEMORY.md", "- [Debugging](debugging.md): notes"],
      ["debugging.md", "Flaky", "Retry."],
    ]);
    assert.deepEqual(progress, [1, 2]);
  } finally {
    await rm(dir, { recursive: true });
  }
});

Deno.test("parseClaudeFile() and slugOf() follow GitHub's anchors", () => {
  assert.equal(slugOf("Build & Test (CI)"), "build--test-ci");
  assert.equal(slugOf("Ünïcode_ok"), "ünïcode_ok");
  const records = parseClaudeFile("## A\nx\n## A\ny\n## A\nz\n", "f.md");
  assert.deepEqual(records.map((r) => r.draft.source), [
    "claude:f.md#a",
    "claude:f.md#a-1",
    "claude:f.md#a-2",
  ]);
  assert.deepEqual(parseClaudeFile("# Only a title\n\n## Empty\n", "f.md"), []);
});

Deno.test("linkedFiles() finds relative .md links and @imports inside the source", () => {
  const text = '@a.md, [b](sub/b.md "t") [c](<c d.md>) [e](e%20f.md) `@code.md` @x.txt ' +
    "[up](../../o.md) [abs](/etc/x.md) mail@host.md";
  assert.deepEqual(linkedFiles(text, "dir/f.md"), [
    "dir/sub/b.md",
    "dir/c d.md",
    "dir/e f.md",
    "dir/a.md",
  ]);
});

Deno.test("readImportSource() lists the markdown a Claude Code folder leaves unread", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-claude-unread-"));
  try {
    for (const d of ["Ideas", ".obsidian", "node_modules/x", ".claude/rules", "docs"]) {
      await mkdir(join(dir, d), { recursive: true });
    }
    const write = (f: string, text: string) => writeFile(join(dir, f), text);
    await write("CLAUDE.md", "## Vault rules\nSee [style](docs/style.md).\n");
    await write("docs/style.md", "## Style\nShort.\n");
    await write("Ideas/Rockets.md", "# Rockets\nLand them.\n");
    await write("Daily.md", "Quiet day.\n");
    await write("notes.txt", "not markdown\n");
    await write(".obsidian/workspace.md", "editor state\n");
    await write("node_modules/x/README.md", "a package\n");
    await write(".claude/rules/r.md", "## R\nr\n");
    const read = await readImportSource(dir);
    assert.equal(read.format, "claude");
    assert.deepEqual(read.records.map((r) => r.file), [
      ".claude/rules/r.md",
      "CLAUDE.md",
      "docs/style.md",
    ]);
    assert.deepEqual(read.unread, ["Daily.md", "Ideas/Rockets.md"]);
    // Nothing left over: an empty list.
    const only = await mkdtemp(join(tmpdir(), "memo-claude-only-"));
    try {
      await writeFile(join(only, "CLAUDE.md"), "## A\na\n");
      assert.deepEqual((await readImportSource(only)).unread, []);
    } finally {
      await rm(only, { recursive: true });
    }
  } finally {
    await rm(dir, { recursive: true });
  }
});

Deno.test("readImportSource() reads every topic file of an auto-memory folder", async () => {
  const base = await mkdtemp(join(tmpdir(), "memo-claude-auto-"));
  try {
    const memory = join(base, ".claude", "projects", "-home-ada-app", "memory");
    await mkdir(memory, { recursive: true });
    await mkdir(join(base, ".claude", "plans"), { recursive: true });
    await mkdir(join(base, ".claude", "todos"), { recursive: true });
    await mkdir(join(memory, "old"));
    await writeFile(
      join(memory, "MEMORY.md"),
      "# Memory\n## Index\n- debugging.md: flaky tests\n- `deploys.md` (Fridays)\n",
    );
    await writeFile(join(memory, "debugging.md"), "## Flaky\nRetry.\n");
    await writeFile(join(memory, "deploys.md"), "## Deploys\nFridays are frozen.\n");
    await writeFile(join(memory, "old", "stale.md"), "## Stale\nnot beside MEMORY.md\n");
    await writeFile(join(base, ".claude", "plans", "plan.md"), "## Plan\nstep 1\n");
    await writeFile(join(base, ".claude", "todos", "todo.md"), "## Todo\nx\n");
    const titles = (read: { records: { draft: { title?: string } }[] }) =>
      read.records.map((r) => r.draft.title);
    // The memory folder, its MEMORY.md alone, and the whole project: the topic files come along.
    const folder = await readImportSource(memory);
    assert.equal(folder.format, "claude");
    assert.deepEqual(titles(folder), ["Index", "Flaky", "Deploys"]);
    assert.deepEqual(folder.unread, ["old/stale.md"]);
    assert.deepEqual(titles(await readImportSource(join(memory, "MEMORY.md"))), [
      "Index",
      "Flaky",
      "Deploys",
    ]);
    const project = await readImportSource(base);
    assert.deepEqual(project.records.map((r) => r.file), [
      ".claude/projects/-home-ada-app/memory/MEMORY.md",
      ".claude/projects/-home-ada-app/memory/debugging.md",
      ".claude/projects/-home-ada-app/memory/deploys.md",
      ".claude/projects/-home-ada-app/memory/old/stale.md",
    ]);
    assert.deepEqual(project.unread, []);
  } finally {
    await rm(base, { recursive: true });
  }
});
