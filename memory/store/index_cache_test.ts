import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Memo, openMemo } from "../memo.ts";
import { FileMemoryStore } from "./file_store.ts";
import { memoPaths } from "./paths.ts";
import { Bm25Index, createLexicalIndex } from "../recall/lexical/lexical.ts";
import {
  indexCachePath,
  readSnapshotFile,
  readSnapshotHead,
  restoreIndex,
  snapshotExtent,
  writeIndexCache,
} from "./index_cache.ts";
import { loadDigestsOf } from "./load_digest.ts";
import type { Note } from "../notes/note.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

const WORDS = (
  "deploy staging database cache index token memory agent recall rate limit retry backoff " +
  "queue worker schema migration release branch review latency budget incident postmortem " +
  "owner runbook alert dashboard metric trace span service rateLimit snake_case kebab-case " +
  "café naïve 日本語 the a of to and in is it for on with"
).split(" ");

const QUERIES = [
  "deploy staging database",
  "rate limit retry",
  "how do we handle incident postmortem",
  "rateLimit",
  "snake case",
  "café",
  "日本語",
  "run",
  "migration sch",
  "owner of the runbook alert",
];

function drafts(count: number, seed = 7) {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    const n = 5 + Math.floor(rand() * 60);
    for (let k = 0; k < n; k++) text += WORDS[Math.floor(rand() * WORDS.length)] + " ";
    out.push({
      title: `Note ${i} ${WORDS[i % WORDS.length]}`,
      text: text.trim(),
      labels: [WORDS[Math.floor(rand() * 8)]],
    });
  }
  return out;
}

async function tempDir(): Promise<string> {
  return await mkdtemp(join(tmpdir(), "memo-index-cache-"));
}

async function results(memo: Memo, queries: readonly string[] = QUERIES) {
  const out = [];
  for (const q of queries) {
    const hits = await memo.recall(q, { limit: 20 });
    out.push(hits.map((h) => ({ id: h.note.id, score: h.score, matched: h.matched })));
  }
  return out;
}

/** Recall results of a Memo opened with `indexCache`, closed afterwards. */
async function resultsOf(
  rootDir: string,
  indexCache: boolean | "always",
  queries: readonly string[] = QUERIES,
) {
  const memo = await openMemo({ rootDir, indexCache });
  try {
    return await results(memo, queries);
  } finally {
    await memo.close();
  }
}

async function loadedNotes(rootDir: string): Promise<Note[]> {
  const store = new FileMemoryStore({ rootDir });
  await store.load();
  const notes = (await store.changesSince()).upserted;
  await store.close?.();
  return notes;
}

/**
 * How many of the project's notes (a prefix of them) the snapshot on disk restores; 0: none. As
 * a `Memo` does: the store's load hashes notes.md up to the snapshot's extent.
 */
async function snapshotPrefix(rootDir: string): Promise<number> {
  const path = indexCachePath(rootDir);
  const store = new FileMemoryStore({ rootDir });
  const digests = loadDigestsOf(store)!;
  digests.request(snapshotExtent(readSnapshotHead(path)?.key));
  await store.load();
  const notes = (await store.changesSince()).upserted;
  const index = createLexicalIndex() as Bm25Index;
  const digest = digests.taken()?.prefix;
  await store.close();
  return restoreIndex(await readSnapshotFile(path), index, notes, { by: "file", digest });
}

/** Whether the snapshot on disk fits the project's notes as they are now (all of them). */
async function snapshotFits(rootDir: string): Promise<boolean> {
  const count = snapshotPrefix(rootDir);
  return await count > 0 && await count === (await loadedNotes(rootDir)).length;
}

/** Runs `fn` counting the snapshots Memo loads into its index (successful imports). */
async function countingImports<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const original = Bm25Index.prototype.importSnapshot;
  let imports = 0;
  Bm25Index.prototype.importSnapshot = function (this: Bm25Index, ...args) {
    const ok = original.apply(this, args);
    if (ok) imports++;
    return ok;
  };
  try {
    return [await fn(), imports];
  } finally {
    Bm25Index.prototype.importSnapshot = original;
  }
}

/** A project of `count` notes with a snapshot of its index. */
async function project(count: number): Promise<string> {
  const dir = await tempDir();
  const writer = await openMemo({ rootDir: dir, indexCache: false });
  await writer.rememberMany(drafts(count));
  await writer.close();
  const builder = await openMemo({ rootDir: dir, indexCache: "always" });
  await builder.close(); // waits for the snapshot
  await stat(indexCachePath(dir));
  return dir;
}

test("index cache: a reopened Memo recalls exactly as with a freshly built index", async () => {
  const dir = await project(300);
  try {
    assert.ok(await snapshotFits(dir), "the snapshot is taken of the notes on disk");
    assert.equal(
      await readFile(join(dir, ".memo", "cache", ".gitignore"), "utf8"),
      "*\n",
      "the cache folder keeps itself out of git",
    );
    const built = await resultsOf(dir, false);
    assert.ok(built.every((hits) => hits.length > 0));
    const [cached, imports] = await countingImports(() => resultsOf(dir, true));
    assert.equal(imports, 1, "the snapshot was loaded");
    assert.deepEqual(cached, built);
    // A restored index keeps taking notes like a built one.
    const memo = await openMemo({ rootDir: dir });
    await memo.remember({ title: "Zebra rollout", text: "zebra crossing deploy plan", labels: [] });
    const afterAdd = await results(memo);
    const zebra = await memo.recall("zebra");
    await memo.close();
    assert.equal(zebra.length, 1);
    assert.deepEqual(afterAdd, await resultsOf(dir, false));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Queries of the appended notes' own words, and of words shared with the older notes. */
const APPEND_QUERIES = [...QUERIES, "quokka", "quokka budget review", "Appended 3", "wallaby"];

/** Appends `count` notes (and a quokka note) by another process, without touching the cache. */
async function append(rootDir: string, count: number, seed: number): Promise<void> {
  const other = await openMemo({ rootDir, indexCache: false });
  const more = drafts(count, seed).map((d, i) => ({
    ...d,
    title: `Appended ${i} ${d.title}`,
    text: i % 3 === 0 ? `${d.text} wallaby` : d.text,
  }));
  await other.rememberMany(more);
  await other.remember({ title: "Quokka", text: "the quokka budget review", labels: ["x"] });
  await other.close();
}

test("index cache: after appends by another process the snapshot is used and extended", async () => {
  const dir = await project(200);
  try {
    const before = await readFile(indexCachePath(dir));
    await append(dir, 4, 11); // 5 of 205 notes: a small tail
    assert.equal(await snapshotFits(dir), false);
    assert.equal(await snapshotPrefix(dir), 200, "the snapshot fits the first 200 notes");
    const built = await resultsOf(dir, false, APPEND_QUERIES);
    assert.ok(built.every((hits) => hits.length > 0));
    assert.deepEqual(built[QUERIES.length].length, 1, "one quokka");
    const [cached, imports] = await countingImports(() => resultsOf(dir, true, APPEND_QUERIES));
    assert.equal(imports, 1, "the snapshot was loaded");
    assert.deepEqual(cached, built);
    assert.deepEqual(
      await readFile(indexCachePath(dir)),
      before,
      "a small, fast tail keeps the old snapshot",
    );
    // The same again from the old snapshot, and a recall right after an add.
    const memo = await openMemo({ rootDir: dir });
    await memo.remember({ title: "Zebra rollout", text: "zebra crossing deploy plan", labels: [] });
    const afterAdd = await results(memo, APPEND_QUERIES);
    await memo.close();
    assert.deepEqual(afterAdd, await resultsOf(dir, false, APPEND_QUERIES));

    // A large tail (over a tenth of the notes) writes a fresh snapshot of all of them.
    await append(dir, 40, 13);
    const total = (await loadedNotes(dir)).length;
    assert.equal(total, 246, "the second quokka is the same note");
    assert.equal(await snapshotPrefix(dir), 200);
    const rebuilt = await resultsOf(dir, false, APPEND_QUERIES);
    const [again, imported] = await countingImports(() => resultsOf(dir, true, APPEND_QUERIES));
    assert.equal(imported, 1);
    assert.deepEqual(again, rebuilt);
    assert.equal(await snapshotPrefix(dir), total, "the snapshot was replaced");
    const [fresh, freshImports] = await countingImports(() => resultsOf(dir, true, APPEND_QUERIES));
    assert.equal(freshImports, 1);
    assert.deepEqual(fresh, rebuilt);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a note added by another process is found through the snapshot", async () => {
  const dir = await project(200);
  try {
    const other = await openMemo({ rootDir: dir, indexCache: false });
    await other.remember({ title: "Quokka", text: "the quokka budget review", labels: ["x"] });
    await other.close();
    assert.equal(await snapshotFits(dir), false);
    const [cached, imports] = await countingImports(() => resultsOf(dir, true, APPEND_QUERIES));
    assert.equal(imports, 1);
    assert.deepEqual(cached, await resultsOf(dir, false, APPEND_QUERIES));
    const memo = await openMemo({ rootDir: dir });
    assert.equal((await memo.recall("quokka")).length, 1);
    await memo.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a change inside the snapshot's notes after appends builds the index", async () => {
  // A hand edit of an early note.
  const edited = await project(200);
  try {
    await append(edited, 10, 17);
    const path = memoPaths(edited).notes;
    const text = await readFile(path, "utf8");
    const at = text.indexOf("Note 17 ");
    assert.ok(at > 0);
    await writeFile(path, text.slice(0, at) + "Wombat17" + text.slice(at + 8));
    assert.equal(await snapshotPrefix(edited), 0);
    const queries = [...APPEND_QUERIES, "wombat17"];
    const built = await resultsOf(edited, false, queries);
    assert.equal(built[built.length - 1].length, 1);
    const [cached, imports] = await countingImports(() => resultsOf(edited, true, queries));
    assert.equal(imports, 0);
    assert.deepEqual(cached, built);
  } finally {
    await rm(edited, { recursive: true, force: true });
  }
  // A forget of an early note (with and without appends after it), and of the last one.
  for (const [appended, which] of [[10, 5], [0, 5], [0, 199]] as const) {
    const dir = await project(200);
    try {
      if (appended) await append(dir, appended, 19);
      const other = await openMemo({ rootDir: dir, indexCache: false });
      const id = (await loadedNotes(dir))[which].id;
      await other.forget(id);
      await other.close();
      assert.equal(await snapshotPrefix(dir), 0, `forget ${which} after ${appended}`);
      const built = await resultsOf(dir, false, APPEND_QUERIES);
      const [cached, imports] = await countingImports(() => resultsOf(dir, true, APPEND_QUERIES));
      assert.equal(imports, 0);
      assert.deepEqual(cached, built);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});

/** Titles of the hits of `query` in a Memo opened with its snapshot, and whether it restored. */
async function recallOpen(rootDir: string, query: string) {
  const [titles, imports] = await countingImports(async () => {
    const memo = await openMemo({ rootDir });
    try {
      return (await memo.recall(query)).map((hit) => hit.note.title);
    } finally {
      await memo.close();
    }
  });
  return { titles, restored: imports === 1 };
}

test("index cache: a hand edit of notes.md invalidates the snapshot (stored hash unchanged)", async () => {
  const dir = await project(200);
  try {
    const path = memoPaths(dir).notes;
    const before = await stat(path);
    const text = await readFile(path, "utf8");
    const at = text.indexOf("Note 17 ");
    assert.ok(at > 0);
    // Same length, same marker (and so the same stored hash), and the old mtime put back: only
    // the content tells, and the title's words changed.
    await writeFile(path, text.slice(0, at) + "Wombat17" + text.slice(at + 8));
    await utimes(path, before.atime, before.mtime);
    const after = await stat(path);
    assert.deepEqual([after.size, after.mtimeMs], [before.size, before.mtimeMs]);
    assert.equal(await snapshotFits(dir), false);
    const { titles, restored } = await recallOpen(dir, "wombat17");
    assert.deepEqual([titles.length, restored], [1, false]);
    assert.deepEqual(await resultsOf(dir, true), await resultsOf(dir, false));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: text appended by hand to the last note is read, not taken from the snapshot", async () => {
  const dir = await project(200);
  try {
    const path = memoPaths(dir).notes;
    const last = (await loadedNotes(dir)).at(-1)!.title;
    // No marker: the line belongs to the last note's body.
    await writeFile(path, "quagga zebra crossing\n", { flag: "a" });
    assert.deepEqual(await recallOpen(dir, "quagga"), { titles: [last], restored: false });
    // A note appended after it is a note of its own, and the new snapshot fits the first 200.
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    await memo.close();
    await writeFile(
      path,
      '<!-- memo:note {"id":"zz1","labels":[],"created":"2025-01-01T00:00:00.000Z"} -->\n' +
        "## Okapi\nokapi sighting\n\n",
      { flag: "a" },
    );
    assert.deepEqual(await recallOpen(dir, "okapi"), { titles: ["Okapi"], restored: true });
    assert.deepEqual(await recallOpen(dir, "quagga"), { titles: [last], restored: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a snapshot keyed on the notes' text (older memo) is rebuilt, never misread", async () => {
  const dir = await project(120);
  try {
    const path = indexCachePath(dir);
    assert.ok(snapshotExtent(readSnapshotHead(path)?.key), "keyed on the file's bytes");
    // What a memo before this change wrote: the same index, keyed on the notes' text.
    const index = new Bm25Index();
    for (const note of await loadedNotes(dir)) index.add(note);
    await writeIndexCache(path, dirname(memoPaths(dir).notes), index, { by: "notes" });
    assert.equal(snapshotExtent(readSnapshotHead(path)?.key), undefined);
    const query = "Note 42 " + WORDS[42 % WORDS.length];
    const built = await resultsOf(dir, false, [query]);
    const [again, imports] = await countingImports(() => resultsOf(dir, true, [query]));
    assert.deepEqual([again, imports], [built, 0]);
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    await memo.close();
    assert.ok(snapshotExtent(readSnapshotHead(path)?.key), "written again, by the bytes");
    const [fresh, restored] = await countingImports(() => resultsOf(dir, true, [query]));
    assert.deepEqual([fresh, restored], [built, 1]);
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

test("index cache: bytes past a writer's lock are left out, and a dead writer's torn tail is cut", async () => {
  const dir = await project(200);
  try {
    const path = memoPaths(dir).notes;
    const before = await readFile(path, "utf8");
    const st = await stat(path);
    const built = await resultsOf(dir, false);
    // A write in flight: a whole note and half of another, past the size its live writer locked.
    await writeFile(
      path,
      '<!-- memo:note {"id":"inflight"} -->\n## Inflight\nokapi\n\n<!-- memo:no',
      { flag: "a" },
    );
    await foreignLock(dir, st.size, st.ino, 0);
    assert.deepEqual(await recallOpen(dir, "okapi"), { titles: [], restored: true });
    assert.deepEqual(await countingImports(() => resultsOf(dir, true)), [built, 1]);
    // The writer is gone (its lock is an hour old): the next load cuts its tail, then hashes.
    await foreignLock(dir, st.size, st.ino, 3_600_000);
    const memo = new Memo({ rootDir: dir, indexCache: false });
    const report = await memo.load();
    await memo.close();
    assert.deepEqual(report.issues.map((i) => i.kind).sort(), ["stale-lock", "torn-tail"]);
    assert.equal(await readFile(path, "utf8"), before);
    assert.deepEqual(await countingImports(() => resultsOf(dir, true)), [built, 1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a truncated, damaged or foreign snapshot is ignored", async () => {
  const dir = await project(250);
  try {
    const cachePath = indexCachePath(dir);
    const good = new Uint8Array(await readFile(cachePath));
    const built = await resultsOf(dir, false);
    const flipped = good.slice();
    flipped[Math.floor(flipped.length * 0.6)] ^= 0x10;
    const headerFlipped = good.slice();
    headerFlipped[13] ^= 0x01; // the total length
    const cases: [string, Uint8Array][] = [
      ["truncated", good.subarray(0, Math.floor(good.length / 2))],
      ["cut by one byte", good.subarray(0, good.length - 1)],
      ["one bit flipped", flipped],
      ["length field changed", headerFlipped],
      ["garbage", new Uint8Array(4096).fill(0x5a)],
      ["empty", new Uint8Array(0)],
    ];
    for (const [name, bytes] of cases) {
      await writeFile(cachePath, bytes);
      assert.equal(await snapshotFits(dir), false, name);
      assert.deepEqual(await resultsOf(dir, true), built, name);
    }
    // A directory where the file should be: still opens.
    await rm(cachePath);
    await Deno.mkdir(cachePath);
    assert.deepEqual(await resultsOf(dir, "always"), built);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a read-only open of a fresh folder writes nothing", async () => {
  const dir = await tempDir();
  try {
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    assert.deepEqual(await memo.recall("anything"), []);
    await memo.stats();
    await memo.close();
    assert.deepEqual(await readdir(dir), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: small projects write no snapshot by default; false reads none", async () => {
  const fits = await project(40);
  try {
    const [, imports] = await countingImports(() => resultsOf(fits, false));
    assert.equal(imports, 0, "indexCache: false reads no snapshot");
  } finally {
    await rm(fits, { recursive: true, force: true });
  }
  const dir = await tempDir();
  try {
    const memo = await openMemo({ rootDir: dir });
    await memo.rememberMany(drafts(50));
    await memo.close();
    const again = await openMemo({ rootDir: dir });
    await again.close();
    await assert.rejects(stat(indexCachePath(dir)), "a fast build writes no snapshot");
    // A snapshot of other notes is not used.
    const other = await project(30);
    try {
      await Deno.mkdir(memoPaths(dir).cache, { recursive: true });
      await writeFile(indexCachePath(dir), await readFile(indexCachePath(other)));
      assert.equal(await snapshotFits(dir), false);
      assert.deepEqual(await resultsOf(dir, true), await resultsOf(dir, false));
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("index cache: a snapshot write removes temp files a killed writer left, not fresh ones", async () => {
  const dir = await tempDir();
  try {
    const writer = await openMemo({ rootDir: dir, indexCache: false });
    await writer.rememberMany(drafts(20));
    await writer.close();
    const cacheDir = join(dir, ".memo", "cache");
    await mkdir(cacheDir, { recursive: true });
    const old = join(cacheDir, "lexical-index.bin.4242.abcdef.tmp");
    const fresh = join(cacheDir, "lexical-index.bin.4243.ghijkl.tmp");
    await writeFile(old, "half a snapshot");
    await writeFile(fresh, "another writer, still writing");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    const memo = await openMemo({ rootDir: dir, indexCache: "always" });
    await memo.close(); // waits for the snapshot
    const names = await readdir(cacheDir);
    assert.ok(names.includes("lexical-index.bin"));
    assert.ok(!names.includes(basename(old)), "the abandoned temp file is gone");
    assert.ok(names.includes(basename(fresh)), "a recent one may belong to a live writer");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
