/**
 * The parts of MCP 2026-07-28 (the stateless revision) that the protocol server adds around the one
 * catalogue both eras share: the per-request `_meta` fields, `server/discover`, the `resultType`,
 * cache hints and `serverInfo` on every result, the methods the revision removes, and its error
 * codes.
 *
 * @module
 */

import { JSON_RPC_CODES, STATELESS_MEMO_CODES } from "../json_rpc_codes.ts";
import { McpValidationError, type SafeError, toSafeError } from "../errors.ts";
import type { ResolvedMemoMcpOptions } from "../options.ts";
import { CAPABILITIES, LIVE_CAPABILITIES, LOG_LEVELS } from "./capabilities.ts";
import { SUPPORTED_PROTOCOL_VERSIONS } from "./versions.ts";

/** `_meta` key: the request's protocol version (required on a stateless request). */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** `_meta` key: the client's capabilities (required on a stateless request). */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** `_meta` key: the client's name and version (optional). */
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** `_meta` key: the lowest log level to send for this request (optional). */
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
/** `_meta` key of a result: the server's name and version. */
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/**
 * How a session-era code reads in a stateless answer: the revision moves "resource not found" to
 * -32602, and it asks that codes it does not define stay out of the JSON-RPC reserved range (-32768
 * to -32000), so memo's own codes for authorization, timeout and output limit move to -31403,
 * -31504 and -31413 (the HTTP status they stand for, under -31000).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statelessErrorCode } from "./stateless.ts";
 *
 * assert.equal(statelessErrorCode(-32002), -32602);
 * assert.equal(statelessErrorCode(-32010), -31403);
 * assert.equal(statelessErrorCode(-32601), -32601);
 * ```
 */
export function statelessErrorCode(code: number): number {
  switch (code) {
    case JSON_RPC_CODES.resourceNotFound:
      return JSON_RPC_CODES.invalidParams;
    case JSON_RPC_CODES.authorization:
      return STATELESS_MEMO_CODES.authorization;
    case JSON_RPC_CODES.timeout:
      return STATELESS_MEMO_CODES.timeout;
    case JSON_RPC_CODES.outputLimit:
      return STATELESS_MEMO_CODES.outputLimit;
    default:
      return code;
  }
}

/**
 * The `data` of a stateless error: the safe error, plus the fields the revision defines beside it
 * (`uri` for a resource that was not found).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statelessErrorData } from "./stateless.ts";
 *
 * const data = statelessErrorData({
 *   code: -32002,
 *   data: {
 *     name: "McpNotFoundError",
 *     message: "Cannot read resource memo://notes/x: not found",
 *     code: "MCP_NOT_FOUND",
 *     status: 404,
 *     details: { kind: "resource", uri: "memo://notes/x" },
 *   },
 * });
 * assert.equal(data.uri, "memo://notes/x");
 * ```
 */
export function statelessErrorData(
  failure: { code: number; data: SafeError },
): SafeError & { uri?: string } {
  const uri = failure.data.details?.uri;
  return failure.code === JSON_RPC_CODES.resourceNotFound && typeof uri === "string"
    ? { ...failure.data, uri }
    : failure.data;
}

/**
 * The message and `data` of an `UnsupportedProtocolVersionError` (-32022): the safe error, with the
 * revision's `supported` and `requested` beside it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unsupportedVersionError } from "./stateless.ts";
 *
 * const { message, data } = unsupportedVersionError("1900-01-01", ["2026-07-28"]);
 * assert.equal(message, "Unsupported protocol version: 1900-01-01 (supported: 2026-07-28)");
 * assert.deepEqual([data.supported, data.requested], [["2026-07-28"], "1900-01-01"]);
 * ```
 */
export function unsupportedVersionError(
  requested: unknown,
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): { message: string; data: SafeError & { supported: string[]; requested: string } } {
  const shown = typeof requested === "string" ? requested : String(requested);
  const message = `Unsupported protocol version: ${shown.slice(0, 40)} (supported: ${
    supported.join(", ")
  })`;
  const safe = toSafeError(new McpValidationError(message));
  return { message, data: { ...safe, supported: [...supported], requested: shown.slice(0, 100) } };
}

/** Methods of the session era that the stateless revision removes (-32601 on a stateless request). */
export const SESSION_ONLY_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** What a result may be cached as (the revision's `ttlMs` and `cacheScope`). */
export interface CacheHint {
  /** Milliseconds the result stays fresh. */
  ttlMs: number;
  /** `public`: the same for every caller; `private`: only for this caller. */
  cacheScope: "public" | "private";
}

/**
 * How long the lists that are the same for everyone (tools, prompts, resource templates,
 * `server/discover`) may be cached: one hour. They change only with memo's version or its page-size
 * limits.
 */
export const PUBLIC_TTL_MS = 3_600_000;

const PUBLIC: CacheHint = { ttlMs: PUBLIC_TTL_MS, cacheScope: "public" };
/** What holds notes is private and stale at once: another write may change it. */
const PRIVATE: CacheHint = { ttlMs: 0, cacheScope: "private" };

const HINTS: ReadonlyMap<string, CacheHint> = new Map([
  ["server/discover", PUBLIC],
  ["tools/list", PUBLIC],
  ["prompts/list", PUBLIC],
  ["resources/templates/list", PUBLIC],
  ["resources/list", PRIVATE],
  ["resources/read", PRIVATE],
  ["tools/call", PRIVATE],
  ["prompts/get", PRIVATE],
]);

/**
 * The cache hint of a method's result, if it carries one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cacheHintOf } from "./stateless.ts";
 *
 * assert.deepEqual(cacheHintOf("resources/read"), { ttlMs: 0, cacheScope: "private" });
 * assert.equal(cacheHintOf("tools/list")?.cacheScope, "public");
 * assert.equal(cacheHintOf("completion/complete"), undefined);
 * ```
 */
export function cacheHintOf(method: string): CacheHint | undefined {
  return HINTS.get(method);
}

/**
 * What the stateless `_meta` of a request says, once checked.
 */
export interface StatelessMeta {
  /** `io.modelcontextprotocol/logLevel`, as an index into the log levels; -1 when absent. */
  logLevel: number;
}

/**
 * Checks the `_meta` of a stateless request: the protocol version (a string), the client
 * capabilities (an object), and the optional client info and log level. Returns the reason it is
 * malformed, or the facts it carries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkStatelessMeta } from "./stateless.ts";
 *
 * const ok = checkStatelessMeta({
 *   "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {},
 *   "io.modelcontextprotocol/logLevel": "info",
 * });
 * assert.deepEqual(ok, { logLevel: 1 });
 * assert.match(String(checkStatelessMeta({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" })), /clientCapabilities/);
 * ```
 */
export function checkStatelessMeta(meta: unknown): StatelessMeta | string {
  if (!isObject(meta)) return `params._meta is required (with ${META_PROTOCOL_VERSION})`;
  if (typeof meta[META_PROTOCOL_VERSION] !== "string") {
    return `params._meta["${META_PROTOCOL_VERSION}"] must be a string`;
  }
  if (!isObject(meta[META_CLIENT_CAPABILITIES])) {
    return `params._meta["${META_CLIENT_CAPABILITIES}"] must be an object`;
  }
  const info = meta[META_CLIENT_INFO];
  if (info !== undefined && !isObject(info)) {
    return `params._meta["${META_CLIENT_INFO}"] must be an object`;
  }
  const level = meta[META_LOG_LEVEL];
  if (level === undefined) return { logLevel: -1 };
  const index = LOG_LEVELS.indexOf(level as never);
  if (index < 0) {
    return `params._meta["${META_LOG_LEVEL}"] must be one of ${LOG_LEVELS.join(", ")}`;
  }
  return { logLevel: index };
}

/** Whether `value` is a plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const serverInfoCache = new WeakMap<ResolvedMemoMcpOptions, string>();

/** `"_meta":{"io.modelcontextprotocol/serverInfo":{…}}`, serialized once per server. */
function serverInfoMeta(options: ResolvedMemoMcpOptions): string {
  let json = serverInfoCache.get(options);
  if (json === undefined) {
    json = `"_meta":${
      JSON.stringify({ [META_SERVER_INFO]: { name: options.name, version: options.version } })
    }`;
    serverInfoCache.set(options, json);
  }
  return json;
}

/**
 * A result, serialized, as a stateless answer carries it: `resultType`, the method's cache hint and
 * `_meta` with `serverInfo` come first, then the result's own fields (spliced in, not parsed
 * again).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { statelessResult } from "./stateless.ts";
 *
 * const options = resolveMemoMcpOptions({ runtime: createMemoMcpRuntimeFromConfig({ prewarm: false }) });
 * const json = statelessResult(options, "resources/read", '{"contents":[]}');
 * assert.deepEqual(JSON.parse(json), {
 *   resultType: "complete",
 *   ttlMs: 0,
 *   cacheScope: "private",
 *   _meta: { "io.modelcontextprotocol/serverInfo": { name: "memo", version: options.version } },
 *   contents: [],
 * });
 * await options.runtime.close();
 * ```
 */
export function statelessResult(
  options: ResolvedMemoMcpOptions,
  method: string,
  resultJson: string,
): string {
  const rest = resultJson.slice(1);
  const open = statelessOpening(options, method);
  return rest === "}" ? open.slice(0, -1) + "}" : open + rest;
}

/**
 * What a stateless result of `method` opens with, up to its own first field: `{`, `resultType`, the
 * cache hint and `_meta`, and a comma. A result built field by field (a tool call's) starts with
 * it, instead of being sliced open again by {@linkcode statelessResult}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { statelessOpening, statelessResult } from "./stateless.ts";
 *
 * const options = resolveMemoMcpOptions({ runtime: createMemoMcpRuntimeFromConfig({ prewarm: false }) });
 * const fields = '"content":[]}';
 * assert.equal(
 *   statelessOpening(options, "tools/call") + fields,
 *   statelessResult(options, "tools/call", "{" + fields),
 * );
 * await options.runtime.close();
 * ```
 */
export function statelessOpening(options: ResolvedMemoMcpOptions, method: string): string {
  const hint = HINTS.get(method);
  let head = `{"resultType":"complete",`;
  if (hint !== undefined) head += `"ttlMs":${hint.ttlMs},"cacheScope":"${hint.cacheScope}",`;
  return head + serverInfoMeta(options) + ",";
}

const discoverCache = new WeakMap<ResolvedMemoMcpOptions, string>();

/**
 * The `server/discover` result's own fields, serialized once per server: the versions memo speaks,
 * its capabilities and instructions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, resolveMemoMcpOptions } from "@memo/mcp-server";
 * import { discoverJson } from "./stateless.ts";
 *
 * const options = resolveMemoMcpOptions({ runtime: createMemoMcpRuntimeFromConfig({ prewarm: false }) });
 * const result = JSON.parse(discoverJson(options));
 * assert.equal(result.supportedVersions[0], "2026-07-28");
 * assert.ok(result.capabilities.tools);
 * await options.runtime.close();
 * ```
 */
export function discoverJson(options: ResolvedMemoMcpOptions): string {
  let json = discoverCache.get(options);
  if (json === undefined) {
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      // subscriptions/listen sends changes when the runtime can watch them.
      capabilities: options.runtime.watch ? LIVE_CAPABILITIES : CAPABILITIES,
    };
    if (options.instructions !== undefined) result.instructions = options.instructions;
    json = JSON.stringify(result);
    discoverCache.set(options, json);
  }
  return json;
}
