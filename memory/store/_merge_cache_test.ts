import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { FileMemoryStore } from "./file_store.ts";
import { serializeNote } from "./codec.ts";
import { loadDigestsOf } from "./load_digest.ts";
import { contentHash, type Note } from "../notes/note.ts";
import {
  encodeMerge,
  mergeCachePath,
  readMergeCache,
  sha256Hex,
  writeMergeCache,
} from "./_merge_cache.ts";

/** A project whose notes.md holds one note, then a hunk: `ours` against `theirs`. */
async function conflictedProject(theirs: string[]) {
  const dir = await Deno.makeTempDir();
  const store = new FileMemoryStore({ rootDir: dir });
  const { written: [a] } = await store.commit({ notes: [{ text: "queue is kafka" }] });
  // Ids beside a's that never equal it (a's own last character is left out of the choice).
  const free = [..."3456789"].filter((c) => c !== a.id.at(-1));
  const note = (n: number, body: string): Note => {
    const b = { ...a, id: a.id.slice(0, -1) + free[n - 1], title: body, body };
    return { ...b, hash: contentHash(b) };
  };
  const text = await readFile(store.paths.notes, "utf8");
  const conflicted = (bodies: string[]) =>
    text + "<<<<<<< HEAD\n" + serializeNote(note(1, "ours adds redis")) + "=======\n" +
    bodies.map((body, i) => serializeNote(note(i + 2, body))).join("") + ">>>>>>> alice\n";
  await writeFile(store.paths.notes, conflicted(theirs));
  const cache = mergeCachePath(store.paths.cache);
  const bodies = async (s = new FileMemoryStore({ rootDir: dir })) =>
    (await s.list()).notes.map((n) => n.body);
  return { dir, store, cache, conflicted, bodies };
}

Deno.test("a conflicted file's merge is cached: a second open reads it, a changed file merges again", async () => {
  const p = await conflictedProject(["theirs adds pg"]);
  const merged = await p.bodies(p.store);
  assert.deepEqual(merged.toSorted(), ["ours adds redis", "queue is kafka", "theirs adds pg"]);
  const notes = await readFile(p.store.paths.notes);
  const entry = await readMergeCache(p.cache, sha256Hex(notes));
  assert.ok(entry);
  assert.deepEqual(await p.bodies(), merged); // identical reads from the cache

  // The second open reads the cache: a (valid) entry for this conflict is taken as it is.
  const planted = entry.text.replaceAll("theirs adds pg", "planted by the test");
  const { bytes, sha256 } = encodeMerge(planted)!;
  await writeMergeCache(p.cache, entry, bytes, sha256);
  assert.ok((await p.bodies()).includes("planted by the test"));

  // A changed conflicted file is merged again (and the cache follows it).
  await writeFile(p.store.paths.notes, p.conflicted(["theirs adds s3"]));
  const again = (await p.bodies()).toSorted();
  assert.deepEqual(again, ["ours adds redis", "queue is kafka", "theirs adds s3"]);
  const now = await readFile(p.store.paths.notes);
  assert.ok((await readMergeCache(p.cache, sha256Hex(now)))?.text.includes("theirs adds s3"));

  // Another base from git's index merges again too.
  let asked = 0;
  const withBase = new FileMemoryStore({
    rootDir: p.dir,
    conflictBase: () => (asked++, Promise.resolve(entry.text.slice(0, entry.text.indexOf("<!--")))),
  });
  await withBase.list();
  assert.equal(asked, 1);
  assert.equal(withBase.unresolvedMerge?.base, "given");
  assert.equal((await readMergeCache(p.cache, sha256Hex(now)))?.from, "given");
  assert.deepEqual(await readFile(p.store.paths.notes), now); // notes.md never written
  await Deno.remove(p.dir, { recursive: true });
});

Deno.test("a damaged merge cache is never trusted; resolve drops the cache", async () => {
  const p = await conflictedProject(["theirs adds pg"]);
  const merged = await p.bodies(p.store);
  const resolvedText = p.store.unresolvedMerge!.text!;
  const cached = await readFile(p.cache);
  const flipped = new Uint8Array(cached);
  flipped[flipped.length - 20] ^= 1; // one bit of the merged text
  for (const damaged of [flipped, cached.subarray(0, cached.length - 3), new Uint8Array(0)]) {
    await writeFile(p.cache, damaged);
    assert.deepEqual(await p.bodies(), merged);
    assert.deepEqual(await readFile(p.cache), cached); // merged again, and cached again
  }
  // The merge's digests key the index snapshot as the resolved file's bytes will.
  const reader = new FileMemoryStore({ rootDir: p.dir });
  loadDigestsOf(reader)!.request();
  await reader.load();
  const whole = loadDigestsOf(reader)!.taken()?.whole;
  assert.equal(whole?.sha256, sha256Hex(resolvedText));
  assert.equal(whole?.notes, 3);
  await reader.resolveMerge();
  assert.equal(await readFile(reader.paths.notes, "utf8"), resolvedText);
  await assert.rejects(stat(p.cache), { code: "ENOENT" });
  await Deno.remove(p.dir, { recursive: true });
});
