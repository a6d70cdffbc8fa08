import assert from "node:assert/strict";
import { createMemoMcpRuntimeFromConfig, type RuntimeChange } from "../mod.ts";
import { runProcess } from "./_run_process.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

Deno.test("MemoMcpRuntime.watch() notices a memo CLI process's write within a second", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-watch-proc-" });
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
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
      { cwd: rootDir, env: { NO_COLOR: "1" } },
    );
    const exited = performance.now();
    assert.equal(r.code, 0, r.err);
    const id = JSON.parse(r.out).note.id;
    const deadline = setTimeout(() => noticed.reject(new Error("not noticed within 2 s")), 2000);
    await noticed.promise.finally(() => clearTimeout(deadline));
    // The runtime checks every 250 ms, so the write is noticed within about 250 ms of the
    // child's exit (or before it, while the child shuts down): a second leaves a loaded machine
    // 750 ms of slack. The 2 s deadline only turns a miss into a failure with its time.
    const elapsed = Math.max(0, seen[0].at - exited);
    assert.ok(elapsed < 1000, `noticed ${elapsed.toFixed(0)} ms after the write`);
    assert.deepEqual(seen.map((s) => s.change), [{ ids: [id], listChanged: true }]);
    stop();
  } finally {
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true });
  }
});
