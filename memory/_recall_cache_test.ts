import assert from "node:assert/strict";
import { RecallCache } from "./_recall_cache.ts";

Deno.test("RecallCache keeps the most recently used answers up to its size", () => {
  const cache = new RecallCache<string>(2);
  cache.set("a", "A");
  cache.set("b", "B");
  assert.equal(cache.get("a"), "A"); // a is now the most recent
  cache.set("c", "C"); // drops b, the least recently used
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.get("a"), "A");
  assert.equal(cache.get("c"), "C");
  assert.equal(cache.size, 2);
  cache.clear();
  assert.equal(cache.size, 0);
  assert.equal(cache.get("a"), undefined);
});

Deno.test("RecallCache of size 0 keeps nothing", () => {
  const cache = new RecallCache<string>(0);
  cache.set("a", "A");
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.size, 0);
});
