import assert from "node:assert/strict";
import { createMemoCloudHandler } from "../../cloud/app.ts";
import { FileCloudStore } from "../../cloud/file/store.ts";
import { isMemoRuntimeError } from "../errors.ts";
import { createMemoMcpRuntimeFromEnv, readRuntimeEnv, runtimeFactoryFromEnv } from "./from_env.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

test("readRuntimeEnv() reads MEMO_RUNTIME, MEMO_ROOT_DIR and the MEMO_CLOUD_* variables", () => {
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
      cloud: { baseUrl: "https://cloud.example", apiKey: "k" },
      recall: {},
    },
  );
  assert.equal(readRuntimeEnv({}).runtime, undefined);
  assert.equal(
    readRuntimeEnv({ MEMO_CLOUD_PULL_INTERVAL_MS: " 2500 " }).cloud.pullIntervalMs,
    2500,
  );
});

test("readRuntimeEnv() refuses a MEMO_CLOUD_PULL_INTERVAL_MS that is not a positive integer", () => {
  for (const value of ["0", "-5", "1.5", "10s", "ten"]) {
    assert.throws(
      () => readRuntimeEnv({ MEMO_CLOUD_PULL_INTERVAL_MS: value }),
      (e) =>
        isMemoRuntimeError(e, "CONFIG") &&
        e.message ===
          `Cannot read MEMO_CLOUD_PULL_INTERVAL_MS: expected an integer from 1 to 1000000000, got ${value}`,
    );
  }
  assert.throws(
    () => runtimeFactoryFromEnv({ env: { MEMO_CLOUD_PULL_INTERVAL_MS: "0" } }),
    (e) => isMemoRuntimeError(e, "CONFIG"),
    "refused before anything is built",
  );
});

test("readRuntimeEnv() refuses a malformed MEMO_RUNTIME with CONFIG", () => {
  assert.throws(
    () => readRuntimeEnv({ MEMO_RUNTIME: "mars" }),
    (e) =>
      isMemoRuntimeError(e, "CONFIG") &&
      e.message === "Cannot read MEMO_RUNTIME: expected local, hybrid or cloud, got mars",
  );
});

test("runtimeFactoryFromEnv() checks at once and builds later", async (t) => {
  await t.step("cloud without a key is refused before anything is built", () => {
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "cloud" } }),
      (e) =>
        isMemoRuntimeError(e, "CONFIG") &&
        e.message === "Cannot start the cloud runtime: no API key (set MEMO_CLOUD_API_KEY)",
    );
  });
  await t.step("hybrid starts without an API key or a base URL: its writes are local", async () => {
    const rootDir = await Deno.makeTempDir({ prefix: "memo-from-env-" });
    const runtime = runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" }, prewarm: false })(
      rootDir,
    );
    try {
      assert.equal(runtime.kind, "hybrid");
      assert.equal((await runtime.remember({ text: "Written while offline" })).status, "written");
      assert.equal(runtime.kind, "hybrid");
      assert.match(
        await Deno.readTextFile(`${rootDir}/.memo/memory/notes.md`),
        /Written while offline/,
      );
    } finally {
      await runtime.close();
      await Deno.remove(rootDir, { recursive: true });
    }
  });
  await t.step("the mode option wins over MEMO_RUNTIME", async () => {
    const rootDir = await Deno.makeTempDir({ prefix: "memo-from-env-" });
    const hybrid = runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "local" }, mode: "hybrid" })(
      rootDir,
    );
    assert.equal(hybrid.kind, "hybrid");
    await hybrid.close();
    const local = runtimeFactoryFromEnv({ env: { MEMO_RUNTIME: "hybrid" }, mode: "local" })(
      rootDir,
    );
    assert.equal(local.kind, "local");
    assert.equal(local.replicate, undefined);
    await local.close();
    await Deno.remove(rootDir, { recursive: true });
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

test("runtimeFactoryFromEnv() takes the runtime and the cloud block from .memo/config.json", async (t) => {
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

test("runtimeFactoryFromEnv() refuses an API key, or a bad value, in .memo/config.json", async () => {
  const cases: [unknown, RegExp][] = [
    [
      { runtime: "cloud", cloud: { baseUrl: "http://x.example", apiKey: "mk_IN_FILE_123" } },
      /^Cannot read \.memo\/config\.json: cloud\.apiKey is refused: the API key comes only from MEMO_CLOUD_API_KEY/,
    ],
    [{ runtime: "mars" }, /runtime must be local, hybrid or cloud/],
    [{ cloud: { baseURL: "http://x.example" } }, /cloud\.baseURL is not a setting/],
    [{ cloud: { timeoutMs: -1 } }, /cloud\.timeoutMs must be an integer from 1 to 1000000000/],
    [{ cloud: { pullIntervalMs: 0 } }, /cloud\.pullIntervalMs must be an integer from 1 to/],
    [{ cloud: { timeoutMs: 2 ** 31 } }, /cloud\.timeoutMs must be an integer from 1 to/],
    [
      { runtime: "hybrid", recall: { includeCloud: "yes" } },
      /^Cannot read \.memo\/config\.json: recall\.includeCloud must be true or false$/,
    ],
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

test("runtimeFactoryFromEnv() with MEMO_RUNTIME=cloud uses the MEMO_CLOUD_* variables and writes no notes", async () => {
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

test("runtimeFactoryFromEnv() builds the hybrid runtime from .memo/config.json, MEMO_* variables winning", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-from-env-cloud-" });
  const store = new FileCloudStore({ dataDir });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: new Map([["mk_HYBRID_from_env_0123", "team"]]),
    rateLimit: 0,
  });
  const requests: string[] = [];
  const fetch = (input: Request | URL | string, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    requests.push(`${request.method} ${url.host}${url.pathname}`);
    return handler(request);
  };
  const rootDir = await projectWith({
    runtime: "hybrid",
    cloud: {
      baseUrl: "http://file.example:8788",
      projectId: "fromfile",
      pullIntervalMs: 600_000,
      retry: { maxRetries: 0 },
    },
    recall: { includeCloud: true, engine: "lexical" },
  });
  const runtime = runtimeFactoryFromEnv({
    env: { MEMO_CLOUD_API_KEY: "mk_HYBRID_from_env_0123", MEMO_CLOUD_PULL_INTERVAL_MS: "40" },
    cloud: { fetch },
  })(rootDir);
  const count = (pattern: RegExp) => requests.filter((r) => pattern.test(r)).length;
  try {
    await runtime.remember({ text: "Hybrid notes reach the cloud" });
    assert.equal(runtime.kind, "hybrid", "the file's runtime");
    // MEMO_CLOUD_PULL_INTERVAL_MS (40 ms) wins over the file's 600000: several pulls in a second.
    await until(() =>
      count(/^GET file\.example:8788\/v1\/workspaces\/team\/projects\/fromfile\/changes$/) >= 3
    );
    // The note was pushed to the file's base URL and project.
    await until(async () => (await (await store.project("team", "fromfile")).stats()).notes === 1);
    // recall.includeCloud from the file: recall also asks the cloud.
    await runtime.recall("cloud", { limit: 5 });
    assert.ok(
      count(/^POST file\.example:8788\/v1\/workspaces\/team\/projects\/fromfile\/recall$/) >= 1,
    );
  } finally {
    await runtime.close();
    await store.close();
    await Deno.remove(rootDir, { recursive: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** Waits until `check` holds (polling every 10 ms); fails only a stuck test, after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("Cannot wait any longer: the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The recall settings a runtime ended up with, as its stats show them. */
async function recallSettingsOf(
  options: Parameters<typeof runtimeFactoryFromEnv>[0],
  rootDir: string,
) {
  const runtime = runtimeFactoryFromEnv({
    prewarm: false,
    embedInBackground: false,
    ...options,
  })(rootDir);
  try {
    const { engine, embeddings } = await runtime.stats();
    return {
      engine: engine.default,
      embeddingModel: embeddings.model,
      localEmbeddings: embeddings.state !== "off",
    };
  } finally {
    await runtime.close();
  }
}

test("runtimeFactoryFromEnv() recall settings: code > MEMO_* variables > .memo/config.json > defaults", async (t) => {
  // One row per key: the file's value, the variable and its value, the code's value.
  const rows = [
    {
      key: "engine",
      variable: "MEMO_RECALL_ENGINE",
      file: "lexical",
      env: "hybrid",
      code: "vector",
      fallback: "auto",
    },
    {
      key: "embeddingModel",
      variable: "MEMO_EMBEDDING_MODEL",
      file: "Xenova/from-file",
      env: "Xenova/from-env",
      code: "Xenova/from-code",
      fallback: "use-lite",
    },
    {
      key: "localEmbeddings",
      variable: "MEMO_LOCAL_EMBEDDINGS",
      file: false,
      env: "true",
      code: false,
      fallback: true,
    },
  ] as const;
  for (const mode of [undefined, "local", "hybrid"] as const) {
    for (const row of rows) {
      await t.step(`${row.key}, ${mode ?? "runtime from the file"}`, async () => {
        const envValue = row.key === "localEmbeddings" ? row.env === "true" : row.env;
        const runtimeKey = mode === "hybrid" ? { runtime: "hybrid" } : {};
        const bare = await projectWith({ ...runtimeKey });
        const filed = await projectWith({ ...runtimeKey, recall: { [row.key]: row.file } });
        const common = { mode, cloud: { baseUrl: "http://127.0.0.1:9", pullIntervalMs: 600_000 } };
        try {
          const seen = [
            await recallSettingsOf({ ...common, env: {} }, bare),
            await recallSettingsOf({ ...common, env: {} }, filed),
            await recallSettingsOf({ ...common, env: { [row.variable]: String(row.env) } }, filed),
            await recallSettingsOf({
              ...common,
              env: { [row.variable]: String(row.env) },
              recall: { [row.key]: row.code },
            }, filed),
          ].map((s) => s[row.key]);
          assert.deepEqual(seen, [row.fallback, row.file, envValue, row.code]);
        } finally {
          await Deno.remove(bare, { recursive: true });
          await Deno.remove(filed, { recursive: true });
        }
      });
    }
  }
});

test("runtimeFactoryFromEnv() refuses bad recall settings, naming where they come from", async (t) => {
  await t.step("a malformed variable throws at once", () => {
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_RECALL_ENGINE: "semantic" } }),
      (e) =>
        isMemoRuntimeError(e, "CONFIG") &&
        e.message ===
          "Cannot read MEMO_RECALL_ENGINE: expected lexical, vector, hybrid or auto, got semantic",
    );
    assert.throws(
      () => runtimeFactoryFromEnv({ env: { MEMO_LOCAL_EMBEDDINGS: "sometimes" } }),
      (e) =>
        isMemoRuntimeError(e, "CONFIG") &&
        e.message === "Cannot read MEMO_LOCAL_EMBEDDINGS: expected true or false",
    );
  });
  await t.step(
    "vector or hybrid without local embeddings, in code or variables, throws at once",
    () => {
      for (const mode of ["local", "hybrid"] as const) {
        assert.throws(
          () =>
            runtimeFactoryFromEnv({
              env: { MEMO_RECALL_ENGINE: "vector", MEMO_LOCAL_EMBEDDINGS: "false" },
              mode,
            }),
          (e) =>
            isMemoRuntimeError(e, "CONFIG") && /the vector engine needs embeddings/.test(e.message),
        );
        assert.throws(
          () =>
            runtimeFactoryFromEnv({
              env: { MEMO_LOCAL_EMBEDDINGS: "false" },
              recall: { engine: "hybrid" },
              mode,
            }),
          (e) =>
            isMemoRuntimeError(e, "CONFIG") && /the hybrid engine needs embeddings/.test(e.message),
        );
      }
    },
  );
  await t.step("the cloud runtime ignores the local recall settings", async () => {
    const runtime = runtimeFactoryFromEnv({
      env: { MEMO_RUNTIME: "cloud", MEMO_CLOUD_API_KEY: "k", MEMO_RECALL_ENGINE: "hybrid" },
      cloud: { baseUrl: "http://127.0.0.1:9" },
      prewarm: false,
    })();
    assert.equal(runtime.kind, "cloud");
    await runtime.close();
  });
  const cases: [unknown, Record<string, string>, RegExp][] = [
    [
      { recall: { engine: "semantic" } },
      {},
      /recall\.engine must be lexical, vector, hybrid or auto/,
    ],
    [{ recall: { embeddingModel: "" } }, {}, /recall\.embeddingModel must be a non-empty string/],
    [{ recall: { localEmbeddings: "no" } }, {}, /recall\.localEmbeddings must be true or false/],
    [{ recall: { model: "use-lite" } }, {}, /recall\.model is not a setting \(use engine, /],
    [{ recall: "auto" }, {}, /recall must be an object/],
    // The layers together: the file's engine, the variable's localEmbeddings.
    [{ recall: { engine: "vector" } }, { MEMO_LOCAL_EMBEDDINGS: "false" }, /vector engine needs/],
    [{ recall: { engine: "hybrid", localEmbeddings: false } }, {}, /hybrid engine needs/],
  ];
  for (const mode of ["local", undefined] as const) {
    for (const [config, env, message] of cases) {
      await t.step(
        `${JSON.stringify(config)} ${JSON.stringify(env)} (${mode ?? "file"})`,
        async () => {
          const rootDir = await projectWith(config);
          const runtime = runtimeFactoryFromEnv({ env, mode, prewarm: false })(rootDir);
          try {
            const e = await runtime.stats().catch((e) => e);
            assert.ok(isMemoRuntimeError(e, "CONFIG"), String(e));
            assert.match(e.message, message);
          } finally {
            await runtime.close();
            await Deno.remove(rootDir, { recursive: true });
          }
        },
      );
    }
  }
});

test("runtimeFactoryFromEnv() local: .memo/config.json is read at the first call, not when building", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-from-env-" });
  try {
    const runtime = runtimeFactoryFromEnv({
      env: { MEMO_RUNTIME: "local" },
      prewarm: false,
      embedInBackground: false,
    })(rootDir);
    // Written after the runtime was built: the first call still sees it.
    await Deno.mkdir(`${rootDir}/.memo`);
    await Deno.writeTextFile(
      `${rootDir}/.memo/config.json`,
      JSON.stringify({ recall: { engine: "lexical" } }),
    );
    assert.equal((await runtime.stats()).engine.default, "lexical");
    assert.equal(runtime.replicate, undefined, "the local runtime itself, not a deferred one");
    await runtime.close();
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});
