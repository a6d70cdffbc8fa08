/**
 * {@linkcode MemoMcpOptions}, the options of the protocol server and the SDK bridge, and
 * {@linkcode resolveMemoMcpOptions}, the one place their defaults are applied.
 *
 * @module
 */

import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { VERSION } from "../version.ts";
import { MemoMcpError } from "./errors.ts";
import { MEMO_MCP_LIMITS, type MemoMcpLimitName } from "./limits.ts";
import { MAX_LIMIT_VALUE } from "../env.ts";
import type { MemoMcpAuthInfo, MemoMcpTransportKind } from "./types.ts";
import type { MemoMcpLogger } from "./logging.ts";

/**
 * What `authorize` is told about a write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   type AuthorizationContext,
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const asked: AuthorizationContext[] = [];
 * const server = createMemoMcpProtocolServer({
 *   runtime,
 *   authorize: (ctx) => {
 *     asked.push(ctx);
 *     return ctx.tool === "remember"; // remember may write; nothing else may
 *   },
 * });
 * const call = (name: string, args: object) =>
 *   server.handle(JSON.stringify({
 *     jsonrpc: "2.0",
 *     id: 1,
 *     method: "tools/call",
 *     params: { name, arguments: args },
 *   }));
 *
 * await call("remember", { text: "Deploys run with make deploy" });
 * const refused = JSON.parse((await call("forget", { id: "x1" }))!);
 * assert.equal(refused.error.message, "Cannot call forget: not authorized");
 * assert.deepEqual(asked.map((ctx) => [ctx.tool, ctx.transport]), [
 *   ["remember", "stdio"],
 *   ["forget", "stdio"],
 * ]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface AuthorizationContext {
  /** The write tool being called: `remember`, `update_note`, `forget` or `sync_connectors`. */
  tool: string;
  /** The call's arguments, after `redact`. */
  arguments: unknown;
  /** Transport the call came through. */
  transport: MemoMcpTransportKind;
  /** The HTTP request, over HTTP. */
  request?: Request;
  /** What the HTTP layer (or the SDK's auth) learnt about the caller. */
  authInfo?: MemoMcpAuthInfo;
}

/**
 * Timer functions, injectable so that tests control timeouts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpTimer,
 * } from "@memo/mcp-server";
 *
 * const scheduled: number[] = [];
 * let cleared = 0;
 * const timer: MemoMcpTimer = {
 *   setTimeout: (_callback, ms) => scheduled.push(ms), // never fires
 *   clearTimeout: () => void cleared++,
 * };
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime, timer, requestTimeoutMs: 5000 });
 * await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "memory_stats", arguments: {} },
 * }));
 * assert.deepEqual(scheduled, [5000]); // the call's deadline …
 * assert.equal(cleared, 1); // … cleared when it answered in time
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpTimer {
  /** Schedules `callback` after `ms` milliseconds; returns a handle. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a scheduled callback. */
  clearTimeout(handle: unknown): void;
}

/**
 * Options of {@linkcode createMemoMcpProtocolServer} and {@linkcode registerMemoMcpCapabilities}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpOptions,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const options: MemoMcpOptions = {
 *   runtime: createMemoMcpRuntimeFromConfig({ rootDir }),
 *   name: "team-memory",
 *   instructions: "Recall before answering questions about our infrastructure.",
 *   readOnly: true,
 *   requestTimeoutMs: 10_000,
 * };
 * const server = createMemoMcpProtocolServer(options);
 * const reply = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "initialize",
 *   params: {
 *     protocolVersion: "2025-06-18",
 *     capabilities: {},
 *     clientInfo: { name: "example", version: "1.0.0" },
 *   },
 * }));
 * const { result } = JSON.parse(reply!);
 * assert.equal(result.serverInfo.name, "team-memory");
 * assert.equal(result.instructions, options.instructions);
 * await options.runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpOptions {
  /** Where the data comes from. */
  runtime: MemoMcpRuntime;
  /**
   * Server name reported by `initialize`.
   * @default "memo"
   */
  name?: string;
  /**
   * Server version reported by `initialize`.
   * @default the package version
   */
  version?: string;
  /**
   * Instructions for the model, sent with the `initialize` result.
   * @default undefined (none)
   */
  instructions?: string;
  /**
   * Refuse every write tool with `MCP_AUTHORIZATION_ERROR`.
   * @default false
   */
  readOnly?: boolean;
  /**
   * Page size of list operations when the caller gives none.
   * @default 25
   */
  defaultPageSize?: number;
  /**
   * Largest page size a caller may ask for.
   * @default 100
   */
  maxPageSize?: number;
  /**
   * Time one operation may take before it is abandoned (its AbortSignal fires) with `MCP_TIMEOUT`.
   * @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * Most `subscriptions/listen` streams open at once: per HTTP endpoint, or per stdio connection.
   * One past it is refused (HTTP 503 with `Retry-After`).
   * @default 64
   */
  maxListenStreams?: number;
  /**
   * Largest raw request message, in bytes.
   * @default 256000
   */
  maxInputBytes?: number;
  /**
   * Largest serialized JSON-RPC response, in bytes; a larger one is replaced by an
   * `MCP_OUTPUT_LIMIT` error.
   * @default 512000
   */
  maxOutputBytes?: number;
  /**
   * Decides every write tool call; `false` (or a throw) refuses it with `MCP_AUTHORIZATION_ERROR`.
   * @default undefined (writes are allowed unless `readOnly`)
   */
  authorize?: (context: AuthorizationContext) => boolean | Promise<boolean>;
  /**
   * Rewrites tool arguments before they are logged, passed to `authorize` or put in error details.
   * Values it removes or replaces are also masked in error messages. Keys that name secrets
   * (`token`, `apiKey` …) are always masked, before this runs.
   * @default undefined (only secret-named keys are masked)
   */
  redact?: (args: unknown) => unknown;
  /**
   * Receives log records.
   * @default undefined (silent)
   */
  logger?: MemoMcpLogger;
  /**
   * Timer used for `requestTimeoutMs`.
   * @default globalThis.setTimeout / clearTimeout
   */
  timer?: MemoMcpTimer;
}

/**
 * {@linkcode MemoMcpOptions} with every default applied (the options without one may still be
 * `undefined`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   resolveMemoMcpOptions,
 *   type ResolvedMemoMcpOptions,
 *   VERSION,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const resolved: ResolvedMemoMcpOptions = resolveMemoMcpOptions({ runtime, maxPageSize: 10 });
 * assert.equal(resolved.version, VERSION);
 * assert.equal(resolved.readOnly, false);
 * assert.equal(resolved.defaultPageSize, 10); // 25 by default, but not above maxPageSize
 * assert.equal(resolved.logger, undefined);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type ResolvedMemoMcpOptions =
  & Required<Omit<MemoMcpOptions, "instructions" | "authorize" | "redact" | "logger">>
  & { [K in "instructions" | "authorize" | "redact" | "logger"]: MemoMcpOptions[K] | undefined };

/**
 * The defaults of {@linkcode MemoMcpOptions}: the server name and the limits of
 * {@linkcode MEMO_MCP_LIMITS}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_MCP_DEFAULTS } from "@memo/mcp-server";
 *
 * assert.equal(MEMO_MCP_DEFAULTS.name, "memo");
 * assert.equal(MEMO_MCP_DEFAULTS.maxOutputBytes, 512000);
 * ```
 */
export const MEMO_MCP_DEFAULTS: Readonly<{ name: "memo" } & Record<MemoMcpLimitName, number>> =
  Object.freeze({
    name: "memo" as const,
    ...Object.fromEntries(MEMO_MCP_LIMITS.map((l) => [l.option, l.default])) as Record<
      MemoMcpLimitName,
      number
    >,
  });

const SYSTEM_TIMER: MemoMcpTimer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

function positiveInt(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_LIMIT_VALUE) {
    throw new MemoMcpError(
      `Cannot create the MCP server: ${field} must be an integer from 1 to ${MAX_LIMIT_VALUE}`,
    );
  }
  return value;
}

/**
 * Applies the defaults of {@linkcode MemoMcpOptions} and checks the limits (positive integers,
 * `defaultPageSize` at most `maxPageSize`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * const resolved = resolveMemoMcpOptions({ runtime });
 * assert.equal(resolved.name, "memo");
 * assert.equal(resolved.maxPageSize, 100);
 * assert.throws(
 *   () => resolveMemoMcpOptions({ runtime, defaultPageSize: 50, maxPageSize: 20 }),
 *   /defaultPageSize must not be larger than maxPageSize/,
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function resolveMemoMcpOptions(options: MemoMcpOptions): ResolvedMemoMcpOptions {
  if (!options || typeof options.runtime !== "object" || options.runtime === null) {
    throw new MemoMcpError("Cannot create the MCP server: options.runtime is required");
  }
  const limits = {} as Record<MemoMcpLimitName, number>;
  for (const { option, default: fallback } of MEMO_MCP_LIMITS) {
    limits[option] = positiveInt(options[option], fallback, option);
  }
  if (options.defaultPageSize === undefined) {
    limits.defaultPageSize = Math.min(limits.defaultPageSize, limits.maxPageSize);
  }
  if (limits.defaultPageSize > limits.maxPageSize) {
    throw new MemoMcpError(
      "Cannot create the MCP server: defaultPageSize must not be larger than maxPageSize",
    );
  }
  return {
    runtime: options.runtime,
    name: options.name ?? MEMO_MCP_DEFAULTS.name,
    version: options.version ?? VERSION,
    instructions: options.instructions,
    readOnly: options.readOnly ?? false,
    ...limits,
    authorize: options.authorize,
    redact: options.redact,
    logger: options.logger,
    timer: options.timer ?? SYSTEM_TIMER,
  };
}
