import assert from "node:assert/strict";
import { appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LoadedNotes } from "./_loaded_notes.ts";
import { FileMemoryStore } from "./file_store.ts";
import { MemoryValidationError, NotesConflictError } from "../errors.ts";
import { memoPaths } from "./paths.ts";
import { NOTES_PREAMBLE, serializeNote } from "./codec.ts";
import { parseNotes } from "./parse.ts";
import { contentHash, type Note } from "../notes/note.ts";
import { pageCounter } from "../../testing/pages.ts";

async function fresh(options: { clock?: () => Date } = {}) {
  const rootDir = await Deno.makeTempDir({ prefix: "memo_store_" });
  const store = new FileMemoryStore({ rootDir, ...options });
  return { rootDir, store, notes: memoPaths(rootDir).notes };
}

const text = (path: string) => readFile(path, "utf8");

function handNote(id: string, body: string, source?: string): Note {
  const n: Note = {
    id,
    title: `Title ${id}`,
    body,
    labels: [],
    hash: contentHash({ title: `Title ${id}`, body, labels: [] }),
    created: "2025-01-01T00:00:00.000Z",
    updated: "2025-01-01T00:00:00.000Z",
  };
  if (source) n.source = source;
  return n;
}

Deno.test("load() of a missing store is empty and creates nothing", async () => {
  const { rootDir, store } = await fresh();
  assert.deepEqual(await store.load(), { notes: 0, issues: [] });
  assert.deepEqual((await store.list()).notes, []);
  await assert.rejects(stat(join(rootDir, ".memo")), { code: "ENOENT" });
});

Deno.test("commit() creates the file with a preamble and appends new notes", async () => {
  const { store, notes } = await fresh();
  const first = await store.commit({ notes: [{ text: "one" }, { text: "two", labels: ["x"] }] });
  assert.equal(first.written.length, 2);
  const content = await text(notes);
  assert.ok(content.startsWith(NOTES_PREAMBLE));
  assert.equal(first.bytesWritten, new TextEncoder().encode(content).length);
  const ino = (await stat(notes)).ino;
  const second = await store.commit({ notes: [{ text: "three" }] });
  assert.equal((await stat(notes)).ino, ino, "an append does not replace the file");
  assert.equal(await text(notes), content + serializeNote(second.written[0]));
  assert.equal(
    second.bytesWritten,
    new TextEncoder().encode(serializeNote(second.written[0])).length,
  );
});

Deno.test("commit() dedupes by normalised text when there is no source", async () => {
  const { store, notes } = await fresh();
  const a = await store.commit({ notes: [{ text: "Same text.", labels: ["l"] }] });
  const before = await text(notes);
  const b = await store.commit({ notes: [{ text: "Same text.", labels: ["l"] }] });
  assert.deepEqual(b.unchanged, a.written);
  assert.deepEqual([b.written, b.updated, b.bytesWritten], [[], [], 0]);
  assert.equal(await text(notes), before);
  // Case, white space, punctuation and labels do not make another note.
  const c = await store.commit({ notes: [{ text: "  same\n TEXT!", labels: ["other"] }] });
  assert.deepEqual([c.written, c.updated, c.unchanged], [[], [], a.written]);
  assert.equal(await text(notes), before);
  const d = await store.commit({ notes: [{ text: "same texts" }] });
  assert.equal(d.written.length, 1, "other words are another note");
});

Deno.test("commit() dedupes by source key and updates in place on a new hash", async () => {
  let now = new Date("2025-03-01T00:00:00.000Z");
  const { store, notes } = await fresh({ clock: () => now });
  const first = await store.commit({
    notes: [{ text: "A v1", source: "github:o/r/discussions/1" }, {
      text: "B",
      source: "notion:page/b",
    }],
  });
  const [a, b] = first.written;
  assert.equal(a.created, "2025-03-01T00:00:00.000Z");
  const same = await store.commit({
    notes: [{ text: "A v1", source: "github:o/r/discussions/1" }],
  });
  assert.deepEqual([same.unchanged, same.bytesWritten], [[a], 0]);
  now = new Date("2025-03-02T00:00:00.000Z");
  const before = await text(notes);
  const changed = await store.commit({
    notes: [{ text: "A v2", source: "github:o/r/discussions/1" }, { text: "C" }],
  });
  assert.equal(changed.updated.length, 1);
  const a2 = changed.updated[0];
  assert.deepEqual([a2.id, a2.created, a2.updated, a2.body], [
    a.id,
    a.created,
    "2025-03-02T00:00:00.000Z",
    "A v2",
  ]);
  assert.equal(changed.written.length, 1, "the new note of the same batch is written too");
  const after = await text(notes);
  assert.equal(
    after,
    before.replace(serializeNote(a), serializeNote(a2)) + serializeNote(changed.written[0]),
  );
  assert.deepEqual((await store.list()).notes.map((n) => n.id), [
    a.id,
    b.id,
    changed.written[0].id,
  ]);
  const reopened = new FileMemoryStore({ rootDir: store.paths.dir.slice(0, -6) });
  assert.deepEqual(await reopened.get(a.id), a2);
});

Deno.test("commit() keeps one note when a batch holds the same identity twice (last wins)", async () => {
  const { store } = await fresh();
  const r = await store.commit({
    notes: [
      { text: "first", source: "s:1" },
      { text: "dup" },
      { text: "second", source: "s:1" },
      { text: "dup" },
    ],
  });
  assert.deepEqual(r.written.map((n) => n.body), ["second", "dup"]);
  assert.equal((await store.list()).notes.length, 2);
});

Deno.test("commit() is all-or-nothing: a batch with one bad draft writes nothing", async (t) => {
  const { store, notes } = await fresh();
  await t.step("on a new store no file is created", async () => {
    await assert.rejects(
      store.commit({ notes: [{ text: "fine" }, { text: "  " }] }),
      MemoryValidationError,
    );
    await assert.rejects(stat(notes), { code: "ENOENT" });
  });
  await store.commit({ notes: [{ text: "kept", source: "s:1" }] });
  const before = await text(notes);
  const bad = [
    ["an empty text", { text: "" }],
    ["a source with spaces", { text: "x", source: "a b" }],
    ["a bad created time", { text: "x", created: "yesterday" }],
    ["a text that is not a string", { text: 42 }],
  ] as const;
  for (const [name, draft] of bad) {
    await t.step(name, async () => {
      await assert.rejects(
        store.commit({
          notes: [{ text: "new" }, { text: "kept v2", source: "s:1" }, draft as never],
        }),
        MemoryValidationError,
      );
      assert.equal(await text(notes), before);
    });
  }
  await t.step("a batch that is not a list", async () => {
    await assert.rejects(store.commit({ notes: "x" } as never), MemoryValidationError);
  });
  await t.step("an aborted signal", async () => {
    await assert.rejects(
      store.commit({ notes: [{ text: "new" }] }, { signal: AbortSignal.abort() }),
    );
    assert.equal(await text(notes), before);
  });
});

Deno.test("update() and remove() keep every other byte of a hand-edited file", async () => {
  const { rootDir, store, notes } = await fresh();
  await mkdir(join(rootDir, ".memo", "memory"), { recursive: true });
  const a = handNote("aa", "alpha");
  const b = handNote("bb", "beta\r\nwith CRLF", "notion:page/b");
  const c = handNote("cc", "gamma");
  const damaged = '<!-- memo:note {"id": broken -->\n## t\nkept verbatim\n\n';
  const original = "# Hand-made\r\n\r\n" + serializeNote(a) + damaged +
    serializeNote(b).replace(/\n/g, "\r\n") + "text typed at the end\n\n" + serializeNote(c);
  await writeFile(notes, original);
  const report = await store.load();
  assert.equal(report.notes, 3);
  assert.equal(report.issues[0].kind, "damaged-note");

  assert.equal((await store.list()).notes[0].body, "alpha");
  const updated = (await store.update("aa", { text: "alpha v2", labels: ["new"] }))!;
  assert.equal((await store.list()).notes[0], updated, "list() shows the new version");
  assert.deepEqual([updated.body, updated.labels, updated.title], ["alpha v2", ["new"], a.title]);
  assert.equal(updated.created, a.created);
  const afterUpdate = original.replace(serializeNote(a), serializeNote(updated));
  assert.equal(await text(notes), afterUpdate);

  assert.equal(await store.remove("cc"), true);
  assert.equal(await text(notes), afterUpdate.replace(serializeNote(c), ""));
  assert.equal(await store.update("cc", { text: "x" }), undefined);
  assert.equal(await store.remove("cc"), false);
  await assert.rejects(store.update("aa", { text: " " }), MemoryValidationError);
  const same = await store.update("aa", { labels: ["new"] });
  assert.equal(same, updated, "a patch that changes nothing writes nothing");
});

Deno.test("commit() after a file that ends without a line break starts the marker on a new line", async () => {
  const { rootDir, store, notes } = await fresh();
  await mkdir(join(rootDir, ".memo", "memory"), { recursive: true });
  await writeFile(notes, "# Memory\n\nno final newline");
  const r = await store.commit({ notes: [{ text: "new" }] });
  assert.equal(await text(notes), "# Memory\n\nno final newline\n" + serializeNote(r.written[0]));
  const other = new FileMemoryStore({ rootDir });
  assert.equal((await other.load()).notes, 1);
});

Deno.test("changesSince() answers deltas, and reset on a first call or a full reload", async () => {
  const { rootDir, store } = await fresh();
  const other = new FileMemoryStore({ rootDir });
  const first = await store.changesSince();
  assert.deepEqual([first.reset, first.upserted, first.removed], [true, [], []]);

  const w = await other.commit({ notes: [{ text: "one" }, { text: "two" }] });
  const second = await store.changesSince(first.token);
  assert.equal(second.reset, false, "another process's append is a delta");
  assert.deepEqual(second.upserted, w.written);

  const idle = await store.changesSince(second.token);
  assert.deepEqual([idle.token, idle.upserted, idle.removed], [second.token, [], []]);

  const u = (await store.update(w.written[0].id, { text: "one v2" }))!;
  assert.equal(await store.remove(w.written[1].id), true);
  const third = await store.changesSince(second.token);
  assert.deepEqual([third.reset, third.upserted, third.removed], [false, [u], [w.written[1].id]]);

  const seen = await other.changesSince();
  await store.update(u.id, { text: "one v3" });
  const renamed = await other.changesSince(seen.token);
  assert.equal(renamed.reset, true, "a rewrite by another process is a full reload");
  assert.deepEqual(renamed.upserted.map((n) => n.body), ["one v3"]);

  const forged = await store.changesSince("not-a-token");
  assert.equal(forged.reset, true);
});

Deno.test("changesSince() of an unchanged file waits for a write queued before it", async () => {
  const { rootDir, store } = await fresh();
  await store.commit({ notes: [{ text: "first" }] });
  const before = await store.changesSince();
  // The idle check answers at once; a write queued first is still in what it reports.
  const writing = store.commit({ notes: [{ text: "second" }] });
  const after = await store.changesSince(before.token);
  assert.deepEqual(after.upserted.map((n) => n.body), ["second"]);
  await writing;
  const idle = await store.changesSince(after.token);
  assert.deepEqual([idle.token, idle.reset, idle.upserted, idle.removed], [
    after.token,
    false,
    [],
    [],
  ]);
  // After a failed operation, another process's append is still seen.
  await assert.rejects(store.commit({ notes: [{ text: "" }] }));
  const other = new FileMemoryStore({ rootDir });
  const w = await other.commit({ notes: [{ text: "third" }] });
  assert.deepEqual((await store.changesSince(idle.token)).upserted, w.written);
});

Deno.test("changesSince() fails as a rejection, not a throw, when the file cannot be stat'ed", async () => {
  const { rootDir, store } = await fresh();
  await store.commit({ notes: [{ text: "first" }] });
  const { token } = await store.changesSince();
  const memoryDir = join(rootDir, ".memo", "memory");
  await Deno.rename(memoryDir, `${memoryDir}.moved`);
  await writeFile(memoryDir, "a file where the folder was"); // notes.md's stat: not a directory
  let pending: Promise<unknown> | undefined;
  assert.doesNotThrow(() => (pending = store.changesSince(token)));
  await assert.rejects(pending!);
  await Deno.remove(memoryDir);
  await Deno.rename(`${memoryDir}.moved`, memoryDir);
  assert.equal((await store.changesSince(token)).upserted.length, 0);
});

Deno.test("list() pages through notes in file order with an opaque cursor", async (t) => {
  const { store } = await fresh();
  const r = await store.commit({ notes: Array.from({ length: 7 }, (_, i) => ({ text: `n${i}` })) });
  const ids = r.written.map((n) => n.id);
  await t.step("pages of 3", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    const nextPage = pageCounter("the pages of store.list()");
    do {
      nextPage();
      const page = await store.list(cursor, 3);
      seen.push(...page.notes.map((n) => n.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.deepEqual([seen, pages], [ids, 3]);
  });
  await t.step("the cursor survives removal of its note", async () => {
    const page = await store.list(undefined, 2);
    await store.remove(ids[1]);
    const next = await store.list(page.nextCursor, 2);
    assert.deepEqual(next.notes.map((n) => n.id), [ids[2], ids[3]]);
  });
  await t.step("nor skips a note when notes before the cursor's went too", async () => {
    // ids[1] is gone: the first page is ids[0] and ids[2]; then both go.
    const page = await store.list(undefined, 2);
    assert.deepEqual(page.notes.map((n) => n.id), [ids[0], ids[2]]);
    await store.remove(ids[2]);
    await store.remove(ids[0]);
    const next = await store.list(page.nextCursor, 2);
    assert.deepEqual(next.notes.map((n) => n.id), [ids[3], ids[4]]);
  });
  await t.step("a forged cursor or a bad limit is refused", async () => {
    await assert.rejects(store.list("forged!"), MemoryValidationError);
    await assert.rejects(store.list(btoa('{"v":2}')), MemoryValidationError);
    await assert.rejects(store.list(undefined, 0), MemoryValidationError);
    await assert.rejects(store.list(undefined, 1001), MemoryValidationError);
  });
});

Deno.test("a reader picks up another writer's append as a tail and a hand edit as a reload", async () => {
  const { rootDir, store, notes } = await fresh();
  const writer = new FileMemoryStore({ rootDir });
  await writer.commit({ notes: [{ text: "one" }] });
  assert.equal((await store.load()).notes, 1);
  await writer.commit({ notes: [{ text: "two" }] });
  assert.deepEqual((await store.list()).notes.map((n) => n.body), ["one", "two"]);
  const content = await text(notes);
  await writeFile(notes, content.replace("\ntwo\n", "\ntwo, edited by hand\n"));
  assert.deepEqual((await store.list()).notes.map((n) => n.body), ["one", "two, edited by hand"]);
  await new Promise((r) => setTimeout(r, 5)); // mtime has millisecond resolution
  const edited = await text(notes);
  await writeFile(notes, edited.replace("\none\n", "\nuno\n"));
  assert.deepEqual((await store.list()).notes.map((n) => n.body)[0], "uno", "a same-size edit");
  await appendFile(notes, "<!-- memo:note broken\n");
  await store.get("x");
  assert.deepEqual(store.issues.map((i) => [i.kind, i.line]), [["damaged-note", 14]]);
});

Deno.test("a rewrite never undoes a hand edit that another writer's append hid from the tail read", async (t) => {
  for (
    const [name, write] of [
      [
        "update",
        (store: FileMemoryStore, id: string) => store.update(id, { text: "third, changed" }),
      ],
      ["remove", (store: FileMemoryStore, id: string) => store.remove(id)],
      [
        "a commit that updates",
        (store: FileMemoryStore) =>
          store.commit({ notes: [{ text: "third v2", source: "test:third" }] }),
      ],
    ] as const
  ) {
    await t.step(name, async () => {
      const { rootDir, store, notes } = await fresh();
      const { written } = await store.commit({
        notes: [
          { text: "The staging database is db-stage-2" },
          { text: "second" },
          { text: "third", source: "test:third" },
        ],
      });
      // A person fixes the fact in place, as an editor's save does (same inode, same size)…
      const before = await text(notes);
      await writeFile(notes, before.replaceAll("db-stage-2", "db-stage-3"));
      // …then another process appends: to the reader, only growth.
      await new FileMemoryStore({ rootDir }).commit({ notes: [{ text: "another process wrote" }] });
      await write(store, written[2].id);
      const after = await text(notes);
      assert.match(after, /db-stage-3/);
      assert.doesNotMatch(after, /db-stage-2/);
      assert.match(after, /another process wrote/);
      const reread = new FileMemoryStore({ rootDir });
      assert.equal((await reread.get(written[0].id))?.body, "The staging database is db-stage-3");
      assert.deepEqual((await reread.load()).issues, []);
    });
  }
});

Deno.test("the check before a rewrite reads the file again only when it differs from the table", async () => {
  const { rootDir, notes } = await fresh();
  const writer = new FileMemoryStore({ rootDir });
  await writer.commit({
    notes: [{ text: "one" }, { text: "two, with ünïcödé and \\<!-- memo: escaped" }],
  });
  const loaded = new LoadedNotes(notes, `${notes}.lock`);
  await loaded.refresh(false);
  assert.equal(await loaded.exact(false), false, "a full read holds the file");
  await writer.commit({ notes: [{ text: "three" }] });
  await loaded.refresh(false); // growth: read as a tail
  assert.equal(await loaded.exact(false), false, "an append alone: the table is the file");
  await writer.commit({ notes: [{ text: "four" }] });
  await loaded.refresh(false);
  await writeFile(notes, (await text(notes)).replace("\none\n", "\nuno\n"));
  await writer.commit({ notes: [{ text: "five" }] });
  await loaded.refresh(false);
  assert.equal(await loaded.exact(false), true, "an edit above the tail: read again");
  assert.ok(loaded.table.sections.some((s) => s.note?.body === "uno"));
  assert.equal(await loaded.exact(false), false, "and then it holds the file");
});

Deno.test("two stores in one process committing at once lose nothing", async () => {
  const { rootDir } = await fresh();
  const a = new FileMemoryStore({ rootDir });
  const b = new FileMemoryStore({ rootDir });
  await Promise.all([
    ...Array.from(
      { length: 20 },
      (_, i) => a.commit({ notes: [{ text: `a${i}` }, { text: "shared" }] }),
    ),
    ...Array.from(
      { length: 20 },
      (_, i) => b.commit({ notes: [{ text: `b${i}` }, { text: "shared" }] }),
    ),
  ]);
  const reader = new FileMemoryStore({ rootDir });
  const report = await reader.load();
  assert.deepEqual([report.notes, report.issues], [41, []]);
});

Deno.test("close() drops the in-memory copy and the store reloads on the next call", async () => {
  const { store } = await fresh();
  await store.commit({ notes: [{ text: "kept" }] });
  await store.close();
  assert.equal((await store.list()).notes.length, 1);
});

Deno.test("load() reads a file of several MB mixing ASCII and other text as parseNotes() reads it", async () => {
  const { store, notes } = await fresh();
  await mkdir(join(notes, ".."), { recursive: true });
  const parts = ["# Memory — naïve preamble\n\n"];
  for (let i = 0; i < 6000; i++) {
    const other = i % 7 === 3 ? "café — ✓ 日本 🎉 " : i % 11 === 5 ? "Größe é" : "";
    const n = handNote(`n${i}`, other + "plain text ".repeat(i % 90) + (i % 13 === 0 ? "ü" : "."));
    const raw = serializeNote(n);
    parts.push(i % 17 === 0 ? raw.replace(/\n/g, "\r\n") : raw);
  }
  const text = parts.join("");
  assert.ok(new TextEncoder().encode(text).length > 3 << 20, "the file spans several pieces");
  await writeFile(notes, text);
  const report = await store.load();
  assert.deepEqual(report, { notes: 6000, issues: [] });
  const expected = parseNotes(text).sections.flatMap((s) => s.note ? [s.note] : []);
  assert.deepEqual((await store.changesSince()).upserted, expected);
  // Every byte is kept: an update rewrites only its own section.
  await store.update("n3", { text: "changed" });
  const after = await readFile(notes, "utf8");
  const before = serializeNote(expected[3]);
  assert.equal(after.replace(/<!-- memo:note \{"id":"n3"[^]*?\n\n/, before), text);
});

Deno.test("notesPath puts the notes file (and its lock) where it says, and nothing under .memo", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo_store_" });
  try {
    const notesPath = join(rootDir, "ws", "p", "notes.md");
    const store = new FileMemoryStore({ rootDir, notesPath });
    assert.deepEqual(await store.load(), { notes: 0, issues: [] });
    const { written } = await store.commit({ notes: [{ text: "kept elsewhere" }] });
    assert.equal(store.paths.notes, notesPath);
    assert.equal(store.paths.lock, `${notesPath}.lock`);
    assert.ok((await text(notesPath)).includes("kept elsewhere"));
    await assert.rejects(stat(join(rootDir, ".memo")), { code: "ENOENT" });
    const again = new FileMemoryStore({ rootDir, notesPath });
    assert.deepEqual(await again.get(written[0].id), written[0]);
    assert.throws(() => new FileMemoryStore({ rootDir, notesPath: "" }), MemoryValidationError);
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("commit() gives a new note the draft's id, unless another note holds it", async (t) => {
  const { rootDir, store } = await fresh();
  try {
    await t.step("a free id is honoured", async () => {
      const { written } = await store.commit({ notes: [{ id: "replica-1", text: "one" }] });
      assert.equal(written[0].id, "replica-1");
      assert.equal((await new FileMemoryStore({ rootDir }).get("replica-1"))?.body, "one");
    });
    await t.step("ignored when the identity matches (unchanged or updated)", async () => {
      const same = await store.commit({ notes: [{ id: "other-id", text: "one" }] });
      assert.equal(same.unchanged[0].id, "replica-1");
      await store.commit({ notes: [{ id: "src-1", text: "v1", source: "notion:page/1" }] });
      const moved = await store.commit({
        notes: [{ id: "src-2", text: "v2", source: "notion:page/1" }],
      });
      assert.equal(moved.updated[0].id, "src-1");
      assert.equal(await store.get("src-2"), undefined);
    });
    await t.step("a held id gives the new note a fresh id", async () => {
      const { written } = await store.commit({
        notes: [{ id: "replica-1", text: "two" }, { id: "dup", text: "three" }, {
          id: "dup",
          text: "four",
        }],
      });
      assert.notEqual(written[0].id, "replica-1");
      assert.equal(written[1].id, "dup");
      assert.notEqual(written[2].id, "dup", "the same id twice in a batch: the second is fresh");
      assert.equal((await store.get("replica-1"))?.body, "one");
    });
    await t.step("an id off the pattern refuses the whole batch", async () => {
      const before = (await store.list(undefined, 100)).notes.length;
      for (const id of ["Upper", "", "-lead", "x".repeat(65), 7]) {
        await assert.rejects(
          store.commit({ notes: [{ text: "fine" }, { id: id as string, text: "bad id" }] }),
          (e: unknown) =>
            e instanceof MemoryValidationError && e.details?.index === 1 &&
            /id must/.test(e.message),
        );
      }
      assert.equal((await store.list(undefined, 100)).notes.length, before);
    });
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("applyReplica: appends new notes, rewrites for replacements, refuses bad notes, checks expectations", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new FileMemoryStore({ rootDir: dir });
    const { written: [a, b] } = await store.commit({ notes: [{ text: "a" }, { text: "b" }] });
    const path = store.paths.notes;
    const before = (await Deno.stat(path)).ino;
    // Only new notes: appended (same file, it grows).
    const fresh = { ...a, id: "01fromcloud", created: "2030-01-01T00:00:00.000Z" };
    const added = await store.applyReplica({
      put: [{ ...fresh, body: "c", hash: "" }].map((n) => ({ ...n, hash: contentHash(n) })),
      remove: [],
    });
    assert.deepEqual(added.written, ["01fromcloud"]);
    assert.equal((await Deno.stat(path)).ino, before);
    // A stale expectation writes nothing and names the id.
    const stale = await store.applyReplica({
      put: [],
      remove: [b.id],
      expect: { [b.id]: "not-its-hash" },
    });
    assert.deepEqual(stale.stale, [b.id]);
    assert.ok(await store.get(b.id));
    // Bad input is refused before anything is written.
    await assert.rejects(
      store.applyReplica({ put: [{ ...a, hash: "wrong" }], remove: [] }),
      /hash/,
    );
    await assert.rejects(store.applyReplica({ put: [a, a], remove: [] }), /twice/);
    await assert.rejects(store.applyReplica({ put: [a], remove: [a.id] }), /both put and removed/);
    // A rename plus a removal: one rewrite, read back the same by a new store.
    const renamed = await store.applyReplica({
      put: [{ ...a, id: "01renamed" }],
      remove: [a.id, b.id],
      expect: { [a.id]: a.hash, [b.id]: b.hash, "01renamed": null },
    });
    assert.deepEqual([renamed.written, renamed.removed], [["01renamed"], [a.id, b.id]]);
    const reread = await new FileMemoryStore({ rootDir: dir }).list(undefined, 10);
    assert.deepEqual(reread.notes.map((n) => n.id), ["01fromcloud", "01renamed"]);
    assert.equal(reread.notes[0].created, "2030-01-01T00:00:00.000Z");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a lone surrogate is stored as U+FFFD, so the hash is the hash of what notes.md holds", async () => {
  const dir = await Deno.makeTempDir();
  const { written: [note] } = await new FileMemoryStore({ rootDir: dir }).commit({
    notes: [{ text: "half a pair: \uD83D here", title: "odd \uDE00 title", labels: ["x\uD800"] }],
  });
  assert.equal(note.body, "half a pair: \uFFFD here");
  const reread = (await new FileMemoryStore({ rootDir: dir }).list()).notes[0];
  assert.deepEqual(reread, note);
  assert.equal(contentHash(reread), note.hash);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("applyReplica removes many notes in one pass; a hand-made twin then holds the identity", async () => {
  const { rootDir, store, notes } = await fresh();
  const many = Array.from({ length: 300 }, (_, i) => handNote(`n${i}`, `body ${i}`));
  // Two notes with one source key, as a hand edit can leave them: the first holds it.
  const first = handNote("twin1", "first copy", "wiki:twin");
  const second = handNote("twin2", "second copy", "wiki:twin");
  await mkdir(join(rootDir, ".memo", "memory"), { recursive: true });
  await writeFile(
    notes,
    NOTES_PREAMBLE + [first, ...many, second].map(serializeNote).join(""),
  );
  const result = await store.applyReplica({
    put: [],
    remove: [first.id, ...many.map((n) => n.id)],
  });
  assert.equal(result.removed.length, 301);
  assert.deepEqual((await store.list()).notes.map((n) => n.id), ["twin2"]);
  // The twin now holds the source key: the same key updates it instead of adding a note.
  const again = await store.commit({ notes: [{ text: "newer", source: "wiki:twin" }] });
  assert.deepEqual(again.updated.map((n) => n.id), ["twin2"]);
  await Deno.remove(rootDir, { recursive: true });
});

Deno.test("FileMemoryStore.resolveMerge() writes what reads of a conflicted file saw, once", async () => {
  const dir = await Deno.makeTempDir();
  const store = new FileMemoryStore({ rootDir: dir });
  const { written: [a] } = await store.commit({ notes: [{ text: "queue is kafka" }] });
  const last = a.id.at(-1) === "z" ? "y" : "z"; // never a's own id
  const b = { ...a, id: a.id.slice(0, -1) + last, title: "cache is redis", body: "cache is redis" };
  b.hash = contentHash(b);
  const text = await Deno.readTextFile(store.paths.notes); // then a text merge of a and b:
  const conflicted = text.replace("<!--", "<<<<<<< HEAD\n<!--") + "=======\n" +
    serializeNote(b) + ">>>>>>> alice\n";
  await Deno.writeTextFile(store.paths.notes, conflicted);
  assert.equal((await store.list()).notes.length, 2); // reads see the merge
  assert.equal(store.unresolvedMerge?.hunks, 1);
  await assert.rejects(store.commit({ notes: [{ text: "b" }] }), NotesConflictError);
  const done = await store.resolveMerge();
  assert.equal(done?.hunks, 1);
  assert.equal(store.unresolvedMerge, undefined);
  assert.ok(!(await Deno.readTextFile(store.paths.notes)).includes("<<<<<<<"));
  await Deno.remove(dir, { recursive: true });
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), { args: ["eval", "0"] }).spawn();
  await child.status;
  return child.pid;
}

/** Leaves `notes.md`'s lock as a process that died holding it would: its size, inode and tail. */
async function writeDeadLock(
  notes: string,
  held: { size: number; ino: number | null; tail?: string },
): Promise<void> {
  await writeFile(
    `${notes}.lock`,
    JSON.stringify({
      pid: await deadPid(),
      host: Deno.hostname(),
      created: new Date().toISOString(),
      nonce: "dead",
      ...held,
    }),
  );
}

Deno.test("a dead lock taken before notes.md existed never cuts the file put there since (a checkout)", async () => {
  const { rootDir, notes } = await fresh();
  const { written } = await new FileMemoryStore({ rootDir }).commit({
    notes: [{ text: "from git" }],
  });
  const content = await readFile(notes, "utf8");
  // A process that took the lock while notes.md did not exist died before writing.
  await writeDeadLock(notes, { size: 0, ino: 0 });
  const store = new FileMemoryStore({ rootDir });
  await store.load();
  assert.equal(await readFile(notes, "utf8"), content);
  assert.equal((await store.get(written[0].id))?.body, "from git");
});

Deno.test("a dead writer that wrote nothing: text added by hand past its lock's end is kept", async () => {
  const { rootDir, notes } = await fresh();
  await new FileMemoryStore({ rootDir }).commit({ notes: [{ text: "one" }] });
  const st = await Deno.stat(notes);
  const bytes = await Deno.readFile(notes);
  // A process took the lock for a rewrite and was killed before its rename.
  await writeDeadLock(notes, {
    size: st.size,
    ino: st.ino,
    tail: btoa(String.fromCharCode(...bytes.subarray(bytes.length - 64))),
  });
  // Then a person appended a note with an editor that saves in place.
  await appendFile(notes, "## my hand note\nkeep me\n");
  const report = await new FileMemoryStore({ rootDir }).load();
  assert.ok((await readFile(notes, "utf8")).includes("keep me"));
  assert.ok(
    report.issues.some((i) => /not a write of memo's/.test(i.message)),
    JSON.stringify(report.issues),
  );
});

Deno.test("a BOM an editor put before the first marker hides no note", async () => {
  const { store, notes, rootDir } = await fresh();
  const { written: [n] } = await store.commit({ notes: [{ text: "one" }] });
  await writeFile(notes, "\uFEFF" + serializeNote(n));
  assert.equal((await new FileMemoryStore({ rootDir }).get(n.id))?.body, "one");
});

Deno.test("a notes.md that is a symbolic link stays one through a rewrite, and its target gets the change", async () => {
  const { rootDir, notes } = await fresh();
  const { written: [a] } = await new FileMemoryStore({ rootDir }).commit({
    notes: [{ text: "one" }],
  });
  const target = join(rootDir, "real.md");
  await Deno.rename(notes, target);
  await Deno.symlink(target, notes);
  const store = new FileMemoryStore({ rootDir });
  await store.update(a.id, { text: "one v2" });
  assert.ok((await Deno.lstat(notes)).isSymlink);
  assert.ok((await readFile(target, "utf8")).includes("one v2"));
  assert.equal((await new FileMemoryStore({ rootDir }).get(a.id))?.body, "one v2");
});

Deno.test("a note edited in place above another process's append is written again, not answered unchanged", async () => {
  const { rootDir, notes } = await fresh();
  const a = new FileMemoryStore({ rootDir });
  await a.commit({ notes: [{ text: "deploys run on fridays" }] });
  await a.commit({ notes: [{ text: "filler ".repeat(30) }] });
  // A hand edit in place, the same length, above the end...
  const text = await readFile(notes, "utf8");
  const at = new TextEncoder().encode(text.slice(0, text.lastIndexOf("fridays\n"))).length;
  const fh = await Deno.open(notes, { read: true, write: true });
  await fh.seek(at, Deno.SeekMode.Start);
  await fh.write(new TextEncoder().encode("mondays"));
  fh.close();
  // ...then another process appends: to `a`, this reads as growth.
  await new FileMemoryStore({ rootDir }).commit({ notes: [{ text: "other process" }] });
  const again = await a.commit({ notes: [{ text: "deploys run on fridays" }] });
  assert.equal(again.unchanged.length, 0);
  assert.equal(again.written.length, 1);
  assert.ok((await readFile(notes, "utf8")).includes("deploys run on fridays"));
});
