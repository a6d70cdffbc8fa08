/**
 * Public types of the MCP protocol server. The transports (stdio, HTTP, the SDK bridge) only move
 * bytes; everything else happens behind {@linkcode MemoMcpProtocolServer.handle}.
 *
 * The signatures of `handle`, `handleParsed` and `MemoMcpRequestContext` are the contract between
 * the protocol server and its transports (`stdio.ts`, `server/http/`, `http.ts`, the SDK bridge):
 * extend them, do not change them.
 *
 * @module
 */

import type { SafeError } from "./errors.ts";

/**
 * Transports the protocol server is reached through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpTransportKind,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({
 *   runtime,
 *   authorize: (ctx) => ctx.transport !== "http", // local clients may write, remote ones not
 * });
 * const remember = async (transport: MemoMcpTransportKind) => {
 *   const reply = await server.handle(
 *     JSON.stringify({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       method: "tools/call",
 *       params: { name: "remember", arguments: { text: `Written over ${transport}` } },
 *     }),
 *     { transport, protocolVersion: "2025-06-18" },
 *   );
 *   return JSON.parse(reply!);
 * };
 * assert.equal((await remember("stdio")).result.structuredContent.status, "written");
 * assert.equal((await remember("http")).error.message, "Cannot call remember: not authorized");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export type MemoMcpTransportKind = "stdio" | "http" | "sdk";

/**
 * What the HTTP layer learnt about the caller when it authenticated the request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpAuthInfo,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({
 *   runtime,
 *   authorize: (ctx) => ctx.authInfo?.extra?.role === "editor",
 * });
 * // What a custom `authenticate` found out; the HTTP layer passes it on.
 * const authInfo: MemoMcpAuthInfo = { scheme: "custom", extra: { role: "viewer" } };
 * const reply = await server.handle(
 *   JSON.stringify({
 *     jsonrpc: "2.0",
 *     id: 1,
 *     method: "tools/call",
 *     params: { name: "forget", arguments: { id: "x1" } },
 *   }),
 *   { transport: "http", authInfo, protocolVersion: "2025-06-18" },
 * );
 * assert.equal(JSON.parse(reply!).error.message, "Cannot call forget: not authorized");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpAuthInfo {
  /**
   * Kind of authentication that succeeded: `bearer` (the static token), `custom` (`authenticate`),
   * `oauth` (an OAuth access token) or `none`.
   */
  scheme: "bearer" | "custom" | "oauth" | "none";
  /** Free-form facts a custom `authenticate` wants to pass to `authorize`. Never holds the token. */
  extra?: Record<string, unknown>;
  /** `oauth`: the token's subject (`sub`), when it has one. */
  sub?: string;
  /** `oauth`: the client the token was issued to (`client_id`, else `azp`). */
  clientId?: string;
  /** `oauth`: the scopes the token grants. */
  scopes?: readonly string[];
  /**
   * `oauth`: the token's claims (a JWT's payload, or the introspection answer). Never the token
   * itself.
   */
  claims?: Readonly<Record<string, unknown>>;
  /**
   * Whether this caller may only read (an OAuth token without the write scope): its writes are
   * refused as with `readOnly`, for it alone, with `MCP_AUTHORIZATION_ERROR` and `details.reason`
   * `insufficient_scope`.
   */
  readOnly?: boolean;
}

/**
 * Per-message context a transport passes to the protocol server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpRequestContext,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server = createMemoMcpProtocolServer({ runtime });
 * const sent: string[] = [];
 * // A connection-oriented transport: notifications go back on the same connection.
 * const context: MemoMcpRequestContext = {
 *   transport: "stdio",
 *   notify: (message) => void sent.push(message),
 * };
 * await server.handle(
 *   '{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}',
 *   context,
 * );
 * await server.handle(
 *   '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_stats","arguments":{}}}',
 *   context,
 * );
 * const [notification] = sent.map((line) => JSON.parse(line));
 * assert.equal(notification.method, "notifications/message");
 * assert.equal(notification.params.data.message, "tools/call memory_stats");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpRequestContext {
  /** Which transport the message came through. */
  transport: MemoMcpTransportKind;
  /** The HTTP request, for the HTTP transport. */
  request?: Request;
  /** Result of the HTTP layer's authentication. */
  authInfo?: MemoMcpAuthInfo;
  /**
   * Protocol version in force for this message. Stateless HTTP passes the `MCP-Protocol-Version`
   * header (already checked as supported) or `2025-03-26` when the header is absent. Stdio leaves
   * it unset: the server remembers what `initialize` negotiated on that connection.
   */
  protocolVersion?: string;
  /** Size in bytes of the raw message, when the transport already knows it (for `maxInputBytes`). */
  inputBytes?: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * Sends a server-to-client notification (one serialized JSON-RPC message) on the same connection.
   * Only connection-oriented transports (stdio) set it; the server uses it for
   * `notifications/message` once the client has called `logging/setLevel`.
   */
  notify?: (message: string) => void;
  /**
   * Aborted when the connection ends (stdio: standard input closed). A long-lived request
   * (`subscriptions/listen`) then ends with its result.
   */
  closed?: AbortSignal;
  /**
   * Told the JSON-RPC error code (and its `error.data`) when the answer to this request is an error
   * (the HTTP handler picks its status from it: 404 for a stateless -32601, 403 for a write refused
   * for its scope).
   */
  onError?: (code: number, data?: SafeError) => void;
}

/**
 * The transport-agnostic JSON-RPC 2.0 handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   type MemoMcpProtocolServer,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const server: MemoMcpProtocolServer = createMemoMcpProtocolServer({ runtime });
 * assert.equal(server.name, "memo");
 * // A notification gets no answer; a request does, raw or already parsed.
 * const notification = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
 * assert.equal(await server.handle(notification), undefined);
 * assert.equal(
 *   await server.handleParsed({ jsonrpc: "2.0", id: "a", method: "ping" }),
 *   '{"jsonrpc":"2.0","id":"a","result":{}}',
 * );
 * assert.equal(JSON.parse((await server.handle("{not json"))!).error.code, -32700);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface MemoMcpProtocolServer {
  /** Server name reported by `initialize`. */
  readonly name: string;
  /** Server version reported by `initialize`. */
  readonly version: string;
  /**
   * Handles one raw message (a JSON-RPC request, notification, response or batch). Returns the
   * serialized JSON-RPC response (or batch response), or `undefined` when there is nothing to
   * answer (only notifications or responses). Invalid JSON gets a -32700 response with id null.
   * Never throws.
   */
  handle(raw: string | Uint8Array, context?: MemoMcpRequestContext): Promise<string | undefined>;
  /** Like {@linkcode handle}, for a message the transport already parsed. */
  handleParsed(message: unknown, context?: MemoMcpRequestContext): Promise<string | undefined>;
}
