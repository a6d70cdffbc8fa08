import assert from "node:assert/strict";
import { openWorkerBackend } from "./_thread.ts";
import type { ModelProgress } from "./types.ts";

const dying = new URL("../../tests/fixtures/embed_dying_worker.ts", import.meta.url);

// Deno prints the worker's uncaught "expected crash of the test worker" to stderr.
Deno.test("a worker that throws rejects the pending request with a clear error", async () => {
  const progress: ModelProgress[] = [];
  const backend = await openWorkerBackend(
    { model: "throw" },
    (p) => progress.push(p),
    undefined,
    dying,
  );
  assert.equal(backend.dimensions, 4);
  assert.deepEqual(progress, [{ status: "loading", progress: 0 }]);
  await assert.rejects(backend.embed(["a"]), {
    code: "EMBEDDER_UNAVAILABLE",
    message:
      /^Cannot embed with throw: the embedding worker failed \(.*expected crash of the test worker/,
  });
  // Later calls fail the same way, at once.
  await assert.rejects(backend.embed(["b"]), /the embedding worker failed/);
  await backend.dispose();
});

Deno.test("a worker that exits rejects the pending request with its exit code", async () => {
  const backend = await openWorkerBackend({ model: "exit" }, () => {}, undefined, dying);
  await assert.rejects(backend.embed(["a"]), {
    code: "EMBEDDER_UNAVAILABLE",
    message: "Cannot embed with exit: the embedding worker stopped (exit code 3)",
  });
  await backend.dispose();
});

Deno.test("dispose() rejects pending requests and later ones", async () => {
  const backend = await openWorkerBackend({ model: "hang" }, () => {}, undefined, dying);
  const pending = assert.rejects(backend.embed(["never answered"]), {
    message: "Cannot embed with hang: the embedder is closed",
  });
  await backend.dispose();
  await pending;
  await assert.rejects(backend.embed(["x"]), /the embedder is closed/);
});

Deno.test("an aborted load terminates the worker and rejects with the reason", async () => {
  const controller = new AbortController();
  const loading = openWorkerBackend({ model: "use-lite" }, () => {}, controller.signal);
  const reason = new Error("stop loading");
  controller.abort(reason);
  await assert.rejects(loading, (e) => e === reason);
  assert.throws(
    () => openWorkerBackend({ model: "use-lite" }, () => {}, controller.signal),
    (e) => e === reason,
  );
});
