/**
 * The shapes of the official MCP SDK that memo relies on, declared
 * structurally ({@linkcode McpServerLike} and what its callbacks get and
 * give): this package does not depend on the SDK.
 *
 * @module
 */

/**
 * The `extra` argument the SDK passes to callbacks (the parts memo reads).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   type McpServerLike,
 *   registerMemoMcpCapabilities,
 *   type SdkRequestExtra,
 *   type SdkResult,
 * } from "@memo/mcp-server";
 *
 * type ToolCallback = (
 *   args: Record<string, unknown>,
 *   extra: SdkRequestExtra,
 * ) => Promise<SdkResult>;
 * const tools = new Map<string, ToolCallback>();
 * const sdkServer: McpServerLike = {
 *   registerTool: (name, _config, callback) => void tools.set(name, callback),
 *   registerResource: () => {},
 *   registerPrompt: () => {},
 * };
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * registerMemoMcpCapabilities(sdkServer, {
 *   runtime,
 *   // The SDK's auth info reaches authorize as authInfo.extra.
 *   authorize: (ctx) => ctx.authInfo?.extra?.clientId === "ci-bot",
 * });
 * const extra: SdkRequestExtra = { requestId: 1, authInfo: { clientId: "someone-else" } };
 * const result = await tools.get("remember")!({ text: "Deploys run with make deploy" }, extra);
 * assert.equal(result.isError, true);
 * assert.equal(
 *   (result.structuredContent as { error: { message: string } }).error.message,
 *   "Cannot call remember: not authorized",
 * );
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface SdkRequestExtra {
  /** Aborted when the client cancels (SDK v1). */
  signal?: AbortSignal;
  /** The SDK's auth info (its token is never read) (SDK v1). */
  authInfo?: SdkAuthInfo;
  /** The request id (SDK v1). */
  requestId?: string | number;
  /** SDK v2's `ctx.mcpReq`: the request id and its cancellation signal. */
  mcpReq?: { id?: string | number; signal?: AbortSignal };
  /** SDK v2's `ctx.http`: the auth info of an HTTP request. */
  http?: { authInfo?: SdkAuthInfo };
}

/**
 * The parts of the SDK's `AuthInfo` memo reads (never the token): they reach
 * `authorize` as `authInfo.extra`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SdkAuthInfo } from "@memo/mcp-server";
 *
 * const info: SdkAuthInfo = { clientId: "ci-bot", scopes: ["notes:write"] };
 * assert.equal(info.clientId, "ci-bot");
 * ```
 */
export interface SdkAuthInfo {
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** The token's scopes. */
  scopes?: string[];
  /** Anything else the host's authentication put there. */
  extra?: Record<string, unknown>;
}

/**
 * A callback result the SDK sends back as is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   registerMemoMcpCapabilities,
 *   type SdkRequestExtra,
 *   type SdkResult,
 * } from "@memo/mcp-server";
 *
 * type ToolCallback = (
 *   args: Record<string, unknown>,
 *   extra: SdkRequestExtra,
 * ) => Promise<SdkResult>;
 * let stats: ToolCallback | undefined;
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * registerMemoMcpCapabilities({
 *   registerTool: (name, _config, callback) => {
 *     if (name === "memory_stats") stats = callback;
 *   },
 *   registerResource: () => {},
 *   registerPrompt: () => {},
 * }, { runtime });
 * const result: SdkResult = await stats!({}, {});
 * assert.equal((result.structuredContent as { notes: number }).notes, 0);
 * assert.equal((result.content as { type: string }[])[0].type, "text");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type SdkResult = Record<string, unknown>;

/**
 * What memo's callbacks resolve with, as `McpServerLike` declares it: an
 * `SdkResult`, typed loosely so that an SDK whose result types have required
 * fields (v2's `CallToolResult.content`) still accepts the callbacks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SdkCallbackResult } from "@memo/mcp-server";
 *
 * const answer = (): SdkCallbackResult => Promise.resolve({ content: [] });
 * assert.deepEqual(await answer(), { content: [] });
 * ```
 */
// deno-lint-ignore no-explicit-any
export type SdkCallbackResult = Promise<any>;

/**
 * The part of the SDK's `McpServer` that memo uses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   type McpServerLike,
 *   registerMemoMcpCapabilities,
 * } from "@memo/mcp-server";
 *
 * const registered: string[] = [];
 * const fake: McpServerLike = {
 *   registerTool: (name) => void registered.push(`tool ${name}`),
 *   registerResource: (name) => void registered.push(`resource ${name}`),
 *   registerPrompt: (name) => void registered.push(`prompt ${name}`),
 * };
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, prewarm: false });
 * registerMemoMcpCapabilities(fake, { runtime });
 * assert.equal(registered.filter((r) => r.startsWith("tool ")).length, 11);
 * assert.deepEqual(registered.filter((r) => !r.startsWith("tool ")), [
 *   "resource stats",
 *   "resource note",
 *   "prompt recall_context",
 *   "prompt capture_session",
 *   "prompt review_memory",
 * ]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface McpServerLike {
  /** `McpServer.registerTool(name, config, callback)`. */
  registerTool(
    name: string,
    config: {
      title?: string;
      description?: string;
      inputSchema?: unknown;
      outputSchema?: unknown;
      annotations?: Record<string, unknown>;
    },
    callback: (args: Record<string, unknown>, extra: SdkRequestExtra) => SdkCallbackResult,
  ): unknown;
  /** `McpServer.registerResource(name, uriOrTemplate, metadata, callback)`. */
  registerResource(
    name: string,
    uriOrTemplate: string | SdkResourceTemplateLike,
    metadata: Record<string, unknown>,
    // deno-lint-ignore no-explicit-any
    callback: (...args: any[]) => SdkCallbackResult,
  ): unknown;
  /** `McpServer.registerPrompt(name, config, callback)`. */
  registerPrompt(
    name: string,
    config: { title?: string; description?: string; argsSchema?: Record<string, unknown> },
    callback: (args: Record<string, unknown>, extra: SdkRequestExtra) => SdkCallbackResult,
  ): unknown;
  /**
   * `McpServer.sendResourceListChanged()`: memo calls it when notes are added or removed, by this
   * server or any other writer, when the runtime can watch.
   */
  sendResourceListChanged?(): void;
  /**
   * `McpServer.connect(transport)`: memo watches the runtime for list changes while the server is
   * connected (from each `connect` to its `close`), so a closed server leaves no listener behind.
   */
  connect?(transport: never): Promise<void>;
  /**
   * `McpServer.server`, the protocol server: memo chains its `onclose` to stop watching, and reads
   * its `transport` to tell whether it is connected already.
   */
  server?: { onclose?: (() => void) | undefined; readonly transport?: unknown };
}

/**
 * The shape of the SDK's `ResourceTemplate` that `McpServer` reads.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpRuntimeFromConfig,
 *   registerMemoMcpCapabilities,
 *   type SdkResourceTemplateLike,
 * } from "@memo/mcp-server";
 *
 * const templates: SdkResourceTemplateLike[] = [];
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "Deploys run with make deploy" });
 * registerMemoMcpCapabilities({
 *   registerTool: () => {},
 *   registerResource: (_name, uriOrTemplate) => {
 *     if (typeof uriOrTemplate !== "string") templates.push(uriOrTemplate);
 *   },
 *   registerPrompt: () => {},
 * }, { runtime });
 * const [template] = templates;
 * assert.equal(String(template.uriTemplate), "memo://notes/{id}");
 * assert.deepEqual(template.uriTemplate.match(`memo://notes/${note.id}`), { id: note.id });
 * const complete = template.completeCallback("id")!;
 * assert.deepEqual(await complete(note.id.slice(0, 4)), [note.id]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface SdkResourceTemplateLike {
  /** The URI template: `toString()`, `variableNames` and `match(uri)`. */
  readonly uriTemplate: {
    toString(): string;
    readonly variableNames: string[];
    match(uri: string): Record<string, string> | null;
  };
  /** Lists the resources of the template. */
  readonly listCallback: ((extra: SdkRequestExtra) => Promise<SdkResult>) | undefined;
  /** The completer of a variable. */
  completeCallback(variable: string): ((value: string) => Promise<string[]>) | undefined;
}
