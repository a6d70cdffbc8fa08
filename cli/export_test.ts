import assert from "node:assert/strict";
import { join } from "node:path";
import { recordingIO } from "../testing/cli_io.ts";
import { runCli } from "./main.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A project with notes of every shape: labels, sources, none, a multi-line body, a hand-set time. */
async function seededProject(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "memo-export-" });
  const io = recordingIO(dir);
  const run = async (...args: string[]) => assert.equal(await runCli(args, io), 0, io.err.join(""));
  await run("remember", "Deploys run with make deploy", "--label", "infra", "--label", "ops");
  await run("remember", "The staging DB is db-stage-2", "--source", "wiki:staging");
  await run(
    "remember",
    "Line one\n\n## not a heading in memo\n- a list\n<!-- memo:note fake -->",
    "--title",
    "Tricky body",
    "--source",
    "server-memory:Ada%20Lovelace",
  );
  await run("remember", "Unicode: café ✓ 日本", "--label", "i18n");
  return dir;
}

async function exportOf(dir: string, ...args: string[]): Promise<string> {
  const io = recordingIO(dir);
  assert.equal(await runCli(["export", ...args], io), 0, io.err.join(""));
  assert.deepEqual(io.err, []);
  return io.out.join("");
}

async function notesOf(dir: string): Promise<Json[]> {
  const io = recordingIO(dir);
  assert.equal(await runCli(["list", "--json", "--limit", "1000"], io), 0);
  return JSON.parse(io.out.join("")).notes;
}

test("memo export writes one JSON line per note, oldest first, keys in the documented order", async () => {
  const dir = await seededProject();
  try {
    const lines = (await exportOf(dir)).split("\n");
    assert.equal(lines.pop(), "");
    const records = lines.map((l) => JSON.parse(l));
    // Every field, in store order; a project note's line names no scope (an import puts it in
    // the importing project's default scope).
    const listed = (await notesOf(dir)).map(({ scope, ...n }) =>
      scope === "project" ? n : { ...n, scope }
    );
    assert.deepEqual(records, listed);
    assert.deepEqual(Object.keys(records[0]), [
      "id",
      "title",
      "body",
      "labels",
      "hash",
      "created",
      "updated",
    ]);
    assert.deepEqual(Object.keys(records[1]), [
      "id",
      "title",
      "body",
      "labels",
      "source",
      "hash",
      "created",
      "updated",
    ]);
    assert.equal(await exportOf(dir, "--format", "jsonl"), lines.join("\n") + "\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo export --format md is the notes.md format", async () => {
  const dir = await seededProject();
  try {
    const md = await exportOf(dir, "--format", "md");
    assert.equal(md, await Deno.readTextFile(join(dir, ".memo", "memory", "notes.md")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const format of ["jsonl", "md"]) {
  test(`memo export --format ${format}, then memo import into an empty project, gives the same notes`, async () => {
    const from = await seededProject();
    const to = await Deno.makeTempDir({ prefix: "memo-export-to-" });
    try {
      const file = join(to, `export.${format === "md" ? "md" : "jsonl"}`);
      const io = recordingIO(from);
      assert.equal(await runCli(["export", "--format", format, "--out", file], io), 0);
      assert.deepEqual(io.out, []);
      assert.deepEqual(io.err, [`Exported 4 notes to ${file}.\n`]);
      const into = recordingIO(to);
      assert.equal(await runCli(["import", file, "--json"], into), 0, into.err.join(""));
      const summary = JSON.parse(into.out.join(""));
      assert.deepEqual(summary, {
        source: file,
        format: format === "md" ? "markdown" : "memo-jsonl",
        written: 4,
        updated: 0,
        unchanged: 0,
        skipped: [],
        unread: 0,
      });
      // Byte for byte: ids, titles, bodies, labels, sources, hashes and both times.
      assert.deepEqual(await notesOf(to), await notesOf(from));
      assert.equal(await exportOf(to, "--format", format), await Deno.readTextFile(file));
      // Importing the same export again changes nothing.
      const again = recordingIO(to);
      assert.equal(await runCli(["import", file, "--json"], again), 0);
      assert.equal(JSON.parse(again.out.join("")).unchanged, 4);
    } finally {
      await Deno.remove(from, { recursive: true });
      await Deno.remove(to, { recursive: true });
    }
  });
}

test("memo export of an empty project, and its usage errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "memo-export-empty-" });
  try {
    assert.equal(await exportOf(dir), "");
    assert.match(await exportOf(dir, "--format", "md"), /^# Memory\n/);
    const io = recordingIO(dir);
    assert.equal(await runCli(["export", "--format", "csv"], io), 2);
    assert.match(io.err[0], /^memo: flag --format must be one of jsonl, md/);
    assert.equal(await runCli(["export", "--out", join(dir, "missing", "x.jsonl")], io), 1);
    assert.match(io.err.at(-1)!, /^memo: Cannot export to .*x\.jsonl: ENOENT\n$/);
    // Nothing is left behind by a failed write.
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n !== ".memo"),
      [],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const format of ["jsonl", "md"]) {
  test(`memo export --format ${format} and import keep supersede links and validity`, async () => {
    const from = await Deno.makeTempDir({ prefix: "memo-export-" });
    const to = await Deno.makeTempDir({ prefix: "memo-export-to-" });
    try {
      const io = recordingIO(from);
      const run = async (...args: string[]) => {
        assert.equal(await runCli([...args, "--json"], io), 0, io.err.join(""));
        return JSON.parse(io.out.splice(0).join(""));
      };
      const { note: old } = await run("remember", "Deploys run on Fridays");
      await run("correct", old.id, "Deploys run on Mondays");
      await run(
        "remember",
        "The freeze lasts all of December",
        "--valid-from",
        "2026-12-01T00:00:00.000Z",
        "--valid-until",
        "2027-01-01T00:00:00.000Z",
      );
      const file = join(to, `export.${format === "md" ? "md" : "jsonl"}`);
      assert.equal(await runCli(["export", "--format", format, "--out", file], io), 0);
      const into = recordingIO(to);
      assert.equal(await runCli(["import", file, "--json"], into), 0, into.err.join(""));
      assert.deepEqual(JSON.parse(into.out.join("")).skipped, []);
      // The same bytes out again: links, validity, hashes and times all came through.
      assert.equal(await exportOf(to, "--format", format), await Deno.readTextFile(file));
      const listed = await notesOf(to);
      assert.deepEqual(listed.map((n: Json) => n.body).sort(), [
        "Deploys run on Mondays",
        "The freeze lasts all of December",
      ]);
    } finally {
      await Deno.remove(from, { recursive: true });
      await Deno.remove(to, { recursive: true });
    }
  });
}

test("an imported note that supersedes itself is skipped with its line", async () => {
  const from = await Deno.makeTempDir({ prefix: "memo-export-" });
  const to = await Deno.makeTempDir({ prefix: "memo-export-to-" });
  try {
    const io = recordingIO(from);
    assert.equal(await runCli(["remember", "a note", "--json"], io), 0);
    const { note } = JSON.parse(io.out.join(""));
    const md = await exportOf(from, "--format", "md");
    const jsonl = JSON.parse(await exportOf(from));
    const self = { ...jsonl, supersedes: [note.id] };
    await Deno.writeTextFile(join(to, "self.jsonl"), JSON.stringify(self) + "\n");
    await Deno.writeTextFile(
      join(to, "self.md"),
      md.replace(`{"id":"${note.id}",`, `{"id":"${note.id}","supersedes":["${note.id}"],`),
    );
    for (const file of ["self.jsonl", "self.md"]) {
      const into = recordingIO(to);
      assert.equal(await runCli(["import", join(to, file), "--json"], into), 0, into.err.join(""));
      const summary = JSON.parse(into.out.join(""));
      assert.equal(summary.written, 0, file);
      assert.deepEqual(
        summary.skipped.map((s: Json) => s.reason),
        [`note ${note.id} cannot supersede itself`],
        file,
      );
    }
    assert.deepEqual(await notesOf(to), []);
  } finally {
    await Deno.remove(from, { recursive: true });
    await Deno.remove(to, { recursive: true });
  }
});

test("export then import keeps two notes of one history whose bodies are the same text (a fact changed back)", async () => {
  const from = await Deno.makeTempDir({ prefix: "memo-export-" });
  const to = await Deno.makeTempDir({ prefix: "memo-export-to-" });
  try {
    const io = recordingIO(from);
    const ok = async (...args: string[]) => {
      io.out.length = 0;
      assert.equal(await runCli(args, io), 0, io.err.join(""));
      return JSON.parse(io.out.join(""));
    };
    // A fact that changed, then changed back: the first and the last note say the same.
    const { note: a } = await ok("remember", "Deploys run on Fridays", "--json");
    const { note: b } = await ok("correct", a.id, "Deploys run on Mondays", "--json");
    await ok("correct", b.id, "Deploys run on Fridays", "--json");
    const exported = await exportOf(from);
    await Deno.writeTextFile(join(to, "all.jsonl"), exported);
    const summary = await (async () => {
      const into = recordingIO(to);
      assert.equal(await runCli(["import", join(to, "all.jsonl"), "--json"], into), 0);
      return JSON.parse(into.out.join(""));
    })();
    assert.equal(summary.written, 3, JSON.stringify(summary)); // 2 written, 0 skipped: one lost
    assert.equal(await exportOf(to), exported);
  } finally {
    await Deno.remove(from, { recursive: true });
    await Deno.remove(to, { recursive: true });
  }
});
