/**
 * The one place where a runtime's errors become MCP errors. Runtimes throw `MemoRuntimeError`s with
 * a stable `code`; this maps each code to {@linkcode MemoMcpError} or a subclass. It reads the code
 * only (a type import), so the server never loads the runtimes. A `MemoMcpError` that a caller's
 * own runtime throws passes through unchanged, and so does anything else (an I/O failure, which
 * becomes -32603).
 *
 * @module
 */

import type { MemoRuntimeError } from "../../runtimes/errors.ts";
import type { MemoMcpRuntime } from "../../runtimes/types.ts";
import { McpConflictError, McpNotFoundError, McpValidationError, MemoMcpError } from "../errors.ts";

/**
 * The MCP error for a runtime error, by its `code`:
 *
 * | runtime code | MCP error |
 * |---|---|
 * | `INVALID_INPUT`, `CONFIG` | `McpValidationError` |
 * | `NOTE_NOT_FOUND` | `McpNotFoundError`, `details: {kind: "note", id}` |
 * | `CONNECTOR_NOT_FOUND` | `McpNotFoundError`, `details: {kind: "connector", ids}` |
 * | `UNAVAILABLE` | `MemoMcpError` (500) |
 * | `CONFLICT` | `McpConflictError` (409) |
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoRuntimeError } from "../../runtimes/errors.ts";
 * import { McpNotFoundError } from "../errors.ts";
 * import { mcpErrorOf } from "./_runtime_errors.ts";
 *
 * const e = mcpErrorOf(new MemoRuntimeError("NOTE_NOT_FOUND", "Cannot find note x1", {
 *   details: { id: "x1" },
 * }));
 * assert.ok(e instanceof McpNotFoundError);
 * assert.deepEqual(e.details, { kind: "note", id: "x1" });
 * ```
 */
export function mcpErrorOf(error: unknown): unknown {
  if (error instanceof MemoMcpError) return error;
  if (!(error instanceof Error) || error.name !== "MemoRuntimeError") return error;
  const { code, details, message } = error as MemoRuntimeError;
  const options = { cause: error };
  switch (code) {
    case "INVALID_INPUT":
    case "CONFIG":
      return new McpValidationError(message, options);
    case "NOTE_NOT_FOUND":
      return new McpNotFoundError(message, {
        ...options,
        details: { kind: "note", id: String(details?.id ?? "") },
      });
    case "CONNECTOR_NOT_FOUND":
      return new McpNotFoundError(message, {
        ...options,
        details: { kind: "connector", ids: details?.ids },
      });
    case "UNAVAILABLE":
      return new MemoMcpError(message, options);
    case "CONFLICT":
      return new McpConflictError(message, options);
    default:
      return error;
  }
}

/** `call()`, its errors (thrown or rejected) mapped; without an async frame of its own. */
function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call()).then(undefined, rethrowMapped);
  } catch (e) {
    return Promise.reject(mcpErrorOf(e));
  }
}

function rethrowMapped(e: unknown): never {
  throw mcpErrorOf(e);
}

/**
 * The same runtime, with every call's errors mapped by {@linkcode mcpErrorOf}. The MCP core calls
 * the runtime only through it. It has `watch`, `recallDetailed`, `embed`, `correct`, `supersede`,
 * `tidy` and `applyTidy` exactly when the runtime has them (so `"watch" in wrapped` tells whether
 * change notification is available).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "../../runtimes/factory.ts";
 * import { McpNotFoundError, MemoMcpError } from "../errors.ts";
 * import { withMcpErrors } from "./_runtime_errors.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = withMcpErrors(createMemoMcpRuntimeFromConfig({ rootDir }));
 * await assert.rejects(runtime.get("nope"), McpNotFoundError);
 * assert.ok(runtime.watch); // the local runtime can report changes
 * await runtime.close();
 * assert.throws(() => runtime.watch!(() => {}), MemoMcpError); // closed: UNAVAILABLE
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function withMcpErrors(runtime: MemoMcpRuntime): MemoMcpRuntime {
  return {
    kind: runtime.kind,
    remember: (input, options) => mapped(() => runtime.remember(input, options)),
    recall: (query, options) => mapped(() => runtime.recall(query, options)),
    ...(runtime.recallDetailed
      ? {
        recallDetailed: (query, options) => mapped(() => runtime.recallDetailed!(query, options)),
      }
      : {}),
    ...(runtime.embed ? { embed: (options) => mapped(() => runtime.embed!(options)) } : {}),
    get: (id, options) => mapped(() => runtime.get(id, options)),
    list: (options) => mapped(() => runtime.list(options)),
    update: (id, patch, options) => mapped(() => runtime.update(id, patch, options)),
    forget: (id, options) => mapped(() => runtime.forget(id, options)),
    ...(runtime.correct
      ? { correct: (input, options) => mapped(() => runtime.correct!(input, options)) }
      : {}),
    ...(runtime.supersede
      ? { supersede: (input, options) => mapped(() => runtime.supersede!(input, options)) }
      : {}),
    ...(runtime.tidy ? { tidy: (options) => mapped(() => runtime.tidy!(options)) } : {}),
    ...(runtime.applyTidy
      ? { applyTidy: (plan, options) => mapped(() => runtime.applyTidy!(plan, options)) }
      : {}),
    stats: (options) => mapped(() => runtime.stats(options)),
    syncConnectors: (options) => mapped(() => runtime.syncConnectors(options)),
    completeIds: (prefix, limit, options) =>
      mapped(() => runtime.completeIds(prefix, limit, options)),
    ...(runtime.watch ? { watch: (onChange) => mappedSync(() => runtime.watch!(onChange)) } : {}),
    ...(runtime.scrubSecrets ? { scrubSecrets: (value) => runtime.scrubSecrets!(value) } : {}),
    ...(runtime.recallProfile
      ? { recallProfile: (options) => mapped(() => runtime.recallProfile!(options)) }
      : {}),
    close: () => runtime.close(),
  };
}

function mappedSync<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    throw mcpErrorOf(e);
  }
}
