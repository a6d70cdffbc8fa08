import assert from "node:assert/strict";
import { IndexBudget } from "./budget.ts";

function held(name: string, bytes: () => number, closed: string[]) {
  return () => ({ byteLength: bytes, close: () => void closed.push(name) });
}

/** Lets the closes the budget started (in microtasks) run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("IndexBudget: at the budget nothing goes; one byte past it, the least recently used goes", async () => {
  const closed: string[] = [];
  const budget = new IndexBudget(100);
  await budget.use("a", held("a", () => 50, closed), () => Promise.resolve());
  await budget.use("b", held("b", () => 50, closed), () => Promise.resolve());
  await settle();
  assert.deepEqual([budget.stats().bytes, closed], [100, []]); // at the budget
  await budget.use("a", held("a", () => 50, closed), () => Promise.resolve()); // a is now newest
  await budget.use("c", held("c", () => 1, closed), () => Promise.resolve()); // 101: b goes
  await settle();
  assert.deepEqual(closed, ["b"]);
  assert.equal(budget.stats().projects, 2);
});

Deno.test("IndexBudget: a project in use is never evicted; one larger than the budget is held alone", async () => {
  const closed: string[] = [];
  const budget = new IndexBudget(100);
  await budget.use("small", held("small", () => 10, closed), () => Promise.resolve());
  const big = budget.use("big", held("big", () => 300, closed), async () => {
    // While big is in use, another project comes and goes: big stays, the others leave.
    await budget.use("other", held("other", () => 10, closed), () => Promise.resolve());
  });
  await big;
  await settle();
  assert.deepEqual(closed.sort(), ["other", "small"]);
  const stats = budget.stats();
  assert.equal(stats.projects, 1);
  assert.deepEqual(stats.oversized, [{ project: "big", bytes: 300, inUse: false }]);
  // The next project takes its place.
  await budget.use("next", held("next", () => 10, closed), () => Promise.resolve());
  await settle();
  assert.ok(closed.includes("big"));
  assert.deepEqual(budget.stats().oversized, []);
});

Deno.test("IndexBudget: reopening an evicted project waits for its close; hits, misses, evictions", async () => {
  const steps: string[] = [];
  const budget = new IndexBudget(10);
  const closing = Promise.withResolvers<void>();
  const open = (name: string) => () => {
    steps.push(`open ${name}`);
    return {
      byteLength: () => 10,
      close: async () => {
        steps.push(`closing ${name}`);
        await closing.promise;
        steps.push(`closed ${name}`);
      },
    };
  };
  await budget.use("a", open("a"), () => Promise.resolve());
  await budget.use("b", open("b"), () => Promise.resolve()); // a is evicted; its close waits
  const again = budget.use("a", open("a"), () => Promise.resolve(steps.push("use a")));
  await settle();
  assert.deepEqual(steps, ["open a", "open b", "closing a"]);
  closing.resolve();
  await again;
  assert.deepEqual(steps.slice(0, 6), [
    "open a",
    "open b",
    "closing a",
    "closed a",
    "open a",
    "use a",
  ]);
  const stats = budget.stats();
  assert.deepEqual([stats.hits, stats.misses, stats.evictions], [0, 3, 2]);
  assert.equal(stats.hitRate, 0);
  await budget.close();
  await assert.rejects(budget.use("a", open("a"), () => Promise.resolve()), /store is closed/);
});

Deno.test("IndexBudget: a collection runs after the closes once enough was evicted, else after idle time", async () => {
  // The budget's timers do not hold the process (a server's listener does): this one does here.
  const alive = setInterval(() => {}, 1000);
  const events: string[] = [];
  let collected!: () => void;
  let next = new Promise<void>((resolve) => (collected = resolve));
  const budget = new IndexBudget(1000, {
    collectAfterBytes: 300,
    idleMs: 5,
    collect: () => {
      events.push("collect");
      collected();
      next = new Promise<void>((resolve) => (collected = resolve));
    },
  });
  const use = (name: string, bytes: number) =>
    budget.use(name, () => ({
      byteLength: () => bytes,
      close: () => void events.push(`close ${name}`),
    }), () => Promise.resolve());
  await use("a", 500);
  await use("b", 500);
  assert.deepEqual(events, []); // nothing evicted: no collection
  let waiting = next;
  await use("c", 100); // a (500 ≥ 300) goes: a collection at once, after its close
  await waiting;
  assert.deepEqual(events, ["close a", "collect"]);
  assert.equal(budget.stats().collections, 1);
  waiting = next;
  await use("b", 500); // b is now the newest
  await use("d", 410); // c (100, under 300) goes: the collection waits for the idle time
  assert.equal(budget.stats().collections, 1);
  await waiting;
  assert.deepEqual(events, ["close a", "collect", "close c", "collect"]);
  assert.equal(budget.stats().collections, 2);
  await budget.close();
  clearInterval(alive);
});
