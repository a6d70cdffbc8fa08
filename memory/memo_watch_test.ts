import assert from "node:assert/strict";
import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memo, openMemo } from "./memo.ts";
import type { MemoChange } from "./memo_types.ts";
import { MemoryValidationError } from "./errors.ts";
import { memoPaths } from "./store/paths.ts";
import { serializeNote } from "./store/codec.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";

/**
 * Watching is about notes.md, not embeddings: these clients embed nothing, so that no
 * process-wide embedder (its worker and ports) starts under a sanitized test, and no model load
 * competes with the checks for the machine.
 */
const NO_EMBEDDINGS = { localEmbeddings: false };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "memo-watch-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The next change `memo` reports; fails only a stuck test, after `ms`. */
function nextChange(memo: Memo, ms = 30_000): Promise<MemoChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no change reported within ${ms} ms`));
    }, ms);
    const stop = memo.watch((change) => {
      clearTimeout(timer);
      stop();
      resolve(change);
    });
  });
}

test("Memo.watch() reports this client's writes by kind, before each write resolves", async () => {
  await withDir(async (dir) => {
    const memo = await openMemo({ rootDir: dir, ...NO_EMBEDDINGS });
    const seen: MemoChange[] = [];
    const stop = memo.watch((change) => void seen.push(change));
    const { note } = await memo.remember({ text: "v1", source: "wiki:a" });
    assert.deepEqual(seen.splice(0), [{ created: [note.id], updated: [], removed: [] }]);
    await memo.remember({ text: "v1", source: "wiki:a" }); // unchanged: no news
    assert.deepEqual(seen, []);
    await memo.remember({ text: "v2", source: "wiki:a" }); // same source, new text
    assert.deepEqual(seen.splice(0), [{ created: [], updated: [note.id], removed: [] }]);
    await memo.update(note.id, { title: "A" });
    assert.deepEqual(seen.splice(0), [{ created: [], updated: [note.id], removed: [] }]);
    const many = await memo.rememberMany([{ text: "x" }, { text: "y" }]);
    assert.deepEqual(seen.splice(0), [{
      created: many.written.map((n) => n.id),
      updated: [],
      removed: [],
    }]);
    await memo.forget(note.id);
    assert.deepEqual(seen.splice(0), [{ created: [], updated: [], removed: [note.id] }]);
    stop();
    await memo.close();
  });
});

test({
  name: "Memo.watch() notices another writer's append, rewrite and removal with their ids",
  fn: () =>
    withDir(async (dir) => {
      const memo = await openMemo({ rootDir: dir, watchIntervalMs: 20, ...NO_EMBEDDINGS });
      // Another client on the same file, with its own store, stands in for another process.
      const other = await openMemo({ rootDir: dir, ...NO_EMBEDDINGS });
      try {
        let change = nextChange(memo);
        const { note } = await other.remember({ text: "appended elsewhere" });
        assert.deepEqual(await change, { created: [note.id], updated: [], removed: [] });

        const kept = (await other.remember({ text: "kept" })).note;
        await nextChange(memo);
        change = nextChange(memo);
        await other.update(note.id, { labels: ["x"] }); // a rewrite: the file is replaced
        assert.deepEqual(await change, { created: [], updated: [note.id], removed: [] });

        change = nextChange(memo);
        await other.forget(note.id);
        assert.deepEqual(await change, { created: [], updated: [], removed: [note.id] });
        assert.equal((await memo.get(kept.id)).body, "kept");
      } finally {
        await other.close();
        await memo.close();
      }
    }),
});

test("Memo.watch() reports a hand edit's changes after a full reload, and nothing else", async () => {
  await withDir(async (dir) => {
    const memo = await openMemo({ rootDir: dir, watchIntervalMs: 20, ...NO_EMBEDDINGS });
    const a = (await memo.remember({ text: "alpha" })).note;
    const b = (await memo.remember({ text: "beta" })).note;
    const change = nextChange(memo);
    // An editor's save: the whole file is replaced, one note's body edited by hand.
    const path = memoPaths(dir).notes;
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(`${path}.tmp`, text.replace("\nbeta\n", "\nbeta, edited\n"));
    await Deno.rename(`${path}.tmp`, path);
    assert.deepEqual(await change, { created: [], updated: [b.id], removed: [] });
    assert.equal((await memo.get(a.id)).body, "alpha");
    await memo.close();
  });
});

test({
  name: "Memo.watch() stop function and close() end the calls and leave no timer behind",
  fn: () =>
    withDir(async (dir) => {
      const memo = await openMemo({ rootDir: dir, watchIntervalMs: 10, ...NO_EMBEDDINGS });
      const calls: string[] = [];
      const stopA = memo.watch(() => void calls.push("a"));
      memo.watch(() => void calls.push("b"));
      await memo.remember({ text: "one" });
      assert.deepEqual(calls.splice(0), ["a", "b"]);
      stopA();
      stopA(); // twice is harmless
      await memo.remember({ text: "two" });
      assert.deepEqual(calls.splice(0), ["b"]);
      await memo.close(); // stops "b" and its timer
      const other = await openMemo({ rootDir: dir, ...NO_EMBEDDINGS });
      await other.remember({ text: "three" });
      await other.close();
      await new Promise((resolve) => setTimeout(resolve, 50)); // several intervals
      await memo.list(); // a read catches up, but nobody listens any more
      assert.deepEqual(calls, []);
      // A client without listeners has no timer: the sanitizers would catch one.
      await memo.close();
    }),
});

test("Memo.watch() keeps calling the other listeners when one throws", async () => {
  await withDir(async (dir) => {
    const memo = await openMemo({ rootDir: dir, ...NO_EMBEDDINGS });
    const calls: string[] = [];
    memo.watch(() => {
      calls.push("first");
      throw new Error("listener failed");
    });
    memo.watch(() => void calls.push("second"));
    const { status } = await memo.remember({ text: "one" }); // the write does not fail
    assert.equal(status, "written");
    await memo.remember({ text: "two" });
    assert.deepEqual(calls, ["first", "second", "first", "second"]);
    await memo.close();
  });
});

test("Memo.watch() reports a note appended by hand once the file grows", async () => {
  await withDir(async (dir) => {
    const memo = await openMemo({ rootDir: dir, watchIntervalMs: 20, ...NO_EMBEDDINGS });
    await memo.remember({ text: "first" });
    const change = nextChange(memo);
    const note = {
      id: "01handwritten000000a",
      title: "Hand",
      body: "by hand",
      labels: [],
      hash: "0123abcd",
      created: "2025-01-01T00:00:00.000Z",
      updated: "2025-01-01T00:00:00.000Z",
    };
    await appendFile(memoPaths(dir).notes, serializeNote(note));
    assert.deepEqual(await change, { created: [note.id], updated: [], removed: [] });
    assert.equal((await memo.get(note.id)).body, "by hand");
    await memo.close();
  });
});

test("new Memo() refuses a watchIntervalMs that is not a positive number", () => {
  for (const watchIntervalMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new Memo({ rootDir: ".", watchIntervalMs }), MemoryValidationError);
  }
});

test("an in-place edit of the same size whose mtime was put back (touch -r) is still seen", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memo-ctime-"));
  const memo = await openMemo({ rootDir: dir, localEmbeddings: false });
  try {
    const { note } = await memo.remember({ text: "The fruit of the day is kiwi" });
    assert.deepEqual((await memo.recall("kiwi")).map((h) => h.note.id), [note.id]);
    const path = memoPaths(dir).notes;
    const { mtime, ctime } = await Deno.stat(path);
    const second = (t: Date | null) => Math.floor((t ?? new Date(0)).getTime() / 1000);
    const text = await Deno.readTextFile(path);
    // The edit, until the inode's change time shows it: some runtimes keep it to the second, and
    // the kernel's clock for it may lag the wall clock by a tick.
    for (;;) {
      const file = await Deno.open(path, { write: true });
      await file.write(new TextEncoder().encode(text.replaceAll("kiwi", "lime")));
      file.close();
      await Deno.utime(path, mtime!, mtime!); // as `touch -r` or `cp -p` would
      if (second((await Deno.stat(path)).ctime) > second(ctime)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual((await memo.recall("lime")).map((h) => h.note.id), [note.id]);
    assert.deepEqual(await memo.recall("kiwi"), []);
  } finally {
    await memo.close();
    await rm(dir, { recursive: true });
  }
});
