import assert from "node:assert/strict";
import { createDeferredRuntime } from "./deferred.ts";
import { createFakeRuntime } from "../../tests/fixtures/mcp_fake_runtime.ts";
import { isMemoRuntimeError } from "../errors.ts";
import { createMemoMcpRuntimeFromConfig } from "../factory.ts";
import type { ReplicateOptions, RuntimeChange } from "../types.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

test("createDeferredRuntime() builds at the first call, once, and forwards", async () => {
  let builds = 0;
  const inner = createFakeRuntime(3);
  const runtime = createDeferredRuntime("local", () => {
    builds++;
    return Promise.resolve(inner);
  });
  assert.equal(runtime.kind, "local");
  assert.equal(builds, 0, "nothing is built before a call");
  const [a, b] = await Promise.all([runtime.stats(), runtime.list({ limit: 2 })]);
  assert.equal(a.notes, 3);
  assert.equal(b.notes.length, 2);
  assert.equal(builds, 1);
  await runtime.close();
});

test("createDeferredRuntime() reports a failed build and tries again", async () => {
  let attempt = 0;
  const runtime = createDeferredRuntime("local", () => {
    attempt++;
    return attempt === 1
      ? Promise.reject(new Error("no disk"))
      : Promise.resolve(createFakeRuntime(1));
  });
  await assert.rejects(runtime.stats(), /no disk/);
  assert.equal((await runtime.stats()).notes, 1);
  await runtime.close();
});

test("createDeferredRuntime() close() skips an unbuilt runtime, then refuses calls", async () => {
  let builds = 0;
  const runtime = createDeferredRuntime("local", () => {
    builds++;
    return Promise.resolve(createFakeRuntime(0));
  });
  await runtime.close();
  assert.equal(builds, 0);
  await assert.rejects(runtime.stats(), /runtime is closed/);
});

test("createDeferredRuntime() watch() builds the runtime, then forwards its changes", async () => {
  let builds = 0;
  const inner = createFakeRuntime(0);
  const runtime = createDeferredRuntime("local", () => {
    builds++;
    return Promise.resolve(inner);
  });
  const seen: RuntimeChange[] = [];
  const stop = runtime.watch!((change) => void seen.push(change));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(builds, 1, "a listener wants live data: watching starts the build");
  const { note } = await runtime.remember({ text: "one" }); // through the deferred runtime
  assert.equal(builds, 1);
  inner.emitChange({ ids: ["x1"], listChanged: false }); // e.g. another process's write
  assert.deepEqual(seen, [{ ids: [note.id], listChanged: true }, {
    ids: ["x1"],
    listChanged: false,
  }]);
  assert.equal(inner.watchers, 1);
  stop();
  assert.equal(inner.watchers, 0, "unsubscribing reaches the built runtime");
  inner.emitChange({ ids: ["x2"], listChanged: true });
  assert.equal(seen.length, 2);
  await runtime.close();
});

test("createDeferredRuntime() watch() before the build attaches once the build is done", async () => {
  let attempt = 0;
  const inner = createFakeRuntime(0);
  const runtime = createDeferredRuntime("local", () => {
    attempt++;
    return attempt === 1 ? Promise.reject(new Error("no disk")) : Promise.resolve(inner);
  });
  const seen: RuntimeChange[] = [];
  runtime.watch!((change) => void seen.push(change)); // starts the build, which fails
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(attempt, 1);
  assert.equal((await runtime.stats()).notes, 0); // the next call builds again
  assert.equal(inner.watchers, 1, "the listener is attached to the runtime built");
  inner.emitChange({ ids: ["x1"], listChanged: true });
  assert.deepEqual(seen, [{ ids: ["x1"], listChanged: true }]);
  await runtime.close();
  assert.equal(inner.watchers, 0, "close() releases the listeners");
  assert.throws(() => runtime.watch!(() => {}), { code: "UNAVAILABLE" });
});

test("createDeferredRuntime() watch() then close() before the build leaves nothing attached", async () => {
  const inner = createFakeRuntime(0);
  const built = Promise.withResolvers<typeof inner>();
  const runtime = createDeferredRuntime("local", () => built.promise);
  runtime.watch!(() => {});
  await new Promise((resolve) => setTimeout(resolve, 0)); // the build is under way
  const closing = runtime.close();
  built.resolve(inner);
  await closing;
  assert.equal(inner.watchers, 0);
  assert.equal(inner.closed, true, "the runtime built meanwhile is closed");
});

test("createDeferredRuntime() replicate() forwards to a built runtime that has it, else refuses", async () => {
  const result = { pushed: 2, pulled: 1, conflicts: 0, outbox: 0 };
  const seen: unknown[] = [];
  const hybrid = createDeferredRuntime("hybrid", () =>
    Promise.resolve({
      ...createFakeRuntime(0),
      kind: "hybrid" as const,
      replicate: (options?: ReplicateOptions) => {
        options?.onProgress?.({ phase: "push", done: 2, total: 2 });
        return Promise.resolve(result);
      },
    }));
  assert.deepEqual(await hybrid.replicate({ onProgress: (p) => seen.push(p) }), result);
  assert.deepEqual(seen, [{ phase: "push", done: 2, total: 2 }]);
  await hybrid.close();

  const local = createDeferredRuntime("local", () => Promise.resolve(createFakeRuntime(0)));
  assert.equal(typeof local.replicate, "function", "callable before the build");
  await assert.rejects(
    local.replicate(),
    (e) =>
      isMemoRuntimeError(e, "UNAVAILABLE") &&
      e.message === "Cannot replicate: replicate needs the hybrid runtime",
  );
  // A deferred runtime around a deferred runtime (memo mcp) forwards the same refusal.
  const outer = createDeferredRuntime("local", () => Promise.resolve(local));
  await assert.rejects(outer.replicate(), { code: "UNAVAILABLE" });
  await outer.close();
});

test("createDeferredRuntime() rememberMany() and forgetMany() forward when the runtime has them, else refuse", async () => {
  const rootDir = await Deno.makeTempDir();
  const local = createDeferredRuntime(
    "local",
    () => Promise.resolve(createMemoMcpRuntimeFromConfig({ rootDir })),
  );
  try {
    const { written } = await local.rememberMany([{ text: "one" }, { text: "two" }]);
    assert.equal(written.length, 2);
    const forgotten = await local.forgetMany([written[0].id]);
    assert.deepEqual(forgotten.map((n) => n.id), [written[0].id]);
    assert.equal((await local.stats()).notes, 1);
  } finally {
    await local.close();
    await Deno.remove(rootDir, { recursive: true });
  }
  const bare = createDeferredRuntime("local", () => Promise.resolve(createFakeRuntime(0)));
  await assert.rejects(
    bare.rememberMany([{ text: "one" }]),
    (e) => isMemoRuntimeError(e, "UNAVAILABLE") && /one batch/.test(e.message),
  );
  await assert.rejects(bare.forgetMany(["a"]), { code: "UNAVAILABLE" });
  await bare.close();
});
