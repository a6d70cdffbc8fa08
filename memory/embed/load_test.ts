import assert from "node:assert/strict";
import { loadEmbedder } from "./load.ts";
import type { Embedder, ModelProgress } from "./types.ts";

// The real use-lite model, loaded once in a worker for the whole file (the
// in-process tests load it once more in this thread).
const progress: ModelProgress[] = [];
const embedder = await loadEmbedder("use-lite", { onProgress: (p) => progress.push(p) });

const KEY = "The staging deploy key rotates every 90 days";
const PARAPHRASE = "how often do we change the credentials for pre-production";
const UNRELATED = [
  "I had a sandwich for lunch on the terrace",
  "The cat sleeps on the warm windowsill all afternoon",
  "Our football team won the match on Sunday",
];

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

let inProcess: Promise<Embedder> | undefined;
/** The in-process embedder, loaded at first use. */
function loadInProcess(): Promise<Embedder> {
  return inProcess ??= loadEmbedder("use-lite", { worker: false });
}

Deno.test("use-lite loads in a worker: loading then ready, 512 unit-length dimensions", async () => {
  assert.deepEqual(progress, [
    { status: "loading", progress: 0 },
    { status: "ready", progress: 100 },
  ]);
  assert.equal(embedder.model, "use-lite");
  assert.equal(embedder.dimensions, 512);
  const vectors = await embedder.embed([KEY, PARAPHRASE, ""]);
  assert.equal(vectors.length, 3);
  for (const v of vectors) {
    assert.ok(v instanceof Float32Array);
    assert.equal(v.length, 512);
    assert.equal(v.buffer.byteLength, 512 * 4); // each vector owns its buffer
    assert.ok(Math.abs(norm(v) - 1) < 1e-5, `norm ${norm(v)}`);
  }
  assert.deepEqual(await embedder.embed([]), []);
});

Deno.test("a paraphrase is nearer its note than unrelated sentences", async () => {
  const [key, paraphrase, ...others] = await embedder.embed([KEY, PARAPHRASE, ...UNRELATED]);
  const near = cosine(paraphrase, key);
  for (const [i, other] of others.entries()) {
    assert.ok(
      near > cosine(paraphrase, other),
      `${near} <= ${cosine(paraphrase, other)} for "${UNRELATED[i]}"`,
    );
  }
});

Deno.test("vectors are in order and do not depend on the batch", async () => {
  const batch = await embedder.embed([UNRELATED[0], KEY, UNRELATED[1]]);
  const [alone] = await embedder.embed([KEY]);
  for (let i = 0; i < 512; i++) assert.ok(Math.abs(batch[1][i] - alone[i]) < 1e-5);
  assert.ok(cosine(batch[0], alone) < 0.9);
});

// Before any other in-process load, so the first load of the packages is seen.
Deno.test("in-process use-lite writes nothing to the console", async () => {
  const written: string[] = [];
  const saved = { ...console };
  for (const name of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    console[name] = (...args: unknown[]) => void written.push(`${name}: ${args.join(" ")}`);
  }
  try {
    const local = await loadEmbedder("use-lite", { worker: false });
    await local.embed([KEY, PARAPHRASE]);
    await local.close?.();
  } finally {
    Object.assign(console, saved);
  }
  assert.deepEqual(written, []);
});

Deno.test("the worker and in-process paths give the same vectors", async () => {
  const local = await loadInProcess();
  assert.equal(local.dimensions, 512);
  const texts = [KEY, PARAPHRASE, UNRELATED[2], ""];
  const [a, b] = await Promise.all([embedder.embed(texts), local.embed(texts)]);
  for (let t = 0; t < texts.length; t++) {
    for (let i = 0; i < 512; i++) {
      assert.ok(Math.abs(a[t][i] - b[t][i]) < 1e-5, `text ${t}, dimension ${i}`);
    }
  }
});

Deno.test("loading twice works; close() ends the embedder", async () => {
  const second = await loadEmbedder("use-lite");
  const [v] = await second.embed([KEY]);
  const [w] = await embedder.embed([KEY]);
  assert.ok(cosine(v, w) > 0.99999);
  await second.close?.();
  await second.close?.(); // idempotent
  await assert.rejects(second.embed([KEY]), {
    code: "EMBEDDER_UNAVAILABLE",
    message: "Cannot embed with use-lite: the embedder is closed",
  });
  // The first embedder is untouched.
  assert.equal((await embedder.embed([KEY]))[0].length, 512);
});

Deno.test("an aborted signal rejects an embed and a load with its reason", async () => {
  const reason = new Error("enough");
  await assert.rejects(
    embedder.embed([KEY], { signal: AbortSignal.abort(reason) }),
    (e) => e === reason,
  );
  const controller = new AbortController();
  const pending = embedder.embed(UNRELATED, { signal: controller.signal });
  controller.abort(reason);
  await assert.rejects(pending, (e) => e === reason);
  for (const worker of [true, false]) {
    const load = new AbortController();
    const loading = loadEmbedder("use-lite", { worker, signal: load.signal });
    load.abort(reason);
    await assert.rejects(loading, (e) => e === reason);
  }
  // Still usable after an aborted call.
  assert.equal((await embedder.embed([KEY])).length, 1);
});

Deno.test("a query in the worker does not wait for a running batch", async () => {
  const batch = Array.from({ length: 24 }, (_, i) => `${UNRELATED[i % 3]} (${i})`); // 2 chunks
  let batchDone = false;
  const running = embedder.embed(batch).then((v) => {
    batchDone = true;
    return v;
  });
  const [query] = await embedder.embed([PARAPHRASE]); // served after the batch's first chunk
  assert.equal(query.length, 512);
  assert.equal(batchDone, false);
  assert.equal((await running).length, 24);
});

Deno.test("an unknown model name fails with the list of choices", async () => {
  for (const name of ["minilm", ""]) {
    await assert.rejects(loadEmbedder(name), {
      name: "EmbedderUnavailableError",
      code: "EMBEDDER_UNAVAILABLE",
      message:
        `Cannot load model ${name}: unknown model (use use-lite or a hub id such as Xenova/all-MiniLM-L6-v2)`,
    });
  }
});

Deno.test("under --deny-net, use-lite in a worker prints nothing and never holds the process", async () => {
  const script = new URL("../../tests/fixtures/embed_quiet.ts", import.meta.url).pathname;
  // "close": closes the embedder; "": forgets to, and the idle worker must not keep the process alive.
  const runs = ["close", ""].map((mode) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "--deny-net", "--allow-read", "--allow-env", "--allow-sys", script, mode],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
      signal: AbortSignal.timeout(60_000),
    }).output()
  );
  for (const { code, stdout, stderr } of await Promise.all(runs)) {
    const [out, err] = [stdout, stderr].map((b) => new TextDecoder().decode(b));
    assert.equal(code, 0, err);
    assert.equal(out, "");
    assert.equal(err, "");
  }
});

Deno.test({
  name: "close the embedders of this file",
  fn: async () => {
    await embedder.close?.();
    if (inProcess) await (await inProcess).close?.();
  },
});
