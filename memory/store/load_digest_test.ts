import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileMemoryStore } from "./file_store.ts";
import { loadDigestsOf } from "./load_digest.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

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
