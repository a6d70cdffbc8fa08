import assert from "node:assert/strict";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { freshState, ReplicaStateFile } from "./_replica_state.ts";

Deno.test("replica state: appended changes read back, a torn last line is ignored, the file compacts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = new ReplicaStateFile(dir);
    const state = freshState("http://cloud/v1 team default");
    state.pushed.set("a1", ["h1", 1]);
    await file.save(state, { ids: new Set(), all: true }); // the whole state
    state.pushed.set("b2", ["h2", 2]);
    state.pushed.delete("a1");
    state.feed = "2";
    await file.save(state, { ids: new Set(["a1", "b2"]), all: false }); // one appended line
    const path = join(dir, ".memo", "replica", "state.jsonl");
    assert.equal((await readFile(path, "utf8")).trim().split("\n").length, 2);
    await appendFile(path, '{"feed":"9","pushed":{"c3":["h'); // a write cut by SIGKILL
    const again = await new ReplicaStateFile(dir).load("http://cloud/v1 team default");
    assert.deepEqual([...again.pushed], [["b2", ["h2", 2]]]);
    assert.equal(again.feed, "2");
    assert.equal(again.replicaId, state.replicaId);
    // Another cloud or project: a fresh state that keeps the replica id.
    const other = await new ReplicaStateFile(dir).load("http://other/v1 team default");
    assert.equal(other.pushed.size, 0);
    assert.equal(other.replicaId, state.replicaId);
    // Many small saves are compacted into one line again.
    const writer = new ReplicaStateFile(dir);
    const big = await writer.load("http://cloud/v1 team default");
    await writer.save(big, { ids: new Set(), all: true });
    for (let i = 0; i < 3000; i++) {
      big.pushed.set(`n${i}`, ["h".repeat(32), i]);
      await writer.save(big, { ids: new Set([`n${i}`]), all: false });
    }
    const lines = (await readFile(path, "utf8")).trim().split("\n").length;
    assert.ok(lines < 3000, `compacted (${lines} lines)`);
    const read = await new ReplicaStateFile(dir).load("http://cloud/v1 team default");
    assert.equal(read.pushed.size, 3001);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replica lock: one holder at a time, a dead process's lock is taken over, no temp file left", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = new ReplicaStateFile(dir);
    const release = await file.tryLock();
    assert.ok(release);
    assert.equal(await new ReplicaStateFile(dir).tryLock(), undefined); // held by a live process
    await release();
    const lock = join(dir, ".memo", "replica", "lock");
    const { hostname } = await import("node:os");
    await Deno.writeTextFile(
      lock,
      JSON.stringify({ pid: 2 ** 22 + 7, host: hostname(), created: Date.now(), nonce: "x" }),
    );
    const taken = await file.tryLock(); // that pid is gone
    assert.ok(taken);
    await taken();
    const left = [...Deno.readDirSync(join(dir, ".memo", "replica"))].map((e) => e.name);
    assert.deepEqual(left.filter((n) => n.includes("lock")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
