import assert from "node:assert/strict";
import { createDeferredRuntime } from "./deferred.ts";
import { createFakeRuntime } from "../tests/fixtures/mcp_fake_runtime.ts";

Deno.test("createDeferredRuntime() builds at the first call, once, and forwards", async () => {
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

Deno.test("createDeferredRuntime() reports a failed build and tries again", async () => {
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

Deno.test("createDeferredRuntime() close() skips an unbuilt runtime, then refuses calls", async () => {
  let builds = 0;
  const runtime = createDeferredRuntime("local", () => {
    builds++;
    return Promise.resolve(createFakeRuntime(0));
  });
  await runtime.close();
  assert.equal(builds, 0);
  await assert.rejects(runtime.stats(), /runtime is closed/);
});
