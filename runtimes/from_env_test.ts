import assert from "node:assert/strict";
import { isMemoRuntimeError } from "./errors.ts";
import { createMemoMcpRuntimeFromEnv, readRuntimeEnv, runtimeFactoryFromEnv } from "./from_env.ts";

Deno.test("readRuntimeEnv() reads MEMO_RUNTIME, MEMO_ROOT_DIR and the MEMO_CLOUD_* variables", () => {
  assert.deepEqual(
    readRuntimeEnv({
      MEMO_RUNTIME: " Hybrid ",
      MEMO_ROOT_DIR: "/tmp/p",
      MEMO_CLOUD_BASE_URL: "https://cloud.example",
      MEMO_CLOUD_API_KEY: "k",
      MEMO_CLOUD_WORKSPACE_ID: "",
      MEMO_MCP_READ_ONLY: "true",
    }),
    {
      runtime: "hybrid",
      rootDir: "/tmp/p",
      cloud: {
        baseUrl: "https://cloud.example",
        apiKey: "k",
        workspaceId: undefined,
        projectId: undefined,
      },
    },
  );
  assert.equal(readRuntimeEnv({}).runtime, undefined);
});

Deno.test("readRuntimeEnv() refuses a malformed MEMO_RUNTIME with CONFIG", () => {
  assert.throws(
    () => readRuntimeEnv({ MEMO_RUNTIME: "mars" }),
    (e) =>
      isMemoRuntimeError(e, "CONFIG") &&
      e.message === "Cannot read MEMO_RUNTIME: expected local, hybrid or cloud, got mars",
  );
});

Deno.test("runtimeFactoryFromEnv() checks at once and builds later", async (t) => {
  await t.step("hybrid, and cloud without a key, are refused before anything is built", () => {
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" } }),
      (e) => isMemoRuntimeError(e, "UNAVAILABLE") && e.message.includes("hybrid runtime"),
    );
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "cloud" } }),
      (e) =>
        isMemoRuntimeError(e, "CONFIG") &&
        e.message === "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
    );
  });
  await t.step("the mode option wins over MEMO_RUNTIME", () => {
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "local" }, mode: "hybrid" }),
      (e) => isMemoRuntimeError(e, "UNAVAILABLE"),
    );
    runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" }, mode: "local" });
  });
  await t.step("rootDir wins over MEMO_ROOT_DIR, which wins over cwd", async () => {
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => Deno.makeTempDir()));
    const count = async (runtime: ReturnType<ReturnType<typeof runtimeFactoryFromEnv>>) => {
      try {
        return (await runtime.stats()).notes;
      } finally {
        await runtime.close();
      }
    };
    const seed = createMemoMcpRuntimeFromEnv({ env: {}, rootDir: a });
    await seed.remember({ text: "only in a" });
    await seed.close();
    assert.equal(
      await count(runtimeFactoryFromEnv({ env: { MEMO_ROOT_DIR: b }, rootDir: a })()),
      1,
    );
    assert.equal(await count(runtimeFactoryFromEnv({ env: { MEMO_ROOT_DIR: a }, cwd: b })()), 1);
    assert.equal(await count(runtimeFactoryFromEnv({ env: {}, cwd: a })()), 1);
    assert.equal(await count(runtimeFactoryFromEnv({ env: {}, cwd: c })()), 0);
    assert.equal(await count(runtimeFactoryFromEnv({ env: {}, cwd: c })(a)), 1);
    for (const dir of [a, b, c]) await Deno.remove(dir, { recursive: true });
  });
});
