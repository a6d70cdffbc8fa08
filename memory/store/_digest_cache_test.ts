import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import {
  digestCachePath,
  readDigestCache,
  SETTLED_MS,
  statusOf,
  writeDigestCache,
} from "./_digest_cache.ts";
import { readNotes } from "./_notes_file.ts";
import { LoadedNotes } from "./_loaded_notes.ts";

const note = (i: number, body: string) =>
  `<!-- memo:note {"id":"n${i}","hash":"h${i}","labels":[]} -->\n## Note ${i}\n${body}\n\n`;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

Deno.test("a digest is recorded only for a file changed well before the read, on a clock that does not lag", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = digestCachePath(join(dir, "cache"));
    const status = { dev: 1, ino: 2, size: 3, mtimeMs: 4, ctimeMs: 1_000_000, birthtimeMs: 0 };
    const digest = { status, sha256: "ab".repeat(32) };
    // Changed less than SETTLED_MS before the read began: a write in the same tick could follow.
    await writeDigestCache(path, digest, status.ctimeMs + SETTLED_MS - 1);
    assert.equal(readDigestCache(path), undefined);
    // No inode, or no change time: nothing to tie the digest to.
    const readStart = Date.now();
    await writeDigestCache(path, { ...digest, status: { ...status, ino: 0 } }, readStart);
    await writeDigestCache(path, { ...digest, status: { ...status, ctimeMs: 0 } }, readStart);
    assert.equal(readDigestCache(path), undefined);
    // The record's own change time lags this process's clock by a minute: dropped.
    const ahead = () => Date.now() + 60_000;
    await writeDigestCache(path, digest, readStart, ahead);
    assert.equal(readDigestCache(path), undefined);
    await writeDigestCache(path, digest, readStart);
    assert.deepEqual(readDigestCache(path), digest);
    // A damaged record reads as none.
    await Deno.writeTextFile(path, (await Deno.readTextFile(path)).slice(0, -10));
    assert.equal(readDigestCache(path), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readNotes() takes a recorded digest only while the file keeps the recorded status", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const notesPath = join(dir, "notes.md");
    const lockPath = `${notesPath}.lock`;
    const text = "# Memory\n\n" + note(1, "one") + note(2, "two");
    await Deno.writeTextFile(notesPath, text);
    const status = statusOf(await stat(notesPath));
    // A digest that is not the file's: taken as it is shows that no hashing happened.
    const known = { status, sha256: "0".repeat(64) };
    const size = status.size;
    const read = async (mark?: number) => {
      const got = await readNotes({ notesPath, lockPath, locked: false, hash: true, mark, known });
      assert.ok(typeof got === "object");
      return got;
    };
    const trusted = await read(size);
    assert.equal(trusted.trusted, true);
    assert.equal(trusted.sha256, known.sha256);
    const chunks = trusted.chunks.length;
    assert.deepEqual(trusted.marked, { bytes: size, sha256: known.sha256, chunks });
    assert.deepEqual(trusted.status, status);
    assert.equal((await read()).sha256, known.sha256);
    // A mark inside the file needs the hash of the bytes before it: everything is hashed.
    const inside = await read(text.indexOf("<!-- memo:note", 20));
    assert.equal(inside.trusted, undefined);
    assert.equal(inside.sha256, sha(text));
    // A same-size edit with the modification time put back: another status, hashed again.
    const edited = text.replace("two", "TWO");
    await Deno.writeTextFile(notesPath, edited);
    await utimes(notesPath, status.mtimeMs / 1000, status.mtimeMs / 1000);
    const after = statusOf(await stat(notesPath));
    if (after.ctimeMs !== status.ctimeMs) {
      // (Deno gives ctime in whole seconds: within the same second only the record's rule, a
      // file changed SETTLED_MS before the read, keeps such a file from being recorded.)
      const again = await read(size);
      assert.equal(again.trusted, undefined);
      assert.equal(again.sha256, sha(edited));
    }
    // Replaced by a rename (an editor's save, git): another inode.
    await Deno.writeTextFile(`${notesPath}.new`, text);
    await Deno.rename(`${notesPath}.new`, notesPath);
    const renamed = await read(size);
    assert.equal(renamed.trusted, undefined);
    assert.equal(renamed.sha256, sha(text));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a full reload records the digest it hashed and takes it next time, for the same file only", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const notesPath = join(dir, "notes.md");
    const cache = digestCachePath(join(dir, "cache"));
    const text = "# Memory\n\n" + note(1, "one") + note(2, "two");
    await Deno.writeTextFile(notesPath, text);
    // The file was written just now: its digest is not recorded (see the first test) ...
    const fresh = new LoadedNotes(notesPath, `${notesPath}.lock`, undefined, undefined, cache);
    fresh.requestDigests();
    await fresh.fullReload(false);
    assert.equal(fresh.digests?.whole.sha256, sha(text));
    assert.equal(readDigestCache(cache), undefined);
    // ... unless it was written long before the read began (the clock's first reading).
    const open = async () => {
      let first = true;
      const later = () => {
        const now = Date.now();
        if (!first) return now;
        first = false;
        return now + SETTLED_MS + 1_000;
      };
      const loaded = new LoadedNotes(
        notesPath,
        `${notesPath}.lock`,
        undefined,
        undefined,
        cache,
        later,
      );
      loaded.requestDigests();
      await loaded.fullReload(false);
      return loaded;
    };
    assert.equal((await open()).digests?.whole.sha256, sha(text));
    assert.equal(readDigestCache(cache)?.sha256, sha(text));
    // Taken from the record now (a wrong record shows it), with the same notes and digests.
    const status = readDigestCache(cache)!.status;
    await Deno.writeTextFile(
      cache,
      JSON.stringify({
        format: "memo-notes-digest 1",
        status,
        sha256: "1".repeat(64),
      }),
    );
    const second = await open();
    assert.equal(second.digests?.whole.sha256, "1".repeat(64));
    assert.equal(second.digests?.whole.notes, 2);
    assert.equal(second.table.get("n2")?.body, "two");
    // Any change of the file: hashed again, and recorded again.
    const grown = text + note(3, "three");
    await Deno.writeTextFile(notesPath, grown);
    const third = await open();
    assert.equal(third.digests?.whole.sha256, sha(grown));
    assert.equal(third.table.get("n3")?.body, "three");
    assert.equal(readDigestCache(cache)?.sha256, sha(grown));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
