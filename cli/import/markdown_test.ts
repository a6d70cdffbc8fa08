import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash, type Note, NOTES_PREAMBLE, serializeNote } from "@memo/memory";
import { parseMarkdownFile, readMarkdown } from "./markdown.ts";
import { readImportSource } from "./mod.ts";

Deno.test("readMarkdown() reads an Obsidian-style vault", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-vault-"));
  try {
    await mkdir(join(dir, ".obsidian"));
    await mkdir(join(dir, "Projects", "Sub"), { recursive: true });
    await writeFile(join(dir, ".obsidian", "workspace.md"), "# not a note\n");
    await writeFile(
      join(dir, "Projects", "Rocket plan.md"),
      "---\ntags:\n  - project\n  - '#space'\naliases: [Rocket]\nmodified: 2026-02-01T10:00:00+01:00\n---\n\n# Rocket\n\nLaunch in May.\n",
    );
    await writeFile(join(dir, "Projects", "Sub", "bad.md"), "---\ntags: [a\n---\ntext\n");
    await writeFile(join(dir, "inbox.md"), "No heading here.\r\nSecond line.\r\n");
    await writeFile(join(dir, "empty.md"), "---\ntags: x\n---\n# Only a title\n");
    await writeFile(join(dir, "notes.txt"), "ignored");
    const read = await readImportSource(dir);
    assert.equal(read.format, "markdown");
    assert.deepEqual(read.records.map((r) => r.draft), [
      {
        title: "Rocket",
        text: "Launch in May.",
        labels: ["project", "space"],
        source: "file:Projects/Rocket%20plan.md",
        updated: "2026-02-01T09:00:00.000Z",
      },
      {
        title: "inbox",
        text: "No heading here.\nSecond line.",
        labels: [],
        source: "file:inbox.md",
      },
    ]);
    assert.deepEqual(read.skipped, [
      { file: "Projects/Sub/bad.md", line: 2, reason: "front matter list has no closing ]" },
      { file: "empty.md", line: 1, reason: "Cannot store note: text is empty" },
    ]);
  } finally {
    await rm(dir, { recursive: true });
  }
});

Deno.test("parseMarkdownFile() reads basic-memory front matter", () => {
  const text = [
    "---",
    "title: Coffee Brewing Methods",
    "type: note",
    "permalink: coffee-brewing-methods",
    "tags:",
    "- coffee",
    "- brewing",
    "---",
    "",
    "# Coffee Brewing Methods",
    "",
    "## Observations",
    "- [method] Pour over is clean #coffee",
  ].join("\n");
  const [record] = parseMarkdownFile(text, "coffee.md").records;
  assert.equal(record.draft.title, "Coffee Brewing Methods");
  assert.deepEqual(record.draft.labels, ["coffee", "brewing", "note"]);
  // A title from the front matter leaves the heading in the body.
  assert.ok(record.draft.text.startsWith("# Coffee Brewing Methods\n\n## Observations"));
  assert.equal(record.draft.source, "file:coffee.md");
});

Deno.test("a memo notes.md is read note by note, ids and times kept", async () => {
  const note = (id: string, body: string, source?: string): Note => {
    const n: Note = {
      id,
      title: `Title ${id}`,
      body,
      labels: ["x"],
      hash: contentHash({ title: `Title ${id}`, body, labels: ["x"] }),
      created: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-03T00:00:00.000Z",
    };
    if (source) n.source = source;
    return n;
  };
  const text = NOTES_PREAMBLE + serializeNote(note("a1", "one\ntwo", "s:1")) +
    "<!-- memo:note {broken -->\n## Bad\n\n" + serializeNote(note("b2", "three"));
  const dir = await mkdtemp(join(tmpdir(), "memo-notes-"));
  try {
    await writeFile(join(dir, "notes.md"), text);
    const read = await readImportSource(join(dir, "notes.md"));
    assert.equal(read.format, "markdown");
    assert.deepEqual(read.records.map((r) => [r.line, r.draft]), [
      [6, {
        id: "a1",
        title: "Title a1",
        text: "one\ntwo",
        labels: ["x"],
        source: "s:1",
        created: "2026-01-01T00:00:00.000Z",
        updated: "2026-01-03T00:00:00.000Z",
      }],
      [14, {
        id: "b2",
        title: "Title b2",
        text: "three",
        labels: ["x"],
        created: "2026-01-01T00:00:00.000Z",
        updated: "2026-01-03T00:00:00.000Z",
      }],
    ]);
    assert.equal(read.skipped.length, 1);
    assert.equal(read.skipped[0].line, 11);
  } finally {
    await rm(dir, { recursive: true });
  }
  // readMarkdown on a single file names it by its basename.
  const dir2 = await mkdtemp(join(tmpdir(), "memo-one-"));
  try {
    await writeFile(join(dir2, "x.markdown.md"), "hello");
    const { records } = await readMarkdown(join(dir2, "x.markdown.md"), "file", {});
    assert.deepEqual(records.map((r) => [r.file, r.draft.title]), [[
      "x.markdown.md",
      "x.markdown",
    ]]);
  } finally {
    await rm(dir2, { recursive: true });
  }
});

Deno.test("a memo notes.md with two notes of one identity reports the later one", async () => {
  const note = (id: string, body: string, source?: string): Note => {
    const n: Note = {
      id,
      title: "T",
      body,
      labels: [],
      hash: contentHash({ title: "T", body, labels: [] }),
      created: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-01T00:00:00.000Z",
    };
    if (source) n.source = source;
    return n;
  };
  const text = NOTES_PREAMBLE + serializeNote(note("a1", "one", "s:1")) +
    serializeNote(note("a2", "two", "s:1")) + serializeNote(note("a3", "same")) +
    serializeNote(note("a4", "same"));
  const dir = await mkdtemp(join(tmpdir(), "memo-notes-dup-"));
  try {
    await writeFile(join(dir, "notes.md"), text);
    const read = await readImportSource(join(dir, "notes.md"));
    assert.deepEqual(read.records.map((r) => r.draft.id), ["a1", "a3"]);
    const line = (id: string) => read.records.find((r) => r.draft.id === id)!.line;
    assert.deepEqual(read.skipped.map((s) => s.reason), [
      `same source key as line ${line("a1")}: memo keeps one note per identity`,
      `same content as line ${line("a3")}: memo keeps one note per identity`,
    ]);
    assert.ok(read.skipped[0].line > line("a1") && read.skipped[1].line > line("a3"));
  } finally {
    await rm(dir, { recursive: true });
  }
});
