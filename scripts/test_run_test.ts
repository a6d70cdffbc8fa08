import assert from "node:assert/strict";
import { SLOWEST_FIRST } from "./test_run.ts";

Deno.test("SLOWEST_FIRST names files of this repository, once each", async () => {
  const root = new URL("..", import.meta.url);
  for (const path of SLOWEST_FIRST) {
    assert.ok((await Deno.stat(new URL(path, root))).isFile, path);
  }
  assert.equal(new Set(SLOWEST_FIRST).size, SLOWEST_FIRST.length);
});
