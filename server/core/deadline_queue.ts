/**
 * Deadlines that all share one delay (a server's `requestTimeoutMs`, the HTTP layer's disconnect
 * watch), in arrival order behind one timer: a call adds and removes a list entry instead of
 * scheduling a timer of its own. When the queue empties, the timer is left to run out unreferenced
 * where the platform allows it (`unref()`), so an idle process still exits at once; elsewhere it is
 * cleared, unless the queue lingers.
 *
 * @module
 */

import type { MemoMcpTimer } from "../options.ts";

/**
 * A deadline in the queue; pass it to {@linkcode DeadlineQueue.cancel}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Deadline, DeadlineQueue } from "./deadline_queue.ts";
 *
 * const queue = new DeadlineQueue(1000, {
 *   now: () => 5000,
 *   timer: { setTimeout: () => 1, clearTimeout: () => {} },
 * });
 * const deadline: Deadline = queue.add(() => {});
 * assert.equal(deadline.at, 6000);
 * queue.cancel(deadline);
 * ```
 */
export interface Deadline {
  /** When it fires, on the queue's clock. */
  readonly at: number;
}

/** A Deno or Node timer handle. */
interface Unrefable {
  ref?(): unknown;
  unref?(): unknown;
}

interface Entry extends Deadline {
  callback: (() => void) | undefined;
  prev: Entry | undefined;
  next: Entry | undefined;
}

const SYSTEM: MemoMcpTimer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/**
 * Options of {@linkcode DeadlineQueue}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeadlineQueue, type DeadlineQueueOptions } from "./deadline_queue.ts";
 *
 * // A hand-fired timer: the test decides when time is up.
 * let fire = () => {};
 * const options: DeadlineQueueOptions = {
 *   timer: { setTimeout: (callback) => (fire = callback), clearTimeout: () => {} },
 * };
 * const queue = new DeadlineQueue(30_000, options);
 * const fired: string[] = [];
 * queue.add(() => fired.push("first"));
 * fire();
 * assert.deepEqual(fired, ["first"]);
 * ```
 */
export interface DeadlineQueueOptions {
  /**
   * Timer behind the queue.
   * @default the global setTimeout and clearTimeout
   */
  timer?: MemoMcpTimer;
  /**
   * Clock, in milliseconds.
   * @default performance.now
   */
  now?: () => number;
  /**
   * Leave the timer running when the queue empties (it then fires once, finds nothing and stops)
   * even where it cannot be unreferenced. Meant for short delays only: a process may wait for that
   * timer before it exits.
   * @default false
   */
  linger?: boolean;
}

/**
 * A FIFO of deadlines `delayMs` after each {@linkcode DeadlineQueue.add}. When the underlying timer
 * fires, the entry it was set for fires (whatever the clock says, so that a hand-fired test timer
 * behaves like a real one), then every entry already due; the timer is then set for the next one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeadlineQueue } from "./deadline_queue.ts";
 *
 * let timers = 0;
 * let cleared = 0;
 * const queue = new DeadlineQueue(30_000, {
 *   timer: { setTimeout: () => ++timers, clearTimeout: () => void cleared++ },
 * });
 * const timedOut: number[] = [];
 * const a = queue.add(() => timedOut.push(1));
 * const b = queue.add(() => timedOut.push(2)); // shares the one timer
 * assert.equal(timers, 1);
 * queue.cancel(a);
 * queue.cancel(b); // both finished in time; the queue is empty, so its timer is cleared
 * assert.equal(cleared, 1);
 * assert.deepEqual(timedOut, []);
 * ```
 */
export class DeadlineQueue {
  readonly #delay: number;
  readonly #timer: MemoMcpTimer;
  readonly #now: () => number;
  readonly #linger: boolean;
  #head: Entry | undefined;
  #tail: Entry | undefined;
  #armed: Entry | undefined;
  #handle: unknown;
  /** Whether the armed timer was unreferenced when the queue emptied. */
  #unrefd = false;
  /** Whether a connection of the owner closed: from then on, an empty queue keeps no timer. */
  #released = false;

  constructor(delayMs: number, options: DeadlineQueueOptions = {}) {
    this.#delay = delayMs;
    this.#timer = options.timer ?? SYSTEM;
    this.#now = options.now ?? (() => performance.now());
    this.#linger = options.linger ?? false;
  }

  /** Schedules `callback` to run `delayMs` from now, unless cancelled first. */
  add(callback: () => void): Deadline {
    const entry: Entry = {
      at: this.#now() + this.#delay,
      callback,
      prev: this.#tail,
      next: undefined,
    };
    if (this.#tail) this.#tail.next = entry;
    else this.#head = entry;
    this.#tail = entry;
    if (!this.#armed) this.#arm(entry, this.#delay);
    else if (this.#unrefd) {
      this.#unrefd = false;
      (this.#handle as Unrefable).ref!();
    }
    return entry;
  }

  /** Removes a deadline that has not fired; does nothing for one that has. */
  cancel(deadline: Deadline): void {
    const entry = deadline as Entry;
    if (entry.callback === undefined) return;
    this.#unlink(entry);
    if (this.#head !== undefined || !this.#armed) return;
    if (this.#released) return this.#disarm();
    if (this.#unrefd) return;
    const handle = this.#handle as Unrefable | undefined;
    if (typeof handle?.unref === "function" && typeof handle.ref === "function") {
      handle.unref();
      this.#unrefd = true;
    } else if (!this.#linger) {
      this.#disarm();
    }
  }

  /**
   * A connection of the owner closed: from now on, whenever the queue is empty, no timer is kept,
   * not even an unreferenced one (calls still in flight keep theirs; a later `add` arms it again).
   */
  release(): void {
    this.#released = true;
    if (this.#head === undefined && this.#armed) this.#disarm();
  }

  #disarm(): void {
    this.#timer.clearTimeout(this.#handle);
    this.#armed = undefined;
    this.#handle = undefined;
    this.#unrefd = false;
  }

  #unlink(entry: Entry): void {
    entry.callback = undefined;
    if (entry.prev) entry.prev.next = entry.next;
    else this.#head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.#tail = entry.prev;
    entry.prev = entry.next = undefined;
  }

  #arm(entry: Entry, ms: number): void {
    this.#armed = entry;
    this.#unrefd = false;
    this.#handle = this.#timer.setTimeout(() => this.#fire(), Math.max(0, ms));
  }

  #fire(): void {
    const armed = this.#armed;
    this.#armed = undefined;
    this.#handle = undefined;
    this.#unrefd = false;
    const due: (() => void)[] = [];
    if (armed?.callback) {
      due.push(armed.callback);
      this.#unlink(armed);
    }
    const now = this.#now();
    while (this.#head && this.#head.at <= now) {
      due.push(this.#head.callback!);
      this.#unlink(this.#head);
    }
    if (this.#head) this.#arm(this.#head, this.#head.at - now);
    for (const callback of due) callback();
  }
}
