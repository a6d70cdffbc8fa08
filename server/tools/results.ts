/**
 * What the protocol server and the SDK bridge both send for a tool call, and the output limit they
 * both enforce: one result builder (the text rendering, `structuredContent`, `isError`) with a
 * serialized form for the protocol server and an object form for the SDK, and one size check over
 * the whole serialized JSON-RPC response (which each notification the protocol server sends is held
 * to as well).
 *
 * @module
 */

import { McpOutputLimitError } from "../errors.ts";
import { overLimit } from "../protocol/jsonrpc.ts";
import type { ToolCallOutcome } from "../core/core.ts";

/** The text content of a tool result: the error's message for a tool error, else the JSON. */
function toolText(outcome: ToolCallOutcome): string {
  return outcome.isError
    ? (outcome.structured.error as { message?: string } | undefined)?.message ?? outcome.json
    : outcome.json;
}

/**
 * The serialized `tools/call` result: a text rendering, `structuredContent` when the protocol
 * version has it (2025-06-18 on), and `isError`. The structured JSON is spliced in, not serialized
 * again. `open` is what the result opens with: `{`, or a stateless result's opening
 * (`statelessOpening` of `../protocol/stateless.ts`), so that it is never sliced open again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolResultJson } from "./results.ts";
 *
 * const json = toolResultJson({ structured: { n: 1 }, json: '{"n":1}', isError: false }, true);
 * assert.deepEqual(JSON.parse(json), {
 *   content: [{ type: "text", text: '{"n":1}' }],
 *   structuredContent: { n: 1 },
 * });
 * ```
 */
export function toolResultJson(outcome: ToolCallOutcome, structured: boolean, open = "{"): string {
  const rendered = outcome.isError ? undefined : outcome.rendered;
  const text = rendered !== undefined
    ? (rendered.textJson ??= JSON.stringify(rendered.json))
    : JSON.stringify(toolText(outcome));
  let out = `${open}"content":[{"type":"text","text":${text}}]`;
  if (structured) out += `,"structuredContent":${outcome.json}`;
  if (outcome.isError) out += `,"isError":true`;
  return out + "}";
}

/**
 * The same result as an object, for the SDK (which serializes it itself).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolResultJson, toolResultObject } from "./results.ts";
 *
 * const outcome = {
 *   structured: { error: { message: "Cannot find note x" } },
 *   json: '{"error":{"message":"Cannot find note x"}}',
 *   isError: true,
 * };
 * assert.deepEqual(toolResultObject(outcome), JSON.parse(toolResultJson(outcome, true)));
 * ```
 */
export function toolResultObject(outcome: ToolCallOutcome): Record<string, unknown> {
  const result: Record<string, unknown> = {
    content: [{ type: "text", text: toolText(outcome) }],
    structuredContent: outcome.structured,
  };
  if (outcome.isError) result.isError = true;
  return result;
}

/**
 * The output-limit check: an `McpOutputLimitError` when the serialized JSON-RPC response is over
 * `limit` bytes, else undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outputLimitError } from "./results.ts";
 *
 * const response = '{"jsonrpc":"2.0","id":1,"result":{}}';
 * assert.equal(outputLimitError(response, response.length), undefined);
 * assert.equal(outputLimitError(response, response.length - 1)?.code, "MCP_OUTPUT_LIMIT");
 * ```
 */
export function outputLimitError(response: string, limit: number): McpOutputLimitError | undefined {
  const size = overLimit(response, limit);
  if (size === undefined) return undefined;
  return new McpOutputLimitError(
    `Cannot send the response: ${size} bytes is over the output limit of ${limit}`,
    { details: { limit, size } },
  );
}

/**
 * Sends a notification, unless it alone is over the output limit (then it is dropped).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { notifyWithin } from "./results.ts";
 *
 * const sent: string[] = [];
 * const message = { jsonrpc: "2.0", method: "notifications/resources/list_changed" };
 * notifyWithin((json) => sent.push(json), 1000, message);
 * notifyWithin((json) => sent.push(json), 10, message); // over the limit: dropped
 * assert.deepEqual(sent, [JSON.stringify(message)]);
 * ```
 */
export function notifyWithin(
  notify: (json: string) => void,
  limit: number,
  message: unknown,
): void {
  const json = JSON.stringify(message);
  if (outputLimitError(json, limit) === undefined) notify(json);
}
