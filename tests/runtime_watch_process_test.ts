import assert from "node:assert/strict";
import { createMemoMcpRuntimeFromConfig, type RuntimeChange } from "../mod.ts";
import { runProcess } from "./_run_process.ts";
import { settled } from "../testing/wait.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

Deno.test("MemoMcpRuntime.watch() notices a memo CLI process's write within a few checks", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-watch-proc-" });
  // Watching is about notes.md: no model loads beside it.
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir, recall: { localEmbeddings: false } });
  try {
    await runtime.stats(); // the notes are loaded: what follows is a change
    const seen: { change: RuntimeChange; at: number }[] = [];
    const noticed = Promise.withResolvers<void>();
    const stop = runtime.watch!((change) => {
      seen.push({ change, at: performance.now() });
      noticed.resolve();
    });
    const r = await runProcess(
      Deno.execPath(),
      ["run", "-A", CLI, "remember", "Written by another process", "--dir", rootDir, "--json"],
      { cwd: rootDir, env: { NO_COLOR: "1", MEMO_LOCAL_EMBEDDINGS: "false" } },
    );
    const exited = performance.now();
    assert.equal(r.code, 0, r.err);
    const id = JSON.parse(r.out).note.id;
    await settled(noticed.promise, "the runtime to notice the write");
    // The runtime checks every 250 ms, so the write is noticed within about 250 ms of the
    // child's exit (or before it, while the child shuts down). 5 s (20 checks) holds on a loaded
    // machine and still fails a runtime that stopped checking on its own (a write noticed only
    // at the next call, or on a far longer interval).
    const elapsed = Math.max(0, seen[0].at - exited);
    assert.ok(elapsed < 5000, `noticed ${elapsed.toFixed(0)} ms after the write`);
    assert.deepEqual(seen.map((s) => s.change), [{ ids: [id], listChanged: true }]);
    stop();
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
