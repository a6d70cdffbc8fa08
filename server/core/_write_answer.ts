/**
 * Internal: the check that keeps a write from happening when its answer could not be sent (over
 * `maxOutputBytes`), so that a client is never told a write failed that was done.
 *
 * @module
 */

import { McpOutputLimitError } from "../errors.ts";
import { utf8Length } from "../protocol/jsonrpc.ts";

/** Room a write's answer takes besides its note's text and title: ids, times, labels, similar notes. */
const WRITE_ANSWER_ROOM = 16_384;

/**
 * The refusal of a write whose answer could not be sent: an `McpOutputLimitError` when the
 * answer to a write carrying `text` (the note it writes, in `structuredContent` and again, escaped,
 * in the text content, with its title) would be over `limit` bytes, else undefined. Checked
 * before the write, so that nothing is written that the client is then told failed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writeAnswerLimitError } from "./_write_answer.ts";
 *
 * assert.equal(writeAnswerLimitError("remember", { text: "short" }, 512_000), undefined);
 * const quotes = { text: "a title\n" + '"'.repeat(120_000) }; // each quote escaped twice over
 * assert.equal(writeAnswerLimitError("remember", quotes, 512_000)?.code, "MCP_OUTPUT_LIMIT");
 * assert.equal(writeAnswerLimitError("forget", { id: "x" }, 10), undefined); // no text
 * ```
 */
export function writeAnswerLimitError(
  action: string,
  args: unknown,
  limit: number,
  room: number = WRITE_ANSWER_ROOM,
): McpOutputLimitError | undefined {
  const text = (args as { text?: unknown } | null)?.text;
  if (typeof text !== "string") return undefined;
  const twice = (value: string) => {
    const once = JSON.stringify(value);
    return utf8Length(once) + utf8Length(JSON.stringify(once));
  };
  // Cheap first: a character is at most 6 bytes once (`\u0001`) and 7 escaped again.
  if ((text.length + Math.min(text.length, 500)) * 13 + room <= limit) {
    return undefined;
  }
  const size = twice(text) + twice(text.slice(0, 500)) + room;
  if (size <= limit) return undefined;
  return new McpOutputLimitError(
    `Cannot ${action}: its answer would be about ${size} bytes, over the output limit of ` +
      `${limit}; nothing was written`,
    { details: { limit, size } },
  );
}
