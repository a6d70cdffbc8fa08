import assert from "node:assert/strict";
import type { Backend } from "./_backend.ts";
import { scheduleChunks } from "./_scheduler.ts";
import { until } from "../../testing/wait.ts";

/**
 * A backend that records its calls and answers after a macrotask (or, given `held`, once it
 * resolves); "fail" fails its chunk.
 */
function recording(held?: Promise<void>) {
  const calls: string[][] = [];
  let disposed = false;
  const backend: Backend = {
    dimensions: 1,
    async embed(texts) {
      calls.push([...texts]);
      await (held ?? new Promise((resolve) => setTimeout(resolve, 1)));
      if (texts.includes("fail")) throw new Error("chunk failed");
      return texts.map((t) => Float32Array.of(t.length));
    },
    dispose() {
      disposed = true;
      return Promise.resolve();
    },
  };
  return { backend, calls, disposed: () => disposed };
}

Deno.test("a query waits for one chunk of a running batch, not for the batch", async () => {
  // The first chunk is held until the query is queued: a 1 ms chunk could end before it is.
  const held = Promise.withResolvers<void>();
  const { backend, calls } = recording(held.promise);
  const scheduled = scheduleChunks(backend, { maxTexts: 2 });
  const batch = scheduled.embed(["b1", "b2", "b3", "b4", "b5", "b6"]);
  await until(() => calls.length === 1, "the first chunk to run");
  const queried = scheduled.embed(["query"]);
  held.resolve();
  const query = await queried;
  assert.deepEqual([...query[0]], [5]);
  assert.deepEqual(calls.slice(0, 2), [["b1", "b2"], ["query"]]);
  assert.equal((await batch).length, 6);
  assert.deepEqual(calls.slice(2), [["b3", "b4"], ["b5", "b6"]]);
});

Deno.test("chunks hold texts of similar length, within the character budget", async () => {
  const { backend, calls } = recording();
  const scheduled = scheduleChunks(backend, { maxTexts: 8, maxChars: 10 });
  const texts = ["xxxxxxxxxxxx", "a", "bb", "ccc", "dddd", "eeeeeeeeeeeeeeeeee"];
  const vectors = await scheduled.embed(texts);
  assert.deepEqual(vectors.map((v) => v[0]), texts.map((t) => t.length)); // the caller's order
  assert.deepEqual(calls, [["a", "bb", "ccc", "dddd"], ["xxxxxxxxxxxx"], ["eeeeeeeeeeeeeeeeee"]]);
});

Deno.test("an aborted call is dropped from the queue; a failed chunk fails only its call", async () => {
  const { backend, calls } = recording();
  const scheduled = scheduleChunks(backend, { maxTexts: 1 });
  const controller = new AbortController();
  const first = scheduled.embed(["one", "two"]);
  const dropped = scheduled.embed(["never", "embedded", "here"], controller.signal);
  const failing = scheduled.embed(["fail", "after"]);
  controller.abort(new Error("not needed"));
  await assert.rejects(dropped, /not needed/);
  await assert.rejects(failing, /chunk failed/);
  assert.equal((await first).length, 2);
  assert.ok(calls.every((c) => !["never", "embedded", "here"].includes(c[0])));
  await assert.rejects(scheduled.embed(["x"], AbortSignal.abort(new Error("early"))), /early/);
  assert.deepEqual(await scheduled.embed([]), []);
});

Deno.test("dispose() rejects queued calls and frees the backend", async () => {
  const recorder = recording();
  const scheduled = scheduleChunks(recorder.backend, { maxTexts: 1 });
  const queued = assert.rejects(scheduled.embed(["a", "b", "c"]), /closed/);
  await scheduled.dispose();
  await queued;
  assert.ok(recorder.disposed());
});
