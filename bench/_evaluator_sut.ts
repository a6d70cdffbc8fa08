/**
 * The loop every system under test of `../shared/bench/recall_eval.mjs`
 * shares: its JSON Lines protocol (see `../shared/bench/locomo-dev/README.md`)
 * on stdin/stdout.
 *
 * @module
 */

import process from "node:process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/** Where the loop reads requests and writes replies. */
export interface EvaluatorIo {
  /** The request lines. @default process.stdin */
  input?: Readable;
  /** Writes one reply line (with its newline). @default writes to process.stdout */
  write?: (line: string) => void;
  /** Writes one log line (with its newline). @default writes to process.stderr */
  logLine?: (line: string) => void;
}

/**
 * Answers the evaluator until its input ends: each non-blank line is parsed
 * as JSON and given to `handle`, whose reply is written as one JSON line. A
 * line that does not parse, or a `handle` that throws, answers
 * `{ ok: false, error }` and logs `"<name>: <error>"` on stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Readable } from "node:stream";
 * import { serveEvaluatorProtocol } from "./_evaluator_sut.ts";
 *
 * const out: string[] = [];
 * const logged: string[] = [];
 * await serveEvaluatorProtocol((msg) => ({ echo: msg.op }), "demo", {
 *   input: Readable.from(['{"op":"index"}\n', "\n", "not json\n"]),
 *   write: (line) => out.push(line),
 *   logLine: (line) => logged.push(line),
 * });
 * assert.equal(out[0], '{"echo":"index"}\n');
 * assert.equal(out.length, 2);
 * assert.equal(JSON.parse(out[1]).ok, false);
 * assert.match(logged[0], /^demo: /);
 * ```
 */
export async function serveEvaluatorProtocol(
  // deno-lint-ignore no-explicit-any
  handle: (msg: any) => unknown,
  name: string,
  io: EvaluatorIo = {},
): Promise<void> {
  const write = io.write ?? ((line: string) => process.stdout.write(line));
  const logLine = io.logLine ?? ((line: string) => process.stderr.write(line));
  const lines = createInterface({ input: io.input ?? process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let reply: unknown;
    try {
      reply = await handle(JSON.parse(line));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      logLine(`${name}: ${message}\n`);
      reply = { ok: false, error: message };
    }
    write(JSON.stringify(reply) + "\n");
  }
}
