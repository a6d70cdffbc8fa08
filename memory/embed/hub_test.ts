import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned (the library imports it by a variable)
import * as transformers from "npm:@huggingface/transformers@4.3.1";
import { loadEmbedder } from "./load.ts";
import { loadHub } from "./_hub.ts";
import type { ModelProgress } from "./types.ts";

// Nothing in this file may reach huggingface.co: every load below points
// transformers.js at a loopback fake hub, and this thread's default is a
// closed port too.
const cacheDir = await Deno.makeTempDir({ prefix: "memo-hub-" });
transformers.env.remoteHost = "http://127.0.0.1:9/";
transformers.env.allowLocalModels = false;
transformers.env.cacheDir = cacheDir;

/**
 * A fake hub on 127.0.0.1: it serves a `config.json` for "fake/tiny-bert" and
 * answers `status` for every other file, as the real hub answers 404 for a
 * missing repository or file.
 */
function fakeHub(status: number) {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    requests.push(path);
    if (path === "/fake/tiny-bert/resolve/main/config.json") {
      return Response.json({ model_type: "bert", architectures: ["BertModel"], hidden_size: 8 });
    }
    return new Response(status === 404 ? "Entry not found" : "busy", { status });
  });
  const host = `http://127.0.0.1:${server.addr.port}/`;
  return { host, requests, close: () => server.shutdown() };
}

Deno.test("a missing @huggingface/transformers asks to install it", async () => {
  const notFound = Object.assign(
    new Error("Cannot find package '@huggingface/transformers' imported from /app/x.js"),
    { code: "ERR_MODULE_NOT_FOUND" },
  );
  for (const error of [notFound, new TypeError("Could not find npm package")]) {
    await assert.rejects(
      loadHub("Xenova/all-MiniLM-L6-v2", () => {}, { importModule: () => Promise.reject(error) }),
      {
        name: "EmbedderUnavailableError",
        code: "EMBEDDER_UNAVAILABLE",
        message: "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers",
      },
    );
  }
  await assert.rejects(
    loadHub("Xenova/all-MiniLM-L6-v2", () => {}, {
      importModule: () => Promise.reject(new Error("libonnxruntime.so: cannot open shared object")),
    }),
    {
      message:
        "Cannot load model Xenova/all-MiniLM-L6-v2: could not load @huggingface/transformers (libonnxruntime.so: cannot open shared object)",
    },
  );
});

for (const worker of [false, true]) {
  const where = worker ? "in a worker" : "in process";

  Deno.test(`a hub model that the hub does not have fails clearly (404, ${where})`, async () => {
    const hub = fakeHub(404);
    const progress: ModelProgress[] = [];
    try {
      await assert.rejects(
        loadEmbedder("nobody/missing-model", {
          worker,
          hubEnv: { remoteHost: hub.host, cacheDir },
          onProgress: (p) => progress.push(p),
        }),
        {
          name: "EmbedderUnavailableError",
          code: "EMBEDDER_UNAVAILABLE",
          message:
            `Cannot load model nobody/missing-model: could not fetch its files (Could not locate file: "${hub.host}nobody/missing-model/resolve/main/config.json")`,
        },
      );
      assert.deepEqual(hub.requests, ["/nobody/missing-model/resolve/main/config.json"]);
      assert.deepEqual(progress, []); // transformers.js reports nothing before its first fetch
    } finally {
      await hub.close();
    }
  });

  Deno.test(`a hub that is down fails clearly (503, ${where})`, async () => {
    const hub = fakeHub(503);
    try {
      await assert.rejects(
        loadEmbedder("nobody/missing-model", {
          worker,
          hubEnv: { remoteHost: hub.host, cacheDir },
        }),
        {
          code: "EMBEDDER_UNAVAILABLE",
          message:
            `Cannot load model nobody/missing-model: could not fetch its files (Service unavailable error occurred while trying to load file: "${hub.host}nobody/missing-model/resolve/main/config.json")`,
        },
      );
    } finally {
      await hub.close();
    }
  });

  Deno.test(`a model whose weights are missing fails after progress events (${where})`, async () => {
    const hub = fakeHub(404);
    const progress: ModelProgress[] = [];
    try {
      await assert.rejects(
        loadEmbedder("fake/tiny-bert", {
          worker,
          hubEnv: { remoteHost: hub.host, cacheDir },
          onProgress: (p) => progress.push(p),
        }),
        {
          code: "EMBEDDER_UNAVAILABLE",
          message:
            `Cannot load model fake/tiny-bert: could not fetch its files (Could not locate file: "${hub.host}fake/tiny-bert/resolve/main/onnx/model.onnx")`,
        },
      );
      assert.ok(hub.requests.every((p) => p.startsWith("/fake/tiny-bert/resolve/main/")));
      // transformers.js' own events, in the spec's shape.
      assert.deepEqual(progress[0], { status: "initiate", progress: 0, file: "config.json" });
      assert.ok(progress.some((p) => p.status === "done" && p.file === "config.json"));
      assert.deepEqual(progress.at(-1), {
        status: "initiate",
        progress: 0,
        file: "onnx/model.onnx",
      });
      for (const p of progress) {
        assert.equal(typeof p.status, "string");
        assert.ok(p.progress >= 0 && p.progress <= 100, JSON.stringify(p));
      }
    } finally {
      await hub.close();
    }
  });
}

Deno.test("a hub that cannot be reached fails clearly", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  await assert.rejects(
    loadEmbedder("nobody/missing-model", {
      worker: false,
      hubEnv: { remoteHost: `http://127.0.0.1:${port}`, cacheDir },
    }),
    {
      code: "EMBEDDER_UNAVAILABLE",
      message:
        /^Cannot load model nobody\/missing-model: could not fetch its files \(fetch failed: .*Connection refused/,
    },
  );
});

Deno.test({
  name: "remove the hub cache of this file",
  fn: () => Deno.remove(cacheDir, { recursive: true }),
});
