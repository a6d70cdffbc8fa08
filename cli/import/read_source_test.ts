import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash } from "@memo/memory";
import { detectImportFormat, IMPORT_FORMATS, readImportSource } from "./mod.ts";

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), "memo-import-test-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true });
  }
}

const memoLine = (id: string, body: string) =>
  JSON.stringify({
    id,
    title: "T",
    body,
    labels: [],
    hash: contentHash({ title: "T", body, labels: [] }),
    created: "2026-01-01T00:00:00.000Z",
    updated: "2026-01-01T00:00:00.000Z",
  });

Deno.test("detectImportFormat() tells the formats apart", async () => {
  await withDir(async (dir) => {
    const file = (name: string, text: string) => writeFile(join(dir, name), text);
    await file("graph.jsonl", '\n{"type":"relation","from":"a","to":"b","relationType":"r"}\n');
    await file("export.jsonl", memoLine("a1", "x") + "\n");
    await file("other.jsonl", '{"hello":1}\n');
    await file("empty.jsonl", "\n\n");
    await file("memory.md", "# M\n");
    await file("Claude.MD", "# C\n");
    await file("note.md", "# N\n");
    assert.equal(await detectImportFormat(join(dir, "graph.jsonl")), "server-memory");
    assert.equal(await detectImportFormat(join(dir, "export.jsonl")), "memo-jsonl");
    assert.equal(await detectImportFormat(join(dir, "other.jsonl")), undefined);
    assert.equal(await detectImportFormat(join(dir, "empty.jsonl")), "memo-jsonl");
    // A first note longer than the 4 MiB the detector reads is told by its first keys.
    const long = "word ".repeat(1_000_000);
    await file("long.jsonl", memoLine("a1", long) + "\n");
    assert.equal(await detectImportFormat(join(dir, "long.jsonl")), "memo-jsonl");
    await file("long_graph.jsonl", JSON.stringify({ type: "entity", name: long }) + "\n");
    assert.equal(await detectImportFormat(join(dir, "long_graph.jsonl")), "server-memory");
    await file("long_other.jsonl", JSON.stringify({ hello: long }) + "\n");
    assert.equal(await detectImportFormat(join(dir, "long_other.jsonl")), undefined);
    await file("blank.txt", "\n");
    assert.equal(await detectImportFormat(join(dir, "blank.txt")), undefined);
    assert.equal(await detectImportFormat(join(dir, "memory.md")), "claude");
    assert.equal(await detectImportFormat(join(dir, "Claude.MD")), "claude");
    assert.equal(await detectImportFormat(join(dir, "note.md")), "markdown");
    await mkdir(join(dir, "proj", ".claude"), { recursive: true });
    assert.equal(await detectImportFormat(join(dir, "proj")), "claude");
    await mkdir(join(dir, "empty"));
    assert.equal(await detectImportFormat(join(dir, "empty")), undefined);
    await mkdir(join(dir, "vault", "sub"), { recursive: true });
    await writeFile(join(dir, "vault", "sub", "a.md"), "x");
    assert.equal(await detectImportFormat(join(dir, "vault")), "markdown");
  });
});

Deno.test("readImportSource() skips the JSONL lines that are not UTF-8 and reads the others", async () => {
  await withDir(async (dir) => {
    const enc = (text: string) => new TextEncoder().encode(text);
    await writeFile(join(dir, "a.jsonl"), memoLine("a1", "one") + "\n");
    await writeFile(
      join(dir, "b.jsonl"),
      new Uint8Array([
        ...enc(memoLine("b1", "two") + "\n{"),
        0xfe,
        0x7d,
        ...enc("\n" + memoLine("b3", "three") + "\n"),
      ]),
    );
    const read = await readImportSource(dir, { from: "memo-jsonl" });
    assert.equal(read.format, "memo-jsonl");
    assert.deepEqual(read.records.map((r) => [r.file, r.line, r.draft.id]), [
      ["a.jsonl", 1, "a1"],
      ["b.jsonl", 1, "b1"],
      ["b.jsonl", 3, "b3"],
    ]);
    assert.deepEqual(read.skipped, [{ file: "b.jsonl", line: 2, reason: "not UTF-8" }]);

    const graph = join(dir, "graph.jsonl");
    const entity = (name: string) =>
      JSON.stringify({ type: "entity", name, entityType: "t", observations: ["o"] });
    await writeFile(
      graph,
      new Uint8Array([...enc(entity("Caf") + "\n"), 0xe9, ...enc("\n" + entity("Ok"))]),
    );
    const g = await readImportSource(graph);
    assert.deepEqual(g.records.map((r) => r.draft.title), ["Caf", "Ok"]);
    assert.deepEqual(g.skipped, [{ file: "graph.jsonl", line: 2, reason: "not UTF-8" }]);

    // Markdown files stay whole: one bad byte skips the file.
    await mkdir(join(dir, "vault"));
    await writeFile(join(dir, "vault", "a.md"), new Uint8Array([...enc("# A\nok\n"), 0xff]));
    const md = await readImportSource(join(dir, "vault"));
    assert.deepEqual(md.records, []);
    assert.deepEqual(md.skipped, [{ file: "a.md", line: 3, reason: "not UTF-8" }]);
  });
});

Deno.test("readImportSource() skips a record memo would fold into an earlier one", async () => {
  await withDir(async (dir) => {
    const sourced = (id: string, body: string, source: string) =>
      JSON.stringify({ ...JSON.parse(memoLine(id, body)), source });
    await writeFile(
      join(dir, "a.jsonl"),
      [
        memoLine("a1", "same"),
        sourced("a2", "x", "k:1"),
        memoLine("a3", "same"),
        sourced("a4", "y", "k:1"),
        sourced("a5", "same", "k:2"),
      ].join("\n"),
    );
    await writeFile(join(dir, "b.jsonl"), sourced("b1", "z", "k:2") + "\n");
    const read = await readImportSource(dir, { from: "memo-jsonl" });
    assert.deepEqual(read.records.map((r) => r.draft.id), ["a1", "a2", "a5"]);
    assert.deepEqual(read.skipped, [
      {
        file: "a.jsonl",
        line: 3,
        reason: "same content as line 1: memo keeps one note per identity",
      },
      {
        file: "a.jsonl",
        line: 4,
        reason: "same source key as line 2: memo keeps one note per identity",
      },
      {
        file: "b.jsonl",
        line: 1,
        reason: "same source key as a.jsonl:5: memo keeps one note per identity",
      },
    ]);
  });
});

Deno.test("readImportSource() skips the record whose supersedes links would close a cycle (every note on it would be hidden)", async () => {
  await withDir(async (dir) => {
    const linked = (id: string, body: string, supersedes: string[]) =>
      JSON.stringify({
        ...JSON.parse(memoLine(id, body)),
        supersedes,
        hash: contentHash({ title: "T", body, labels: [], supersedes }),
      });
    await writeFile(
      join(dir, "a.jsonl"),
      [
        linked("c1", "one", ["c2"]),
        linked("c2", "two", ["c3"]),
        linked("c3", "three", ["c1"]), // closes c1 → c2 → c3 → c1
        linked("c4", "four", ["elsewhere"]), // a note outside the source: kept
        linked("c5", "five", ["c1", "c4"]),
      ].join("\n"),
    );
    const read = await readImportSource(join(dir, "a.jsonl"), { from: "memo-jsonl" });
    assert.deepEqual(read.records.map((r) => r.draft.id), ["c1", "c2", "c4", "c5"]);
    assert.equal(read.skipped.length, 1);
    assert.equal(read.skipped[0].line, 3);
    assert.match(read.skipped[0].reason, /^superseding c1 would make a cycle of supersedes links/);

    // The same in a notes.md (two notes superseding each other).
    const marker = (id: string, extra: string) =>
      `<!-- memo:note {"id":"${id}","labels":[],"created":"2026-01-01T00:00:00.000Z",` +
      `"updated":"2026-01-01T00:00:00.000Z"${extra}} -->\n`;
    const [a, b] = ["a".repeat(20), "b".repeat(20)];
    await writeFile(
      join(dir, "notes.md"),
      "# Memory\n\n" + marker(a, `,"supersedes":["${b}"]`) + "## A\nalpha note\n\n" +
        marker(b, `,"supersedes":["${a}"]`) + "## B\nbeta note\n",
    );
    const md = await readImportSource(join(dir, "notes.md"), { from: "markdown" });
    assert.deepEqual(md.records.map((r) => r.draft.id), [a]);
    assert.deepEqual(md.skipped.map((s) => s.line), [7]); // B's marker line
  });
});

Deno.test("readImportSource() uses --from over detection, throws on a missing source", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "x.jsonl");
    await writeFile(file, memoLine("a1", "one") + "\n");
    const progress: [number, number][] = [];
    const read = await readImportSource(file, {
      from: "server-memory",
      onProgress: (d, t) => progress.push([d, t]),
    });
    assert.equal(read.format, "server-memory");
    assert.equal(read.records.length, 0);
    assert.match(read.skipped[0].reason, /unknown "type"/);
    assert.deepEqual(progress.at(-1), [2, 2]);
    await assert.rejects(
      readImportSource(join(dir, "nope")),
      /^Error: Cannot import .*nope: no such file or folder$/,
    );
    await writeFile(join(dir, "y.txt"), "hi");
    await assert.rejects(readImportSource(join(dir, "y.txt")), /cannot tell what it holds/);
  });
});

Deno.test("IMPORT_FORMATS lists the four formats", () => {
  assert.equal(IMPORT_FORMATS.length, 4);
});
