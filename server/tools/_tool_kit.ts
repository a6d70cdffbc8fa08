/**
 * The kit the tool records are written with: the annotations, what a run gets and returns, and
 * `defineTool`, which binds a record's schemas to the server's page-size limits and validates
 * the arguments before the handler runs.
 *
 * @module
 */

import { z } from "zod";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { McpValidationError } from "../errors.ts";
import { describeIssues, type SchemaLimits } from "./schemas.ts";
import type { Rendered } from "./_rendered.ts";

/**
 * MCP tool annotations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ToolAnnotations, TOOLS } from "./records.ts";
 *
 * const forget: ToolAnnotations = TOOLS.find((t) => t.name === "forget")!.annotations;
 * assert.equal(forget.readOnlyHint, false);
 * assert.equal(forget.destructiveHint, true);
 * ```
 */
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

/**
 * What a tool run returns: the structured result, and whether it is a tool error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { type ToolOutcome, TOOLS } from "./records.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const stats = TOOLS.find((t) => t.name === "memory_stats")!.bind({
 *   defaultPageSize: 25,
 *   maxPageSize: 100,
 * });
 * const ctx = { runtime, signal: new AbortController().signal, defaultPageSize: 25 };
 * const outcome: ToolOutcome = await stats.call({}, ctx);
 * assert.equal(outcome.structured.notes, 0);
 * assert.equal(outcome.isError, undefined);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface ToolOutcome {
  /** `structuredContent` of the result. */
  structured: Record<string, unknown>;
  /** Set when the result reports a failure the model should read. */
  isError?: boolean;
  /** `structured`, already serialized (a result rendered before, kept with its hits). */
  rendered?: Rendered;
}

/**
 * Per-call facts a tool run gets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { type ToolRunContext, TOOLS } from "./records.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * for (const text of ["one", "two", "three"]) await runtime.remember({ text });
 * const listNotes = TOOLS.find((t) => t.name === "list_notes")!.bind({
 *   defaultPageSize: 25,
 *   maxPageSize: 100,
 * });
 * const signal = new AbortController().signal;
 * const ctx: ToolRunContext = { runtime, signal, defaultPageSize: 2 };
 * const { structured } = await listNotes.call({}, ctx);
 * assert.equal((structured.notes as unknown[]).length, 2); // the context's page size
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface ToolRunContext {
  /** The runtime (its errors already mapped to MCP errors). */
  runtime: MemoMcpRuntime;
  /** Aborted on timeout or cancellation. */
  signal: AbortSignal;
  /** Default page size of `list_notes`. */
  defaultPageSize: number;
  /**
   * Sends `notifications/progress` for this call; set only when the client
   * asked for progress (`_meta.progressToken`) and the transport can
   * deliver it. Values that do not increase are dropped.
   */
  progress?: (progress: number, total?: number, message?: string) => void;
}

/**
 * One tool, as it is written: its facts, its schemas and its handler (see {@linkcode defineTool}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { READ, type ToolDefinition } from "./_tool_kit.ts";
 *
 * const def: ToolDefinition<z.ZodObject> = {
 *   name: "echo", title: "Echo", description: "Says it back.", write: false, annotations: READ,
 *   input: () => z.strictObject({}), output: z.looseObject({}),
 *   run: () => Promise.resolve({ structured: {} }),
 * };
 * assert.equal(def.write, false);
 * ```
 */
export interface ToolDefinition<I extends z.ZodType> {
  name: string;
  title: string;
  /**
   * What the model reads to decide when to call it; a function when it depends on the runtime's
   * recall settings (`undefined`: not known).
   */
  description: string | ((recall: SchemaLimits["recall"]) => string);
  /** Whether it writes (and so goes through `authorize` and `readOnly`). */
  write: boolean;
  annotations: ToolAnnotations;
  /** The arguments' schema, for the server's page-size limits. */
  input(limits: SchemaLimits): I;
  /** The schema of `structuredContent`. */
  output: z.ZodType;
  /** Runs the tool on arguments that passed `input`. */
  run(args: z.output<I>, ctx: ToolRunContext): Promise<ToolOutcome>;
  /**
   * A check of the commonest arguments without zod, for a tool called often: the parsed arguments
   * when they surely pass `input` (as zod would give them), else undefined, and zod decides (and
   * words the errors).
   */
  quick?(args: unknown, limits: SchemaLimits): z.output<I> | undefined;
}

/**
 * A tool bound to a set of limits: its schemas, and a call that validates then runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, McpValidationError } from "@memo/mcp-server";
 * import { type BoundTool, TOOLS } from "./records.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const recall: BoundTool = TOOLS.find((t) => t.name === "recall")!.bind({
 *   defaultPageSize: 25,
 *   maxPageSize: 100,
 * });
 * const ctx = { runtime, signal: new AbortController().signal, defaultPageSize: 25 };
 * assert.throws(() => recall.call({ query: "" }, ctx), McpValidationError);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface BoundTool {
  /** What the model reads, for these settings. */
  description: string;
  input: z.ZodType;
  /** The schema of `structuredContent`. */
  output: z.ZodType;
  /**
   * Validates the arguments (throwing `McpValidationError` with
   * `details.issues`) and runs the tool.
   */
  call(args: unknown, ctx: ToolRunContext): Promise<ToolOutcome>;
}

/**
 * A tool record, with its argument type erased.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type Tool, TOOLS } from "./records.ts";
 *
 * const remember: Tool = TOOLS[0];
 * assert.equal(remember.name, "remember");
 * assert.equal(remember.write, true);
 * ```
 */
export interface Tool {
  readonly name: string;
  readonly title: string;
  /** What the model reads (without the runtime's recall settings; see `BoundTool`). */
  readonly description: string;
  /** Whether it writes. */
  readonly write: boolean;
  readonly annotations: ToolAnnotations;
  /** The tool for a set of page-size limits. */
  bind(limits: SchemaLimits): BoundTool;
}

/**
 * A tool from its record: `bind(limits)` gives its schemas for the server's page sizes and a
 * `call` that validates the arguments (throwing `McpValidationError` with `details.issues`) and
 * runs the handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { z } from "zod";
 * import { defineTool, READ } from "./_tool_kit.ts";
 *
 * const echo = defineTool({
 *   name: "echo", title: "Echo", description: "Says it back.", write: false, annotations: READ,
 *   input: () => z.strictObject({ text: z.string() }), output: z.looseObject({}),
 *   run: (a) => Promise.resolve({ structured: { text: a.text } }),
 * });
 * const bound = echo.bind({ defaultPageSize: 25, maxPageSize: 100 });
 * const ctx = { runtime: {} as never, signal: new AbortController().signal, defaultPageSize: 25 };
 * assert.deepEqual((await bound.call({ text: "hi" }, ctx)).structured, { text: "hi" });
 * assert.throws(() => bound.call({}, ctx), { code: "MCP_VALIDATION_ERROR" });
 * ```
 */
export function defineTool<I extends z.ZodType>(def: ToolDefinition<I>): Tool {
  const { input, output, run, quick, description, ...facts } = def;
  const describe = typeof description === "string" ? () => description : description;
  return {
    ...facts,
    description: describe(undefined),
    bind(limits) {
      const schema = input(limits);
      return {
        description: describe(limits.recall),
        input: schema,
        output,
        call(args, ctx) {
          const quickly = quick?.(args, limits);
          if (quickly !== undefined) return run(quickly, ctx);
          const parsed = schema.safeParse(args ?? {});
          if (parsed.success) return run(parsed.data, ctx);
          const { reason, issues } = describeIssues(parsed.error);
          throw new McpValidationError(`Cannot call ${def.name}: invalid arguments (${reason})`, {
            details: { tool: def.name, issues },
          });
        },
      };
    },
  };
}

/**
 * Annotations of the tools that only read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { READ } from "./_tool_kit.ts";
 * assert.equal(READ.readOnlyHint, true);
 * ```
 */
export const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/**
 * Annotations of the tools that change or delete a note in place (same call, same end state).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { REWRITE } from "./_tool_kit.ts";
 * assert.deepEqual([REWRITE.destructiveHint, REWRITE.idempotentHint], [true, true]);
 * ```
 */
export const REWRITE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * A page size or hit count from 1 to the server's largest page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pageLimit } from "./_tool_kit.ts";
 * const limit = pageLimit({ defaultPageSize: 25, maxPageSize: 100 }, "Most hits", 10);
 * assert.ok(limit.safeParse(100).success);
 * assert.ok(!limit.safeParse(101).success);
 * ```
 */
export const pageLimit = (limits: SchemaLimits, what: string, def: number) =>
  z.number().int().min(1).max(limits.maxPageSize).describe(
    `${what} (1 to ${limits.maxPageSize}; default ${def}).`,
  );

/**
 * The optional source-key prefix filter of recall and list_notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sourcePrefix } from "./_tool_kit.ts";
 * assert.ok(sourcePrefix().safeParse("github:").success);
 * ```
 */
export const sourcePrefix = () =>
  z.string().max(512).optional().describe("Only notes whose source key starts with this prefix.");
