import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openMemo } from "@memo/memory";
import { createMemoCloudMcpRuntime } from "./cloud/runtime.ts";
import { isMemoRuntimeError, type MemoRuntimeErrorCode } from "./errors.ts";
import { createMemoMcpRuntimeFromConfig } from "./factory.ts";
import { createLazyLocalRuntime, createMemoMcpRuntimeFromMemo } from "./local/runtime.ts";
import type { RuntimeChange } from "./types.ts";
import { sanitizedTest as test } from "../testing/sanitized.ts";
import { pageCounter } from "../testing/pages.ts";

/** An assert.throws/rejects check: a MemoRuntimeError with this code (and message). */
const runtimeError = (code: MemoRuntimeErrorCode, message?: RegExp) => (e: unknown) =>
  isMemoRuntimeError(e, code) && (message === undefined || message.test(e.message));

test("createMemoMcpRuntimeFromConfig() builds the hybrid runtime from cloud, with the local recall checks", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-hybrid-" });
  const seen: string[] = [];
  const fetch = (input: Request | URL | string) => {
    seen.push(String(input));
    return Promise.reject(new TypeError("connection refused"));
  };
  const runtime = createMemoMcpRuntimeFromConfig({
    mode: "hybrid",
    rootDir,
    workspaceId: "team",
    cloud: {
      baseUrl: "https://x.example",
      apiKey: "mk_factory_KEY_123",
      fetch,
      pullIntervalMs: 60_000,
      retry: { maxRetries: 0 },
    },
    recall: { engine: "lexical", includeCloud: false },
    prewarm: false,
  });
  try {
    assert.equal(runtime.kind, "hybrid");
    assert.equal(typeof runtime.replicate, "function");
    const { status } = await runtime.remember({ text: "Hybrid writes are local first" });
    assert.equal(status, "written");
    assert.match(
      await Deno.readTextFile(join(rootDir, ".memo", "memory", "notes.md")),
      /Hybrid writes are local first/,
    );
    assert.equal((await runtime.stats()).engine.default, "lexical");
    // replicate() goes through the cloud settings given (here: a cloud that refuses).
    await assert.rejects(runtime.replicate!(), (e: Error) => {
      assert.equal(e.name, "MemoCloudError");
      assert.ok(!e.message.includes("mk_factory_KEY_123"));
      return true;
    });
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
  assert.ok(seen.length > 0, "the fetch given in cloud was used");
  assert.ok(seen.every((url) => url.startsWith("https://x.example/")), seen.join(", "));
  assert.throws(
    () =>
      createMemoMcpRuntimeFromConfig({
        mode: "hybrid",
        recall: { engine: "vector", localEmbeddings: false },
      }),
    runtimeError("CONFIG", /the vector engine needs embeddings/),
  );
});

test("createMemoMcpRuntimeFromConfig() builds the cloud runtime from cloud, refusing settings that cannot work", async () => {
  const seen: string[] = [];
  const fetch = (input: Request | URL | string) => {
    seen.push(new URL(String(input)).pathname);
    return Promise.resolve(
      String(input).endsWith("/whoami")
        ? Response.json({ workspaceId: "team" })
        : Response.json({ notes: 2, labels: {}, sources: {}, revision: 7 }),
    );
  };
  const runtime = createMemoMcpRuntimeFromConfig({
    mode: "cloud",
    projectId: "handbook",
    cloud: { baseUrl: "https://x.example/v1/", apiKey: "k", fetch, projectId: "ignored" },
  });
  try {
    assert.equal(runtime.kind, "cloud");
    assert.equal((await runtime.stats()).notes, 2);
    assert.deepEqual(seen, ["/v1/whoami", "/v1/workspaces/team/projects/handbook/stats"]);
  } finally {
    await runtime.close();
  }
  assert.throws(
    () =>
      createMemoMcpRuntimeFromConfig({ mode: "cloud", cloud: { baseUrl: "https://x.example" } }),
    runtimeError(
      "CONFIG",
      /^Cannot start the cloud runtime: no API key \(set MEMO_CLOUD_API_KEY\)$/,
    ),
  );
  assert.throws(
    () => createMemoCloudMcpRuntime({ apiKey: "k" }),
    runtimeError("CONFIG", /^Cannot start the cloud runtime: no base URL/),
  );
  assert.throws(
    () =>
      createMemoCloudMcpRuntime({ baseUrl: "https://x.example", apiKey: "k", projectId: "A B" }),
    runtimeError("CONFIG", /projectId must be 1 to 64 lowercase letters/),
  );
});

test("createMemoMcpRuntimeFromConfig() refuses a configuration that cannot work, at construction", async (t) => {
  const cases: [string, Parameters<typeof createMemoMcpRuntimeFromConfig>[0], RegExp][] = [
    [
      "an unknown mode",
      // deno-lint-ignore no-explicit-any
      { mode: "nope" as any },
      /unknown mode "nope" \(use local, hybrid or cloud\)/,
    ],
    [
      "an unknown engine",
      // deno-lint-ignore no-explicit-any
      { recall: { engine: "bm42" as any } },
      /unknown recall engine "bm42" \(use auto, lexical, vector, hybrid\)/,
    ],
    [
      "vector without local embeddings",
      { recall: { engine: "vector", localEmbeddings: false } },
      /the vector engine needs embeddings, but recall.localEmbeddings is false/,
    ],
    [
      "hybrid without local embeddings",
      { recall: { engine: "hybrid", localEmbeddings: false } },
      /the hybrid engine needs embeddings/,
    ],
  ];
  for (const [name, options, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => createMemoMcpRuntimeFromConfig(options), runtimeError("CONFIG", message));
    });
  }
  await t.step("the engines that can work are accepted", async () => {
    for (
      const recall of [
        { engine: "lexical" as const, localEmbeddings: false },
        { engine: "auto" as const, localEmbeddings: false },
        { engine: "vector" as const },
        { engine: "hybrid" as const, localEmbeddings: true },
      ]
    ) {
      await createMemoMcpRuntimeFromConfig({ recall, prewarm: false }).close();
    }
  });
});

test("createMemoMcpRuntimeFromConfig() fails each call on an unreadable notes.md, and the next call tries again", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-" });
  const notes = join(rootDir, ".memo", "memory", "notes.md");
  await mkdir(notes, { recursive: true }); // a folder where the file should be
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
  try {
    await assert.rejects(runtime.stats(), (e) => !isMemoRuntimeError(e));
    await assert.rejects(runtime.stats(), (e) => !isMemoRuntimeError(e));
    await Deno.remove(notes);
    assert.equal((await runtime.stats()).notes, 0);
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

test("createMemoMcpRuntimeFromConfig() builds a local runtime on rootDir with the recall engine", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall: { engine: "lexical" } });
  try {
    assert.equal(runtime.kind, "local");
    const { note, status } = await runtime.remember({
      text: "Runtimes wrap the memory client",
      labels: ["rt"],
    });
    assert.equal(status, "written");
    assert.equal(
      (await runtime.remember({ text: "Runtimes wrap the memory client", labels: ["rt"] })).status,
      "unchanged",
    );
    assert.equal((await runtime.get(note.id)).title, "Runtimes wrap the memory client");
    const hits = await runtime.recall("memory client", { limit: 5 });
    assert.equal(hits[0].note.id, note.id);
    assert.equal((await runtime.stats()).engine.default, "lexical");
    const updated = await runtime.update(note.id, { title: "Runtime notes" });
    assert.equal(updated.title, "Runtime notes");
    assert.deepEqual(await runtime.completeIds(note.id.slice(0, 3), 10), {
      values: [note.id],
      total: 1,
    });
    assert.equal((await runtime.list({ limit: 10 })).total, 1);
    assert.equal((await runtime.forget(note.id)).id, note.id);
    const sync = await runtime.syncConnectors();
    assert.deepEqual(sync.errors, []);
  } finally {
    await runtime.close();
  }
});

test("the local runtime turns memory and connector refusals into MemoRuntimeError codes", async () => {
  const memo = await openMemo({ rootDir: await Deno.makeTempDir({ prefix: "memo-runtime-" }) });
  const runtime = createMemoMcpRuntimeFromMemo(memo, { closeMemo: true });
  try {
    const unknown = await runtime.get("nope").catch((e) => e);
    assert.ok(isMemoRuntimeError(unknown, "NOTE_NOT_FOUND"), String(unknown));
    assert.deepEqual(unknown.details, { id: "nope" });
    await assert.rejects(runtime.forget("nope"), runtimeError("NOTE_NOT_FOUND"));
    await assert.rejects(runtime.update("nope", { title: "x" }), runtimeError("NOTE_NOT_FOUND"));
    await assert.rejects(runtime.recall("  ", { limit: 1 }), runtimeError("INVALID_INPUT"));
    await assert.rejects(
      runtime.list({ cursor: "forged", limit: 5 }),
      runtimeError("INVALID_INPUT"),
    );
    const connector = await runtime.syncConnectors({ only: ["nope"] }).catch((e) => e);
    assert.ok(isMemoRuntimeError(connector, "CONNECTOR_NOT_FOUND"), String(connector));
    assert.deepEqual(connector.details, { ids: ["nope"] });
    const aborted = AbortSignal.abort(new Error("gone"));
    await assert.rejects(runtime.stats({ signal: aborted }), /gone/);
  } finally {
    await runtime.close();
  }
});

test("the local runtime reports a bad connector configuration as CONFIG", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-" });
  await mkdir(join(rootDir, ".memo"), { recursive: true });
  await writeFile(join(rootDir, ".memo", "config.json"), "{ not json");
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
  try {
    await assert.rejects(
      runtime.syncConnectors(),
      runtimeError("CONFIG", /Cannot read .memo\/config.json: it is not valid JSON/),
    );
  } finally {
    await runtime.close();
  }
});

test("createLazyLocalRuntime() opens at the first call, reports a failed open and tries again", async () => {
  let opens = 0;
  const memo = await openMemo({ rootDir: await Deno.makeTempDir({ prefix: "memo-runtime-" }) });
  const runtime = createLazyLocalRuntime(() => {
    opens++;
    return opens === 1
      ? Promise.reject(new Error("Cannot read notes.md: EIO"))
      : Promise.resolve(memo);
  }, { rootDir: ".", prewarm: false });
  assert.equal(opens, 0, "nothing opens before the first call");
  await assert.rejects(runtime.stats(), /EIO/);
  assert.equal((await runtime.stats()).notes, 0);
  assert.equal(opens, 2);
  await runtime.close();
  await assert.rejects(runtime.stats(), runtimeError("UNAVAILABLE", /runtime is closed/));
});

test("the local runtime lists newest first with order, paging by cursor", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
  try {
    for (let i = 0; i < 5; i++) await runtime.remember({ text: `Note number ${i}` });
    const titles = async (order?: "oldest" | "newest") => {
      const out: string[] = [];
      let cursor: string | undefined;
      const nextPage = pageCounter("the pages of runtime.list()");
      do {
        nextPage();
        const page = await runtime.list({ limit: 2, cursor, order });
        assert.ok(page.notes.length <= 2);
        assert.equal(page.total, 5);
        out.push(...page.notes.map((n) => n.title));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    };
    const oldest = [0, 1, 2, 3, 4].map((i) => `Note number ${i}`);
    assert.deepEqual(await titles(), oldest);
    assert.deepEqual(await titles("oldest"), oldest);
    assert.deepEqual(await titles("newest"), [...oldest].reverse());
    await assert.rejects(
      runtime.list({ limit: 2, order: "random" as "newest" }),
      runtimeError("INVALID_INPUT", /order must be "oldest" or "newest"/),
    );
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});

test("the local runtime's rememberMany is one commit, forgetMany one rewrite, both heard by watch", async () => {
  const rootDir = await Deno.makeTempDir();
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  try {
    const seen: RuntimeChange[] = [];
    runtime.watch!((change) => void seen.push(change));
    const kept = {
      id: "01jqz0000000000000000000aa",
      created: "2024-01-02T03:04:05.000Z",
      updated: "2024-02-03T04:05:06.000Z",
    };
    const first = await runtime.rememberMany!([
      { text: "one", source: "x:1", ...kept },
      { text: "two", source: "x:2" },
      { text: "three", source: "y:3" },
    ]);
    assert.equal(first.written.length, 3);
    assert.deepEqual(
      [first.written[0].id, first.written[0].created, first.written[0].updated],
      [kept.id, kept.created, kept.updated],
    );
    assert.deepEqual(seen, [{ ids: first.written.map((n) => n.id), listChanged: true }]);
    const again = await runtime.rememberMany!([
      { text: "one", source: "x:1" },
      { text: "TWO", source: "x:2" },
    ]);
    assert.deepEqual([again.written.length, again.updated.length, again.unchanged.length], [
      0,
      1,
      1,
    ]);
    // One bad draft refuses the batch: nothing of it is written.
    const file = join(rootDir, ".memo", "memory", "notes.md");
    const before = await Deno.readTextFile(file);
    await assert.rejects(
      runtime.rememberMany!([{ text: "fine" }, { text: " " }]),
      (e) => isMemoRuntimeError(e, "INVALID_INPUT"),
    );
    assert.equal(await Deno.readTextFile(file), before);
    seen.length = 0;
    const ids = first.written.slice(0, 2).map((n) => n.id);
    const forgotten = await runtime.forgetMany!([...ids, "01jqz0000000000000000000zz", ids[0]]);
    assert.deepEqual(forgotten.map((n) => n.id), ids);
    assert.deepEqual(seen, [{ ids, listChanged: true }]);
    assert.deepEqual((await runtime.list({ limit: 10 })).notes.map((n) => n.title), ["three"]);
    assert.deepEqual(await runtime.forgetMany!(["01jqz0000000000000000000zz"]), []);
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
