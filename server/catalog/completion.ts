/**
 * `completion/complete`: note ids for the `memo://notes/{id}` template, label
 * names for the prompts' `topic` and `labels` arguments.
 *
 * @module
 */

import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { McpNotFoundError, McpValidationError } from "../errors.ts";
import { PROMPTS, splitLabels } from "./prompts.ts";
import { NOTE_TEMPLATE, STATS_URI } from "./resources.ts";

/**
 * Most values one completion returns (MCP's limit).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_COMPLETIONS } from "./completion.ts";
 *
 * assert.equal(MAX_COMPLETIONS, 100);
 * ```
 */
export const MAX_COMPLETIONS = 100;

/**
 * A `completion/complete` result.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { complete, type CompletionResult } from "./completion.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const result: CompletionResult = await complete(
 *   runtime,
 *   { ref: { type: "ref/resource", uri: "memo://stats" }, argument: { name: "x", value: "" } },
 *   new AbortController().signal,
 * );
 * assert.deepEqual(result, { completion: { values: [], total: 0, hasMore: false } });
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface CompletionResult {
  completion: { values: string[]; total: number; hasMore: boolean };
}

const EMPTY: CompletionResult = { completion: { values: [], total: 0, hasMore: false } };

function result(values: string[], total: number): CompletionResult {
  return { completion: { values, total, hasMore: total > values.length } };
}

async function labelValues(
  runtime: MemoMcpRuntime,
  prefix: string,
  signal: AbortSignal,
): Promise<string[]> {
  const stats = await runtime.stats({ signal });
  const low = prefix.toLowerCase();
  return Object.entries(stats.labels)
    .filter(([label]) => label.toLowerCase().startsWith(low))
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([label]) => label);
}

/**
 * Checks `completion/complete` params and answers them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, McpValidationError } from "@memo/mcp-server";
 * import { complete } from "./completion.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "Deploys run with make deploy", labels: ["infra"] });
 * await runtime.remember({ text: "Ask Ana about invoices", labels: ["billing"] });
 * const signal = new AbortController().signal;
 * const labels = await complete(runtime, {
 *   ref: { type: "ref/prompt", name: "review_memory" },
 *   argument: { name: "labels", value: "billing,in" },
 * }, signal);
 * assert.deepEqual(labels.completion.values, ["billing,infra"]);
 * await assert.rejects(complete(runtime, { ref: {} }, signal), McpValidationError);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function complete(
  runtime: MemoMcpRuntime,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CompletionResult> {
  const ref = params.ref as Record<string, unknown> | undefined;
  const argument = params.argument as Record<string, unknown> | undefined;
  if (
    !ref || typeof ref !== "object" || !argument || typeof argument !== "object" ||
    typeof argument.name !== "string" || typeof argument.value !== "string"
  ) {
    throw new McpValidationError(
      "Cannot complete: params need ref and argument {name, value} (strings)",
    );
  }
  const value = argument.value.slice(0, 1000);
  if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") {
      throw new McpValidationError("Cannot complete: ref.uri must be a string");
    }
    if (ref.uri === STATS_URI) return EMPTY;
    if (ref.uri !== NOTE_TEMPLATE) {
      throw new McpNotFoundError(
        `Cannot complete: unknown resource template ${ref.uri.slice(0, 200)}`,
        {
          details: { kind: "template" },
        },
      );
    }
    if (argument.name !== "id") return EMPTY;
    const ids = await runtime.completeIds(value, MAX_COMPLETIONS, { signal });
    return result(ids.values, ids.total);
  }
  if (ref.type === "ref/prompt") {
    if (typeof ref.name !== "string" || !Object.hasOwn(PROMPTS, ref.name)) {
      throw new McpNotFoundError(
        `Cannot complete: unknown prompt ${String(ref.name).slice(0, 200)}`,
        {
          details: { kind: "prompt" },
        },
      );
    }
    if (ref.name === "recall_context" && argument.name === "topic") {
      const labels = await labelValues(runtime, value, signal);
      return result(labels.slice(0, MAX_COMPLETIONS), labels.length);
    }
    if (ref.name === "review_memory" && argument.name === "labels") {
      const parts = value.split(",");
      const last = parts.pop()!.trim();
      const chosen = splitLabels(parts.join(","));
      const head = chosen.length ? chosen.join(",") + "," : "";
      const labels = (await labelValues(runtime, last, signal)).filter((l) => !chosen.includes(l));
      return result(labels.slice(0, MAX_COMPLETIONS).map((l) => head + l), labels.length);
    }
    return EMPTY;
  }
  throw new McpValidationError("Cannot complete: ref.type must be ref/resource or ref/prompt");
}
