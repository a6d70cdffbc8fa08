import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openMemo } from "@memo/memory";
import { McpNotFoundError, McpValidationError, MemoMcpError } from "../server/errors.ts";
import { createMemoCloudMcpRuntime } from "./cloud.ts";
import { createMemoMcpRuntimeFromConfig } from "./factory.ts";
import { createLazyLocalRuntime, createMemoMcpRuntimeFromMemo } from "./local.ts";

Deno.test("createMemoMcpRuntimeFromConfig() refuses the hybrid and cloud modes clearly", () => {
  assert.throws(
    () =>
      createMemoMcpRuntimeFromConfig({ mode: "hybrid", cloud: { baseUrl: "https://x.example" } }),
    (e) =>
      e instanceof MemoMcpError &&
      e.message === "Cannot start the hybrid runtime: not available in this version",
  );
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => createMemoMcpRuntimeFromConfig({ mode: "cloud" as any }),
    /Cannot start the cloud runtime: not available in this version/,
  );
  // deno-lint-ignore no-explicit-any
  assert.throws(() => createMemoMcpRuntimeFromConfig({ mode: "nope" as any }), /unknown mode/);
  assert.throws(
    () => createMemoCloudMcpRuntime({ baseUrl: "https://x.example", apiKey: "k" }),
    (e) => e instanceof MemoMcpError && /cloud runtime: not available/.test(e.message),
  );
});

Deno.test("createMemoMcpRuntimeFromConfig() builds a local runtime on rootDir with the recall engine", async () => {
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

Deno.test("the local runtime maps memory errors to MCP errors", async () => {
  const memo = await openMemo({ rootDir: await Deno.makeTempDir({ prefix: "memo-runtime-" }) });
  const runtime = createMemoMcpRuntimeFromMemo(memo, { closeMemo: true });
  try {
    await assert.rejects(
      runtime.get("nope"),
      (e) =>
        e instanceof McpNotFoundError && e.details?.kind === "note" && e.details?.id === "nope",
    );
    await assert.rejects(runtime.forget("nope"), McpNotFoundError);
    await assert.rejects(runtime.update("nope", { title: "x" }), McpNotFoundError);
    await assert.rejects(runtime.recall("  ", { limit: 1 }), McpValidationError);
    await assert.rejects(runtime.list({ cursor: "forged", limit: 5 }), McpValidationError);
    await assert.rejects(
      runtime.syncConnectors({ only: ["nope"] }),
      (e) => e instanceof McpNotFoundError && e.details?.kind === "connector",
    );
    const aborted = AbortSignal.abort(new Error("gone"));
    await assert.rejects(runtime.stats({ signal: aborted }), /gone/);
  } finally {
    await runtime.close();
  }
});

Deno.test("the local runtime reports a bad connector configuration as a validation error", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-runtime-" });
  await mkdir(join(rootDir, ".memo"), { recursive: true });
  await writeFile(join(rootDir, ".memo", "config.json"), "{ not json");
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, env: {} });
  try {
    await assert.rejects(runtime.syncConnectors(), McpValidationError);
  } finally {
    await runtime.close();
  }
});

Deno.test("createLazyLocalRuntime() opens at the first call, reports a failed open and tries again", async () => {
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
  await assert.rejects(runtime.stats(), /runtime is closed/);
});
