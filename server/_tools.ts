/**
 * The eight tools: their descriptions, annotations and what each one asks of
 * the runtime. Arguments arrive already validated (see `_catalog.ts`).
 *
 * @module
 */

import type { MemoMcpRuntime, RuntimeSyncResult } from "../runtimes/types.ts";
import { MemoMcpError, toSafeError } from "./errors.ts";

/** The tool names, in the order `tools/list` gives them. */
export const TOOL_NAMES = [
  "remember",
  "recall",
  "get_note",
  "list_notes",
  "update_note",
  "forget",
  "sync_connectors",
  "memory_stats",
] as const;

/** A tool name. */
export type ToolName = typeof TOOL_NAMES[number];

/** MCP tool annotations. */
export interface ToolAnnotations {
  /** The tool does not change anything. */
  readOnlyHint: boolean;
  /** The tool may overwrite or delete data. */
  destructiveHint: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint: boolean;
  /** The tool talks to services outside memo. */
  openWorldHint: boolean;
}

/** What a tool run returns: the structured result, and whether it is a tool error. */
export interface ToolOutcome {
  /** `structuredContent` of the result. */
  structured: Record<string, unknown>;
  /** Set when the result reports a failure the model should read. */
  isError?: boolean;
}

/** Per-call facts a tool run gets. */
export interface ToolRunContext {
  /** The runtime. */
  runtime: MemoMcpRuntime;
  /** Aborted on timeout or cancellation. */
  signal: AbortSignal;
  /** Default page size of `list_notes`. */
  defaultPageSize: number;
}

/** Static facts about one tool. */
export interface ToolInfo {
  /** Display title. */
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Whether it writes (and so goes through `authorize` and `readOnly`). */
  write: boolean;
  /** MCP annotations. */
  annotations: ToolAnnotations;
  /** Runs the tool on validated arguments. */
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<ToolOutcome>;
}

const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Annotations of the tools that change or delete a note in place (same call, same end state). */
const REWRITE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

type Args = Record<string, unknown>;
const str = (a: Args, k: string) => a[k] as string | undefined;
const list = (a: Args, k: string) => a[k] as string[] | undefined;

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

/** The tools by name. */
export const TOOLS: Readonly<Record<ToolName, ToolInfo>> = {
  remember: {
    title: "Remember",
    description:
      "Store a note in the project's memory (.memo/memory/notes.md) so that it can be recalled in later sessions. Use it for durable facts, decisions, conventions and how-tos, not for chit-chat. The same text (or the same source key) is never stored twice; a known source key with new text updates that note.",
    write: true,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    async run(a, ctx) {
      const result = await ctx.runtime.remember({
        text: str(a, "text")!,
        title: str(a, "title"),
        labels: list(a, "labels"),
        source: str(a, "source"),
      }, { signal: ctx.signal });
      return { structured: { note: result.note, status: result.status } };
    },
  },
  recall: {
    title: "Recall",
    description:
      "Search the project's memory and return the notes that best match a query, best first, each with the terms it matched. Call it before answering questions about this project, its decisions or its conventions. Filter with labels or a source prefix; set explain to see why each note ranked.",
    write: false,
    annotations: READ,
    async run(a, ctx) {
      const hits = await ctx.runtime.recall(str(a, "query")!, {
        limit: (a.limit as number | undefined) ?? 10,
        engine: a.engine as "auto" | undefined,
        labels: list(a, "labels"),
        source: str(a, "source"),
        explain: a.explain as boolean | undefined,
        signal: ctx.signal,
      });
      return { structured: { hits } };
    },
  },
  get_note: {
    title: "Get note",
    description: "Read one note in full by its id.",
    write: false,
    annotations: READ,
    async run(a, ctx) {
      return { structured: { note: await ctx.runtime.get(str(a, "id")!, { signal: ctx.signal }) } };
    },
  },
  list_notes: {
    title: "List notes",
    description:
      "List the notes in the order they were stored, a page at a time. Pass nextCursor back as cursor for the next page. Filter with labels or a source prefix.",
    write: false,
    annotations: READ,
    async run(a, ctx) {
      const page = await ctx.runtime.list({
        cursor: str(a, "cursor"),
        limit: (a.limit as number | undefined) ?? ctx.defaultPageSize,
        labels: list(a, "labels"),
        source: str(a, "source"),
        signal: ctx.signal,
      });
      const structured: Record<string, unknown> = { notes: page.notes, total: page.total };
      if (page.nextCursor !== undefined) structured.nextCursor = page.nextCursor;
      return { structured };
    },
  },
  update_note: {
    title: "Update note",
    description:
      "Change a note's text, title or labels (labels replace the old ones). Use it to correct a note that recall showed to be wrong or out of date.",
    write: true,
    annotations: REWRITE,
    async run(a, ctx) {
      const note = await ctx.runtime.update(str(a, "id")!, {
        text: str(a, "text"),
        title: str(a, "title"),
        labels: list(a, "labels"),
      }, { signal: ctx.signal });
      return { structured: { note } };
    },
  },
  forget: {
    title: "Forget",
    description:
      "Delete a note by id, for good. Use it for notes that are wrong, duplicated or no longer wanted.",
    write: true,
    annotations: REWRITE,
    async run(a, ctx) {
      return {
        structured: { forgotten: await ctx.runtime.forget(str(a, "id")!, { signal: ctx.signal }) },
      };
    },
  },
  sync_connectors: {
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
    async run(a, ctx) {
      return syncOutcome(
        await ctx.runtime.syncConnectors({ only: list(a, "connectors"), signal: ctx.signal }),
      );
    },
  },
  memory_stats: {
    title: "Memory stats",
    description:
      "Count the notes in memory, per label and per source, with the time of the last change, the recall engine in use, and any damaged sections of notes.md.",
    write: false,
    annotations: READ,
    async run(_a, ctx) {
      return { structured: { ...await ctx.runtime.stats({ signal: ctx.signal }) } };
    },
  },
};
