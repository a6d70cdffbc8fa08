import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Memo, openMemo } from "./memo.ts";
import { FileMemoryStore } from "./file_store.ts";
import { memoPaths } from "./paths.ts";
import { Bm25Index } from "./recall/lexical.ts";
import {
  indexCachePath,
  readSnapshotHead,
  snapshotExtent,
  writeIndexCache,
} from "./_index_cache.ts";
import { loadDigestsOf } from "./_load_digest.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A project of `count` notes, each with its own word (`wordN`), and a snapshot of its index. */
async function project(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "memo-load-digest-"));
  const writer = await openMemo({ rootDir: dir, indexCache: false });
  await writer.rememberMany(
    Array.from({ length: count }, (_, i) => ({
      title: `Note ${i}`,
      text: `word${i} deploy staging database ${i % 2 ? "café" : "plain"}`,
    })),
  );
  await writer.close();
  const builder = await openMemo({ rootDir: dir, indexCache: "always" });
  await builder.close(); // waits for the snapshot
  await stat(indexCachePath(dir));
  return dir;
}

/** Opens a Memo with its snapshot: the first note's id for `query`, and whether it restored. */
async function recallOpen(rootDir: string, query: string) {
  const original = Bm25Index.prototype.importSnapshot;
  let imports = 0;
  Bm25Index.prototype.importSnapshot = function (this: Bm25Index, ...args) {
    const ok = original.apply(this, args);
    if (ok) imports++;
    return ok;
  };
  try {
    const memo = await openMemo({ rootDir });
    const hits = await memo.recall(query);
    await memo.close();
    return { titles: hits.map((h) => h.note.title), restored: imports === 1 };
  } finally {
    Bm25Index.prototype.importSnapshot = original;
  }
}

Deno.test("load digests: the SHA-256 of what the load read, and of the bytes up to a mark", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-load-digest-"));
  try {
    const store = new FileMemoryStore({ rootDir: dir });
    await store.commit({ notes: [{ text: "one" }, { text: "two" }] });
    const middle = (await stat(store.paths.notes)).size;
    await store.commit({ notes: [{ text: "three" }] });
    const bytes = new Uint8Array(await readFile(store.paths.notes));
    const digests = loadDigestsOf(new FileMemoryStore({ rootDir: dir }));
    assert.ok(digests, "a file store offers digests");
    assert.equal(digests.taken(), undefined, "nothing before a load asked for them");

    const reader = new FileMemoryStore({ rootDir: dir });
    const of = loadDigestsOf(reader)!;
    await reader.load();
    assert.equal(of.taken(), undefined, "a load hashes only when asked");
    of.request(middle);
    await reader.load();
    const notes = (await reader.changesSince()).upserted;
    const taken = of.taken()!;
    assert.deepEqual(taken.whole, {
      bytes: bytes.length,
      sha256: sha256(bytes),
      notes: 3,
      last: notes[2],
    });
    assert.deepEqual(taken.prefix, {
      bytes: middle,
      sha256: sha256(bytes.subarray(0, middle)),
      notes: 2,
      last: notes[1],
    });

    // Another process appends: a tail read keeps them (the hashed notes are still the first).
    await store.commit({ notes: [{ text: "four" }] });
    assert.equal((await reader.changesSince()).upserted.length, 4);
    assert.equal(of.taken(), taken);
    // Another process rewrites: the full reload drops them.
    await store.update(notes[0].id, { text: "one, changed" });
    await reader.get(notes[0].id);
    assert.equal(of.taken(), undefined);
    // The store's own rewrite drops them too.
    of.request();
    await reader.load();
    assert.equal(of.taken()?.whole.notes, 4);
    await reader.remove(notes[1].id);
    assert.equal(of.taken(), undefined);
    await reader.close();
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("load digests: a same-size hand edit with its old mtime put back is seen, not restored", async () => {
  const dir = await project(120);
  try {
    const path = memoPaths(dir).notes;
    const before = await stat(path);
    const text = await readFile(path, "utf8");
    const at = text.indexOf("word17 ");
    assert.ok(at > 0);
    // Same length, same marker (and stored hash), same mtime: only the content tells.
    await writeFile(path, text.slice(0, at) + "wombat " + text.slice(at + 7));
    await utimes(path, before.atime, before.mtime);
    const after = await stat(path);
    assert.equal(after.size, before.size);
    assert.equal(after.mtimeMs, before.mtimeMs);
    const open = await recallOpen(dir, "wombat");
    assert.deepEqual(open, { titles: ["Note 17"], restored: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("load digests: text appended by hand to the last note is read, not taken from the snapshot", async () => {
  const dir = await project(120);
  try {
    const path = memoPaths(dir).notes;
    // No marker: the lines belong to the last note's body.
    await writeFile(path, "quagga zebra crossing\n", { flag: "a" });
    assert.deepEqual(await recallOpen(dir, "quagga"), { titles: ["Note 119"], restored: false });
    // A note appended after it is a note of its own, and the snapshot still fits the first 120.
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    await memo.close();
    await writeFile(
      path,
      '<!-- memo:note {"id":"zz1","labels":[],"created":"2025-01-01T00:00:00.000Z"} -->\n' +
        "## Okapi\nokapi sighting\n\n",
      { flag: "a" },
    );
    assert.deepEqual(await recallOpen(dir, "okapi"), { titles: ["Okapi"], restored: true });
    assert.deepEqual(await recallOpen(dir, "quagga"), { titles: ["Note 119"], restored: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("load digests: a snapshot keyed on the notes' text (older memo) is rebuilt, never misread", async () => {
  const dir = await project(120);
  try {
    const path = indexCachePath(dir);
    assert.ok(snapshotExtent(readSnapshotHead(path)?.key), "keyed on the file's bytes");
    // What a memo before this change wrote: the same index, keyed on the notes' text.
    const index = new Bm25Index();
    const store = new FileMemoryStore({ rootDir: dir });
    await store.load();
    for (const note of (await store.changesSince()).upserted) index.add(note);
    await store.close();
    await writeIndexCache(path, dirname(memoPaths(dir).notes), index, { by: "notes" });
    assert.equal(snapshotExtent(readSnapshotHead(path)?.key), undefined);
    assert.deepEqual(await recallOpen(dir, "word42"), { titles: ["Note 42"], restored: false });
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    await memo.close();
    assert.ok(snapshotExtent(readSnapshotHead(path)?.key), "written again, by the bytes");
    assert.deepEqual(await recallOpen(dir, "word42"), { titles: ["Note 42"], restored: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A lock of a writer on another host, guarding `size` bytes, written `ageMs` ago. */
async function foreignLock(rootDir: string, size: number, ino: number, ageMs: number) {
  const path = memoPaths(rootDir).lock;
  const created = new Date(Date.now() - ageMs);
  const lock = { pid: 1, host: "another-host.example", created: created.toISOString(), size, ino };
  await writeFile(path, JSON.stringify({ ...lock, nonce: "test" }));
  await utimes(path, created, created);
}

Deno.test("load digests: bytes past a writer's lock are left out, and a dead writer's torn tail is cut", async () => {
  const dir = await project(120);
  try {
    const path = memoPaths(dir).notes;
    const before = await readFile(path, "utf8");
    const st = await stat(path);
    // A write in flight: a whole note and half of another, past the size its live writer locked.
    await writeFile(
      path,
      '<!-- memo:note {"id":"inflight"} -->\n## Inflight\nokapi\n\n<!-- memo:no',
      { flag: "a" },
    );
    await foreignLock(dir, st.size, st.ino, 0);
    assert.deepEqual(await recallOpen(dir, "okapi"), { titles: [], restored: true });
    assert.deepEqual(await recallOpen(dir, "word42"), { titles: ["Note 42"], restored: true });
    // The writer is gone (its lock is an hour old): the next load cuts its tail, then hashes.
    await foreignLock(dir, st.size, st.ino, 3_600_000);
    const memo = new Memo({ rootDir: dir, indexCache: false });
    const report = await memo.load();
    await memo.close();
    assert.deepEqual(report.issues.map((i) => i.kind).sort(), ["stale-lock", "torn-tail"]);
    assert.equal(await readFile(path, "utf8"), before);
    assert.deepEqual(await recallOpen(dir, "word42"), { titles: ["Note 42"], restored: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
