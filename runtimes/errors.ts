/**
 * {@linkcode MemoRuntimeError}: what a runtime throws on purpose, with a stable `code`. The
 * runtimes know no protocol: the MCP server maps these codes to its own errors, and the CLI to its
 * exit codes. Anything else a runtime throws (an I/O failure) is passed on as it is.
 *
 * @module
 */

/**
 * The stable codes of {@linkcode MemoRuntimeError}:
 *
 * - `INVALID_INPUT`: input the runtime refuses (an empty text, a forged cursor);
 * - `NOTE_NOT_FOUND`: an unknown note id (`details.id`);
 * - `CONNECTOR_NOT_FOUND`: an unknown connector id (`details.ids`);
 * - `CONFIG`: a configuration that cannot work (an unknown mode or engine, a bad
 *   `.memo/config.json`);
 * - `UNAVAILABLE`: the runtime cannot serve now (it is closed, or this version lacks it);
 * - `CONFLICT`: a write refused while `notes.md` holds an unresolved git merge (conflict markers;
 *   `memo resolve` writes the merge), `details.path`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoRuntimeError,
 *   type MemoRuntimeErrorCode,
 * } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.close();
 * const error = await runtime.stats().catch((e: MemoRuntimeError) => e);
 * const code: MemoRuntimeErrorCode = (error as MemoRuntimeError).code;
 * assert.equal(code, "UNAVAILABLE"); // closed
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoRuntimeErrorCode =
  | "INVALID_INPUT"
  | "NOTE_NOT_FOUND"
  | "CONNECTOR_NOT_FOUND"
  | "CONFIG"
  | "UNAVAILABLE"
  | "CONFLICT";

/**
 * Options of the {@linkcode MemoRuntimeError} constructor.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoRuntimeError, type MemoRuntimeErrorOptions } from "@memo/mcp-server";
 * const cause = new Error("unexpected end of JSON input");
 * const options: MemoRuntimeErrorOptions = { details: { file: ".memo/config.json" }, cause };
 * const e = new MemoRuntimeError("CONFIG", "Cannot read .memo/config.json: invalid JSON", options);
 * assert.equal(e.cause, cause);
 * assert.deepEqual(e.details, { file: ".memo/config.json" });
 * ```
 */
export interface MemoRuntimeErrorOptions {
  /** Facts about the failure (an id, a limit); never secrets. */
  details?: Record<string, unknown>;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * An error a runtime throws on purpose. Match it by `code`, not by class: a caller that imports
 * only the types (the MCP server does) can still read it, because `name` is always
 * `MemoRuntimeError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoRuntimeError } from "@memo/mcp-server";
 * const e = new MemoRuntimeError("NOTE_NOT_FOUND", "Cannot find note x1", {
 *   details: { id: "x1" },
 * });
 * assert.equal(e.name, "MemoRuntimeError");
 * assert.equal(e.code, "NOTE_NOT_FOUND");
 * assert.deepEqual(e.details, { id: "x1" });
 * ```
 */
export class MemoRuntimeError extends Error {
  /** Stable machine-readable code. */
  readonly code: MemoRuntimeErrorCode;
  /** Facts about the failure, safe to show. */
  readonly details?: Record<string, unknown>;
  /** Creates the error. */
  constructor(code: MemoRuntimeErrorCode, message: string, options: MemoRuntimeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoRuntimeError";
    this.code = code;
    if (options.details !== undefined) this.details = options.details;
  }
}

/**
 * Whether `error` is a {@linkcode MemoRuntimeError}, by name and code (so it also holds for one
 * from another copy of this package), optionally with a given code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isMemoRuntimeError, MemoRuntimeError } from "@memo/mcp-server";
 * const e = new MemoRuntimeError("INVALID_INPUT", "Cannot list notes: invalid cursor");
 * assert.ok(isMemoRuntimeError(e));
 * assert.ok(isMemoRuntimeError(e, "INVALID_INPUT"));
 * assert.ok(!isMemoRuntimeError(e, "CONFIG"));
 * assert.ok(!isMemoRuntimeError(new Error("disk gone")));
 * ```
 */
export function isMemoRuntimeError(
  error: unknown,
  code?: MemoRuntimeErrorCode,
): error is MemoRuntimeError {
  if (!(error instanceof Error) || error.name !== "MemoRuntimeError") return false;
  const actual = (error as { code?: unknown }).code;
  return typeof actual === "string" && (code === undefined || actual === code);
}
