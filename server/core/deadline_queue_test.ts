import assert from "node:assert/strict";
import { DeadlineQueue } from "./deadline_queue.ts";
import type { MemoMcpTimer } from "../options.ts";

/** A timer fired by hand, with a clock the test moves. */
function fakeTimer() {
  let now = 0;
  const pending = new Map<number, { callback: () => void; at: number }>();
  let next = 0;
  const timer: MemoMcpTimer = {
    setTimeout(callback, ms) {
      pending.set(++next, { callback, at: now + ms });
      return next;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timer,
    now: () => now,
    pending: () => pending.size,
    /** Moves the clock and fires what is due. */
    advance(ms: number) {
      now += ms;
      for (const [k, p] of [...pending]) {
        if (p.at <= now) {
          pending.delete(k);
          p.callback();
        }
      }
    },
  };
}

Deno.test("DeadlineQueue fires each deadline once, in order, from one timer", () => {
  const t = fakeTimer();
  const q = new DeadlineQueue(100, { timer: t.timer, now: t.now });
  const fired: string[] = [];
  q.add(() => fired.push("a"));
  t.advance(10);
  q.add(() => fired.push("b"));
  t.advance(10);
  const c = q.add(() => fired.push("c"));
  assert.equal(t.pending(), 1, "one underlying timer");
  t.advance(80);
  assert.deepEqual(fired, ["a"]);
  q.cancel(c);
  t.advance(10);
  assert.deepEqual(fired, ["a", "b"]);
  t.advance(100);
  assert.deepEqual(fired, ["a", "b"], "a cancelled deadline never fires");
  assert.equal(t.pending(), 0);
});

Deno.test("DeadlineQueue clears its timer when it empties, unless it lingers", () => {
  const t = fakeTimer();
  const q = new DeadlineQueue(100, { timer: t.timer, now: t.now });
  q.cancel(q.add(() => assert.fail("cancelled")));
  assert.equal(t.pending(), 0);

  const lingering = new DeadlineQueue(100, { timer: t.timer, now: t.now, linger: true });
  lingering.cancel(lingering.add(() => assert.fail("cancelled")));
  assert.equal(t.pending(), 1, "left to run out");
  const fired: number[] = [];
  t.advance(50);
  lingering.add(() => fired.push(t.now()));
  assert.equal(t.pending(), 1, "reused");
  t.advance(50);
  assert.deepEqual(fired, [], "the old timer finds the new deadline not due");
  assert.equal(t.pending(), 1, "and sets itself for it");
  t.advance(50);
  assert.deepEqual(fired, [150]);
  assert.equal(t.pending(), 0);
});

Deno.test("DeadlineQueue fires the entry its timer was set for, whatever the clock says", () => {
  let callback: (() => void) | undefined;
  const timer: MemoMcpTimer = {
    setTimeout: (cb) => (callback = cb, 1),
    clearTimeout: () => callback = undefined,
  };
  const q = new DeadlineQueue(30_000, { timer, now: () => 0 });
  let fired = false;
  q.add(() => fired = true);
  callback!();
  assert.ok(fired);
});

Deno.test("DeadlineQueue cancel() after the deadline fired does nothing", () => {
  const t = fakeTimer();
  const q = new DeadlineQueue(10, { timer: t.timer, now: t.now });
  let count = 0;
  const d = q.add(() => count++);
  t.advance(10);
  q.cancel(d);
  q.cancel(d);
  assert.equal(count, 1);
  assert.equal(t.pending(), 0);
});

Deno.test("DeadlineQueue unreferences an unused timer instead of clearing it, where it can", () => {
  const calls: string[] = [];
  let callback: (() => void) | undefined;
  const handle = { ref: () => calls.push("ref"), unref: () => calls.push("unref") };
  const timer: MemoMcpTimer = {
    setTimeout: (cb) => (calls.push("set"), callback = cb, handle),
    clearTimeout: () => calls.push("clear"),
  };
  let now = 0;
  const q = new DeadlineQueue(100, { timer, now: () => now });
  q.cancel(q.add(() => assert.fail("cancelled")));
  now = 10;
  const fired: number[] = [];
  q.add(() => fired.push(now));
  assert.deepEqual(calls, ["set", "unref", "ref"], "one timer, kept");
  now = 100;
  callback!(); // set for the first, cancelled deadline: re-set for the second
  assert.deepEqual(fired, []);
  assert.deepEqual(calls, ["set", "unref", "ref", "set"]);
  now = 110;
  callback!();
  assert.deepEqual(fired, [110]);
});

Deno.test("DeadlineQueue with the real timer does not keep an idle process alive", async () => {
  const module = new URL("./deadline_queue.ts", import.meta.url).href;
  const script = `
    import { DeadlineQueue } from ${JSON.stringify(module)};
    const q = new DeadlineQueue(60_000);
    const d = q.add(() => console.log("fired"));
    await new Promise((r) => setTimeout(r, 5));
    q.cancel(d);
  `;
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stdout), "");
  assert.ok(performance.now() - started < 30_000, "exited without waiting for the timer");
});

Deno.test({
  name: "DeadlineQueue.release() keeps no timer once the queue is empty, unreferenced or not",
  sanitizeOps: true,
  sanitizeResources: true,
  fn() {
    // The system timer: one that can be unreferenced, which an idle queue would keep armed.
    const q = new DeadlineQueue(60_000);
    const first = q.add(() => assert.fail("cancelled"));
    const second = q.add(() => assert.fail("cancelled"));
    q.release(); // calls still in flight: the timer stays
    q.cancel(first);
    q.cancel(second); // now empty: no timer at all (the op sanitizer would see one)
    // With a timer that can linger, release() drops it at once; later calls keep none when done.
    const t = fakeTimer();
    const r = new DeadlineQueue(100, { timer: t.timer, now: t.now, linger: true });
    r.cancel(r.add(() => {}));
    assert.equal(t.pending(), 1, "lingers");
    r.release();
    assert.equal(t.pending(), 0, "released");
    r.cancel(r.add(() => {}));
    assert.equal(t.pending(), 0, "a later call arms it, and it is dropped when the call ends");
  },
});
