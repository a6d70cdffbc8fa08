/**
 * Progress on a terminal: one line on stderr, rewritten in place, for the commands that move many
 * things (`memo sync`, `memo replicate`). The commands use it only when stderr is a terminal.
 *
 * @module
 */

import type { CliIO } from "./context.ts";

/**
 * A progress line on stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProgressLine, progressLine } from "./progress.ts";
 *
 * const written: string[] = [];
 * const line: ProgressLine = progressLine({ stderr: (t) => Promise.resolve(void written.push(t)) });
 * line.show("memo: pulling 10 changes");
 * line.end();
 * await line.flush();
 * assert.deepEqual(written, ["\r\x1b[Kmemo: pulling 10 changes", "\r\x1b[K"]);
 * ```
 */
export interface ProgressLine {
  /** Replaces the line with `text`. */
  show(text: string): void;
  /**
   * Ends the line: with `text` it stays on screen (a newline follows); without, it is cleared.
   */
  end(text?: string): void;
  /** Resolves when everything written so far is out (a failed write is dropped). */
  flush(): Promise<void>;
}

/**
 * A progress line on `io.stderr`; writes go out in order, one at a time, and never fail the
 * command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressLine } from "./progress.ts";
 *
 * let screen = "";
 * const line = progressLine({ stderr: (t) => Promise.resolve(void (screen += t)) });
 * line.show("memo: team: 1 page");
 * line.end("memo: team: 2 pages, 40 records");
 * await line.flush();
 * assert.equal(screen, "\r\x1b[Kmemo: team: 1 page\r\x1b[Kmemo: team: 2 pages, 40 records\n");
 * ```
 */
export function progressLine(io: Pick<CliIO, "stderr">): ProgressLine {
  let chain = Promise.resolve();
  const write = (text: string) => {
    chain = chain.then(() => io.stderr(text)).catch(() => {});
  };
  return {
    show: (text) => write(`\r\x1b[K${text}`),
    end: (text) => write(text === undefined ? "\r\x1b[K" : `\r\x1b[K${text}\n`),
    flush: () => chain,
  };
}

/**
 * A text progress bar: `[#####---------------] 5/20`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressBar } from "./progress.ts";
 *
 * assert.equal(progressBar(5, 20), "[#####---------------] 5/20");
 * assert.equal(progressBar(3, 3, 6), "[######] 3/3");
 * assert.equal(progressBar(0, 0, 4), "[####] 0/0"); // nothing to do is done
 * ```
 */
export function progressBar(done: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const filled = Math.round(ratio * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`;
}

/**
 * Runs `work` with a signal that the first shutdown signal (Ctrl+C) aborts; once it settles, the
 * signal is let go and `progress` ends (its line cleared).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stoppable } from "./progress.ts";
 *
 * let stop = () => {};
 * const io = { onShutdownSignal: (callback: () => void) => ((stop = callback), () => {}) };
 * const ended: string[] = [];
 * const aborted = await stoppable(io, { end: async () => void ended.push("end") }, (signal) => {
 *   stop();
 *   return Promise.resolve(signal.aborted);
 * });
 * assert.deepEqual([aborted, ended], [true, ["end"]]);
 * ```
 */
export async function stoppable<T>(
  io: Pick<CliIO, "onShutdownSignal">,
  progress: { end(): Promise<void> } | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const removeSignal = io.onShutdownSignal?.(() => controller.abort());
  try {
    return await work(controller.signal);
  } finally {
    removeSignal?.();
    await progress?.end();
  }
}
