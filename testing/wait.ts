/**
 * Test helper: waiting for what a test means, not for a time. Not published
 * (`testing/` is excluded from the packages).
 *
 * A test that waits for an event awaits the promise the event resolves, or
 * polls the condition with {@linkcode until}: its deadline only ends a test
 * that is stuck, so it is far longer than anything a loaded machine takes.
 *
 * @module
 */

/** How long {@linkcode until} polls before it gives up: only a stuck test gets there. */
export const STUCK_MS = 30_000;

/**
 * Waits until `check` holds, polling every few milliseconds; throws, naming
 * `what`, once `ms` have passed without it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { until } from "./wait.ts";
 *
 * let done = false;
 * setTimeout(() => done = true, 20);
 * await until(() => done, "the timer to fire");
 * await assert.rejects(until(() => false, "nothing", 30), /^Error: Cannot wait for nothing/);
 * ```
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms: number = STUCK_MS,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Cannot wait for ${what}: it did not happen within ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * `promise`, or a rejection naming `what` once `ms` have passed without it:
 * for an event that a broken behaviour would leave pending for ever.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settled } from "./wait.ts";
 *
 * assert.equal(await settled(Promise.resolve(7), "seven"), 7);
 * await assert.rejects(settled(new Promise(() => {}), "never", 30), /^Error: Cannot wait for never/);
 * ```
 */
export async function settled<T>(promise: Promise<T>, what: string, ms: number = STUCK_MS) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Cannot wait for ${what}: it did not happen within ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@linkcode readUntil} read: all the text, and whether the stream ended first. */
export interface ReadText {
  /** `sofar` plus everything read. */
  readonly text: string;
  /** True when the stream ended before `check` held. */
  readonly done: boolean;
}

/**
 * Reads `reader` (text or bytes, e.g. a child process's stderr or an SSE
 * body) until `check` holds on the text read so far (`sofar` plus each
 * chunk), or the stream ends (`done: true`). Once `ms` have passed without
 * either, a timer cancels the reader — so a read that is pending because the
 * other side went silent ends too — and the call throws, naming `what` and
 * showing the text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readUntil } from "./wait.ts";
 *
 * const lines = ReadableStream.from(["memo: starting\n", "memo: listening on :8080\n"]);
 * const got = await readUntil(lines.getReader(), (t) => t.includes("listening"), "the listening line");
 * assert.equal(got.done, false);
 * assert.match(got.text, /listening on :8080/);
 *
 * const silent = new ReadableStream<string>({ start: (c) => c.enqueue("memo: starting\n") });
 * await assert.rejects(
 *   readUntil(silent.getReader(), (t) => t.includes("listening"), "the listening line", { ms: 30 }),
 *   /^Error: Cannot wait for the listening line: it did not happen within 30 ms; read:\nmemo: starting/,
 * );
 * ```
 */
export async function readUntil(
  reader: ReadableStreamDefaultReader<string | Uint8Array>,
  check: (text: string) => boolean,
  what: string,
  options: { sofar?: string; ms?: number } = {},
): Promise<ReadText> {
  const { ms = STUCK_MS } = options;
  const decoder = new TextDecoder();
  let text = options.sofar ?? "";
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, ms);
  try {
    while (!check(text)) {
      const { value, done } = await reader.read().catch((e) => {
        if (late) return { value: undefined, done: true };
        throw e;
      });
      if (late) {
        throw new Error(
          `Cannot wait for ${what}: it did not happen within ${ms} ms; read:\n${text}`,
        );
      }
      if (done) return { text: text + decoder.decode(), done: true };
      text += typeof value === "string" ? value : decoder.decode(value, { stream: true });
    }
    return { text, done: false };
  } finally {
    clearTimeout(timer);
  }
}
