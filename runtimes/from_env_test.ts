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

/** A project folder whose .memo/config.json holds `config` (raw text when a string). */
async function projectWith(config: unknown): Promise<string> {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-from-env-" });
  await Deno.mkdir(`${rootDir}/.memo`);
  await Deno.writeTextFile(
    `${rootDir}/.memo/config.json`,
    typeof config === "string" ? config : JSON.stringify(config),
  );
  return rootDir;
}

/** A Cloud API stand-in that records the URLs it is asked for. */
function fakeCloud() {
  const urls: string[] = [];
  const fetch = (input: Request | URL | string) => {
    urls.push(String(input));
    return Promise.resolve(
      String(input).endsWith("/whoami")
        ? Response.json({ workspaceId: "team" })
        : Response.json({ notes: 3, labels: {}, sources: {}, revision: 3 }),
    );
  };
  return { urls, fetch };
}

Deno.test("runtimeFactoryFromEnv() takes the runtime and the cloud block from .memo/config.json", async (t) => {
  const rootDir = await projectWith({
    runtime: "cloud",
    cloud: {
      baseUrl: "http://file.example:8788",
      projectId: "fromfile",
      timeoutMs: 5000,
      retry: { maxRetries: 1 },
      pullIntervalMs: 10000,
    },
    connectors: [],
  });
  try {
    await t.step("the file selects the cloud and fills what nothing else sets", async () => {
      const cloud = fakeCloud();
      const runtime = runtimeFactoryFromEnv({
        env: { MEMO_CLOUD_API_KEY: "k" },
        cloud: { fetch: cloud.fetch },
        prewarm: false,
      })(rootDir);
      assert.equal((await runtime.stats()).notes, 3);
      assert.equal(runtime.kind, "cloud");
      assert.deepEqual(cloud.urls, [
        "http://file.example:8788/v1/whoami",
        "http://file.example:8788/v1/workspaces/team/projects/fromfile/stats",
      ]);
      await runtime.close();
    });
    await t.step("MEMO_* variables win over the file, code options over both", async () => {
      const cloud = fakeCloud();
      const env = {
        MEMO_CLOUD_API_KEY: "k",
        MEMO_CLOUD_BASE_URL: "http://env.example",
        MEMO_CLOUD_PROJECT_ID: "fromenv",
      };
      const runtime = runtimeFactoryFromEnv({
        env,
        cloud: { fetch: cloud.fetch, projectId: "fromcode" },
        rootDir,
      })();
      await runtime.stats();
      assert.deepEqual(cloud.urls, [
        "http://env.example/v1/whoami",
        "http://env.example/v1/workspaces/team/projects/fromcode/stats",
      ]);
      await runtime.close();
    });
    await t.step("MEMO_RUNTIME=local wins over the file's runtime", async () => {
      const runtime = runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "local" }, rootDir })();
      assert.equal(runtime.kind, "local");
      assert.equal((await runtime.stats()).notes, 0);
      await runtime.close();
    });
    await t.step("the file's cloud runtime without a key fails each call with CONFIG", async () => {
      const runtime = runtimeFactoryFromEnv({ env: {}, rootDir, prewarm: false })();
      await assert.rejects(
        runtime.stats(),
        (e) =>
          isMemoRuntimeError(e, "CONFIG") &&
          e.message === "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
      );
      await runtime.close();
    });
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("runtimeFactoryFromEnv() refuses an API key, or a bad value, in .memo/config.json", async () => {
  const cases: [unknown, RegExp][] = [
    [
      { runtime: "cloud", cloud: { baseUrl: "http://x.example", apiKey: "mk_IN_FILE_123" } },
      /^Cannot read \.memo\/config\.json: cloud\.apiKey is refused: the API key comes only from MEMO_CLOUD_API_KEY/,
    ],
    [{ runtime: "mars" }, /runtime must be local, hybrid or cloud/],
    [{ cloud: { baseURL: "http://x.example" } }, /cloud\.baseURL is not a setting/],
    [{ cloud: { timeoutMs: -1 } }, /cloud\.timeoutMs must be a positive integer/],
    ["{ not json", /^Cannot read \.memo\/config\.json: it is not valid JSON$/],
  ];
  for (const [config, message] of cases) {
    const rootDir = await projectWith(config);
    const runtime = createMemoMcpRuntimeFromEnv({
      env: { MEMO_CLOUD_API_KEY: "k" },
      rootDir,
      prewarm: false,
    });
    try {
      const e = await runtime.stats().catch((e) => e);
      assert.ok(isMemoRuntimeError(e, "CONFIG"), String(e));
      assert.match(e.message, message);
      assert.ok(!e.message.includes("mk_IN_FILE_123"));
    } finally {
      await runtime.close();
      await Deno.remove(rootDir, { recursive: true });
    }
  }
});

Deno.test("runtimeFactoryFromEnv() with MEMO_RUNTIME=cloud uses the MEMO_CLOUD_* variables and writes no notes", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-from-env-" });
  const cloud = fakeCloud();
  const runtime = createMemoMcpRuntimeFromEnv({
    env: {
      MEMO_RUNTIME: "cloud",
      MEMO_CLOUD_BASE_URL: "http://127.0.0.1:8788",
      MEMO_CLOUD_API_KEY: "k",
      MEMO_CLOUD_WORKSPACE_ID: "team",
    },
    cloud: { fetch: cloud.fetch },
    rootDir,
  });
  try {
    assert.equal(runtime.kind, "cloud");
    assert.equal((await runtime.stats()).notes, 3);
    assert.deepEqual([...Deno.readDirSync(rootDir)], [], "nothing under the project folder");
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
