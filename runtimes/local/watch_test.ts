import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemo } from "@memo/memory";
import { isMemoRuntimeError } from "../errors.ts";
import { createMemoMcpRuntimeFromConfig } from "../factory.ts";
import { createMemoMcpRuntimeFromMemo } from "./runtime.ts";
import type { MemoLike, MemoMcpRuntime, RuntimeChange } from "../types.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

/**
 * Watching is about notes.md, not embeddings: the clients here embed nothing, so that no
 * process-wide embedder (its worker and ports) starts under a sanitized test, and no model load
 * competes with the checks for the machine.
 */
const NO_EMBEDDINGS = { localEmbeddings: false };

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "memo-runtime-watch-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A local runtime over a client that checks for other writers every 20 ms. */
async function quickRuntime(rootDir: string): Promise<MemoMcpRuntime> {
  const memo = await openMemo({ rootDir, watchIntervalMs: 20, ...NO_EMBEDDINGS });
  return createMemoMcpRuntimeFromMemo(memo, { rootDir, closeMemo: true });
}

/** The next change `runtime` reports; fails only a stuck test, after `ms`. */
function nextChange(runtime: MemoMcpRuntime, ms = 30_000): Promise<RuntimeChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no change reported within ${ms} ms`));
    }, ms);
    const stop = runtime.watch!((change) => {
      clearTimeout(timer);
      stop();
      resolve(change);
    });
  });
}

test("createMemoMcpRuntimeFromConfig() watch() reports each write's ids and whether the list changed", async () => {
  await withDir(async (rootDir) => {
    const runtime = createMemoMcpRuntimeFromConfig({
      rootDir,
      prewarm: false,
      recall: NO_EMBEDDINGS,
    });
    const seen: RuntimeChange[] = [];
    const stop = runtime.watch!((change) => void seen.push(change));
    const { note } = await runtime.remember({ text: "v1", source: "wiki:a" });
    assert.deepEqual(seen.splice(0), [{ ids: [note.id], listChanged: true }]);
    await runtime.remember({ text: "v1", source: "wiki:a" }); // unchanged: nothing to report
    assert.deepEqual(seen, []);
    await runtime.remember({ text: "v2", source: "wiki:a" }); // same source: an update
    assert.deepEqual(seen.splice(0), [{ ids: [note.id], listChanged: false }]);
    await runtime.update(note.id, { title: "A" });
    assert.deepEqual(seen.splice(0), [{ ids: [note.id], listChanged: false }]);
    await runtime.forget(note.id);
    assert.deepEqual(seen.splice(0), [{ ids: [note.id], listChanged: true }]);
    await assert.rejects(runtime.forget(note.id)); // a refused write reports nothing
    assert.deepEqual(seen, []);
    stop();
    await runtime.close();
  });
});

test("createMemoMcpRuntimeFromMemo() watch() notices another client's writes to the same notes.md", async () => {
  await withDir(async (rootDir) => {
    const runtime = await quickRuntime(rootDir);
    const other = await openMemo({ rootDir, ...NO_EMBEDDINGS }); // another writer of the file
    try {
      let change = nextChange(runtime);
      const { note } = await other.remember({ text: "from elsewhere" });
      assert.deepEqual(await change, { ids: [note.id], listChanged: true });
      change = nextChange(runtime);
      await other.update(note.id, { text: "changed elsewhere" });
      assert.deepEqual(await change, { ids: [note.id], listChanged: false });
      change = nextChange(runtime);
      await other.forget(note.id);
      assert.deepEqual(await change, { ids: [note.id], listChanged: true });
    } finally {
      await other.close();
      await runtime.close();
    }
  });
});

test({
  name:
    "createMemoMcpRuntimeFromMemo() watch() unsubscribe and close() release every listener and timer",
  fn: () =>
    withDir(async (rootDir) => {
      const memo = await openMemo({ rootDir, watchIntervalMs: 20, ...NO_EMBEDDINGS });
      const runtime = createMemoMcpRuntimeFromMemo(memo, { rootDir }); // memo outlives it
      const other = await openMemo({ rootDir, ...NO_EMBEDDINGS });
      const calls: string[] = [];
      const stopA = runtime.watch!(() => void calls.push("a"));
      const stopB = runtime.watch!(() => void calls.push("b"));
      await runtime.remember({ text: "one" });
      assert.deepEqual(calls.splice(0), ["a", "b"]);
      stopA();
      stopA(); // twice is harmless
      let noticed = nextChange(runtime);
      await other.remember({ text: "two" });
      await noticed;
      assert.deepEqual(calls.splice(0), ["b"]);
      stopB();
      // With no listener, the client has no timer: another writer goes unnoticed until a call.
      await other.remember({ text: "three" });
      await new Promise((resolve) => setTimeout(resolve, 100)); // five check intervals
      assert.equal(calls.length, 0, calls.join());

      runtime.watch!(() => void calls.push("c"));
      noticed = nextChange(runtime);
      await other.remember({ text: "four" });
      await noticed;
      assert.deepEqual(calls.splice(0), ["c"]);
      await runtime.close(); // releases "c", and with it the client's timer
      await other.remember({ text: "five" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await memo.list(); // the client, still open, catches up: nobody hears of it
      assert.equal(calls.length, 0, calls.join());
      assert.throws(
        () => runtime.watch!(() => {}),
        (e) => isMemoRuntimeError(e, "UNAVAILABLE") && /runtime is closed/.test(e.message),
      );
      await other.close();
      await memo.close();
    }),
});

test({
  name:
    "createMemoMcpRuntimeFromConfig() watch() then close() before the notes load leaves nothing running",
  fn: () =>
    withDir(async (rootDir) => {
      const runtime = createMemoMcpRuntimeFromConfig({
        rootDir,
        prewarm: false,
        recall: NO_EMBEDDINGS,
      });
      const stop = runtime.watch!(() => {}); // starts loading the notes
      stop();
      runtime.watch!(() => {});
      await runtime.close(); // waits for the load, then releases the listener and the client
    }),
});

test("createMemoMcpRuntimeFromMemo() watch() keeps calling the others when a listener throws", async () => {
  await withDir(async (rootDir) => {
    const runtime = await quickRuntime(rootDir);
    const calls: string[] = [];
    runtime.watch!(() => {
      calls.push("thrower");
      throw new Error("listener failed");
    });
    runtime.watch!(() => void calls.push("second"));
    const { status } = await runtime.remember({ text: "one" }); // the write still succeeds
    assert.equal(status, "written");
    await runtime.remember({ text: "two" });
    assert.deepEqual(calls, ["thrower", "second", "thrower", "second"]);
    await runtime.close();
  });
});

test("createMemoMcpRuntimeFromMemo() watch() over a client without watch reports the runtime's own writes", async () => {
  await withDir(async (rootDir) => {
    const memo = await openMemo({ rootDir, ...NO_EMBEDDINGS });
    // A caller's own client: everything of Memo but watch.
    const plain: MemoLike = {
      rememberMany: (drafts, options) => memo.rememberMany(drafts, options),
      recall: (query, options) => memo.recall(query, options),
      get: (id) => memo.get(id),
      list: (options) => memo.list(options),
      update: (id, patch) => memo.update(id, patch),
      forget: (id) => memo.forget(id),
      stats: () => memo.stats(),
      close: () => memo.close(),
    };
    const runtime = createMemoMcpRuntimeFromMemo(plain, { rootDir, closeMemo: true });
    const seen: RuntimeChange[] = [];
    runtime.watch!((change) => void seen.push(change));
    const { note } = await runtime.remember({ text: "one" });
    await runtime.remember({ text: "one" }); // unchanged
    await runtime.update(note.id, { labels: ["x"] });
    await runtime.forget(note.id);
    assert.deepEqual(seen, [
      { ids: [note.id], listChanged: true },
      { ids: [note.id], listChanged: false },
      { ids: [note.id], listChanged: true },
    ]);
    await runtime.close();
  });
});

test("createMemoMcpRuntimeFromMemo() watch() refuses a listener that is not a function", async () => {
  await withDir(async (rootDir) => {
    const runtime = await quickRuntime(rootDir);
    assert.throws(
      // deno-lint-ignore no-explicit-any
      () => runtime.watch!("nope" as any),
      (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
    );
    await runtime.close();
  });
});
