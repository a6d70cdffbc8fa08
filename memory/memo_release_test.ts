/**
 * The process-wide model is released: with the real `use-lite` model in its worker thread, and
 * Deno's op and resource sanitizers on, a client that opens, runs a vector recall and closes
 * leaves no worker, message port, timer or file behind; two clients share one model until the
 * last closes; a client opened after that loads the model again.
 */

import assert from "node:assert/strict";
import { openMemo } from "./mod.ts";
import { sharedModels } from "./vectors/_shared_embedder.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";
import { until } from "../testing/wait.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "memo-release-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

test({
  name: "open → vector recall → close leaves no worker, port or timer behind",
  async fn() {
    await withDir(async (dir) => {
      const memo = await openMemo({ rootDir: dir });
      await memo.remember({ text: "The staging deploy key rotates every 90 days" });
      await memo.remember({ text: "Lunch is at noon" });
      assert.deepEqual(sharedModels(), []); // use-lite with auto: nothing loaded yet
      const result = await memo.recallDetailed("when do credentials change", { engine: "vector" });
      assert.equal(result.engine, "vector");
      assert.deepEqual(sharedModels(), ["use-lite"]);
      await memo.close();
      assert.deepEqual(sharedModels(), []);
    });
  },
});

test({
  name: "two clients share the model until the last one closes; a later client loads it again",
  async fn() {
    await withDir(async (dir) => {
      const a = await openMemo({ rootDir: dir, embedInBackground: false });
      const b = await openMemo({ rootDir: dir, embedInBackground: false });
      await a.remember({ text: "The staging deploy key rotates every 90 days" });
      await a.embed();
      await b.embed();
      assert.equal((await b.recallDetailed("deploy key", { engine: "hybrid" })).engine, "hybrid");
      await a.close();
      // b still holds the model: its recalls go on.
      assert.deepEqual(sharedModels(), ["use-lite"]);
      const [hit] = await b.recall("credentials rotation", { engine: "vector" });
      assert.equal(hit.note.title, "The staging deploy key rotates every 90 days");
      await b.close();
      assert.deepEqual(sharedModels(), []);

      const c = await openMemo({ rootDir: dir, embedInBackground: false });
      assert.equal((await c.recallDetailed("deploy key", { engine: "vector" })).engine, "vector");
      assert.deepEqual(sharedModels(), ["use-lite"]);
      await c.close();
      assert.deepEqual(sharedModels(), []);
    });
  },
});

test({
  name: "a client closed while the model loads leaves nothing behind, and the load is not kept",
  async fn() {
    await withDir(async (dir) => {
      const memo = await openMemo({ rootDir: dir });
      await memo.remember({ text: "Deploys run with make deploy" });
      const recall = memo.recall("deploy", { engine: "vector" });
      await until(() => memo.embeddingStatus().state === "loading", "the model to start loading");
      assert.deepEqual(sharedModels(), ["use-lite"]);
      await memo.close();
      await assert.rejects(recall, { code: "EMBEDDER_UNAVAILABLE" });
      assert.deepEqual(sharedModels(), []);
    });
  },
});
