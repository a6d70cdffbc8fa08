/**
 * The `sync_connectors` tool: it pulls the configured connectors into memory,
 * reports progress per connector, and counts what each wrote; a failed
 * connector makes the result an error that still carries the others' counts.
 *
 * @module
 */

import { z } from "zod";
import type { RuntimeSyncProgress, RuntimeSyncResult } from "../../runtimes/types.ts";
import { MemoMcpError, toSafeError } from "../errors.ts";
import { output } from "./schemas.ts";
import { defineTool, type Tool, type ToolOutcome } from "./_tool_kit.ts";

const ConnectorSummary = z.looseObject({
  id: z.string(),
  type: z.string(),
  fetched: z.number().int(),
  written: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
});

const ConnectorFailure = z.looseObject({
  connector: z.string(),
  type: z.string(),
  error: z.looseObject({ name: z.string(), message: z.string() }),
});

/** One connector's progress, in words: `team (discussions): 3 pages, 40 records`. */
function syncProgressMessage(p: RuntimeSyncProgress): string {
  const head = `${p.connector} (${p.type}): ${p.pages} page${p.pages === 1 ? "" : "s"}, ` +
    `${p.records} record${p.records === 1 ? "" : "s"}`;
  switch (p.phase) {
    case "fetching":
      return head;
    case "committing":
      return `${head}, committing`;
    case "committed":
      return `${head}, ${p.written ?? 0} written, ${p.updated ?? 0} updated`;
    default:
      return `${head}, failed`;
  }
}

function syncOutcome(result: RuntimeSyncResult): ToolOutcome {
  const structured: Record<string, unknown> = { ...result };
  if (!result.errors.length) return { structured };
  const failed = result.errors.map((e) => `${e.connector}: ${e.error.message}`).join("; ");
  structured.error = toSafeError(
    new MemoMcpError(`Cannot sync connectors: ${result.errors.length} failed (${failed})`, {
      details: { failed: result.errors.map((e) => e.connector) },
    }),
  );
  return { structured, isError: true };
}

/**
 * `sync_connectors`: a write, open-world tool over `MemoMcpRuntime.syncConnectors`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { syncConnectors } from "./_connector_tools.ts";
 *
 * assert.equal(syncConnectors.name, "sync_connectors");
 * assert.equal(syncConnectors.write, true);
 * ```
 */
export const syncConnectors: Tool = defineTool({
  name: "sync_connectors",
  title: "Sync connectors",
  description:
    "Pull the configured connectors (GitHub Discussions, Notion pages) into memory. Items already stored are not written twice. Reports counts per connector; a failed connector makes the result an error that still carries the others' counts.",
  write: true,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  input: () =>
    z.strictObject({
      connectors: z.array(z.string().min(1).max(200)).max(50).optional().describe(
        "Ids of the connectors to run; all configured ones when missing.",
      ),
    }),
  output: output({
    connectors: z.array(ConnectorSummary),
    written: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    errors: z.array(ConnectorFailure),
  }, ["connectors", "written", "updated", "unchanged", "errors"]),
  async run(a, ctx) {
    const progress = ctx.progress;
    let step = 0;
    const onProgress = progress
      ? (p: RuntimeSyncProgress) => progress(++step, undefined, syncProgressMessage(p))
      : undefined;
    return syncOutcome(
      await ctx.runtime.syncConnectors({ only: a.connectors, signal: ctx.signal, onProgress }),
    );
  },
});
