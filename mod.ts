/**
 * `@memo/mcp-server`: memo's MCP server — local-first memory for AI agents.
 *
 * - {@linkcode createMemoMcpProtocolServer}: the transport-agnostic JSON-RPC 2.0 handler (tools,
 *   resources, prompts, limits, errors);
 * - {@linkcode runStdioServer}: newline-delimited JSON-RPC over stdin/stdout;
 * - {@linkcode registerMemoMcpCapabilities}: the same surface on an official SDK `McpServer`;
 * - runtimes: {@linkcode createMemoMcpRuntimeFromConfig}, {@linkcode createMemoMcpRuntimeFromMemo},
 *   {@linkcode createMemoCloudMcpRuntime};
 * - errors: {@linkcode MemoMcpError} and its subclasses, {@linkcode toSafeError}.
 *
 * The stateless Streamable HTTP handlers live in `@memo/mcp-server/http`. Run as a program, this
 * module is the `memo` command (`deno run -A jsr:@memo/mcp-server mcp`).
 *
 * @example Serve a project's notes over stdio, read-only
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   createMemoMcpProtocolServer,
 *   createMemoMcpRuntimeFromConfig,
 *   runStdioServer,
 * } from "@memo/mcp-server";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "Deploys run with make deploy" });
 * const server = createMemoMcpProtocolServer({ runtime, readOnly: true });
 *
 * // Without `input` and `output` it serves standard input and output until
 * // stdin closes; here one request goes in and the answers are collected.
 * const request = {
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "recall", arguments: { query: "deploy" } },
 * };
 * const input = new ReadableStream<Uint8Array>({
 *   start(controller) {
 *     controller.enqueue(new TextEncoder().encode(JSON.stringify(request) + "\n"));
 *     controller.close();
 *   },
 * });
 * let written = "";
 * const output = new WritableStream<Uint8Array>({
 *   write(chunk) {
 *     written += new TextDecoder().decode(chunk);
 *   },
 * });
 * await runStdioServer(server, { input, output });
 *
 * const reply = JSON.parse(written);
 * assert.equal(reply.id, 1);
 * assert.equal(reply.result.structuredContent.hits[0].note.title, "Deploys run with make deploy");
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @module
 */

// The public API, name by name: what a folder's mod.ts offers the entry
// points (http.ts, cli/) is not public unless it is listed here.
export {
  type AuthorizationContext,
  createMemoMcpProtocolServer,
  JSON_RPC_CODES,
  jsonRpcCodeOf,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LATEST_PROTOCOL_VERSION,
  LATEST_SESSION_PROTOCOL_VERSION,
  McpAuthorizationError,
  McpConflictError,
  McpNotFoundError,
  McpOutputLimitError,
  McpTimeoutError,
  McpValidationError,
  MEMO_MCP_DEFAULTS,
  MEMO_MCP_INSTRUCTIONS,
  MEMO_MCP_LIMITS,
  type MemoMcpAuthInfo,
  MemoMcpError,
  type MemoMcpErrorCode,
  type MemoMcpErrorOptions,
  type MemoMcpLimit,
  type MemoMcpLimitName,
  type MemoMcpLogger,
  type MemoMcpLogLevel,
  type MemoMcpLogRecord,
  type MemoMcpOptions,
  type MemoMcpProtocolServer,
  type MemoMcpRequestContext,
  type MemoMcpTimer,
  type MemoMcpTransportKind,
  type ResolvedMemoMcpOptions,
  resolveMemoMcpOptions,
  runStdioServer,
  type SafeError,
  type StdioServerOptions,
  SUPPORTED_PROTOCOL_VERSIONS,
  toSafeError,
} from "./server/mod.ts";
export {
  type McpServerLike,
  registerMemoMcpCapabilities,
  type SdkAuthInfo,
  type SdkCallbackResult,
  type SdkRequestExtra,
  type SdkResourceTemplateLike,
  type SdkResult,
} from "./server/sdk/mod.ts";
export {
  type AutoEngine,
  type CommitBatch,
  type CommitResult,
  type CorrectResult,
  createMemoCloudMcpRuntime,
  createMemoHybridMcpRuntime,
  createMemoMcpRuntimeFromConfig,
  createMemoMcpRuntimeFromEnv,
  createMemoMcpRuntimeFromMemo,
  type Embedder,
  type EmbedderLoader,
  type EmbedderLoadOptions,
  type EmbeddingStatus,
  isMemoCloudError,
  isMemoRuntimeError,
  type ListResult,
  type LocalRuntimeOptions,
  type MemoCloudBatchResult,
  type MemoCloudCallOptions,
  type MemoCloudChange,
  type MemoCloudChangesOptions,
  type MemoCloudChangesPage,
  MemoCloudClient,
  type MemoCloudClientOptions,
  type MemoCloudConditionalOptions,
  type MemoCloudDeleteResult,
  type MemoCloudDeleteSelector,
  type MemoCloudDraft,
  MemoCloudError,
  type MemoCloudErrorCode,
  type MemoCloudErrorOptions,
  type MemoCloudHealth,
  type MemoCloudHistoryFilter,
  type MemoCloudListOptions,
  type MemoCloudListResult,
  type MemoCloudMcpRuntimeOptions,
  type MemoCloudNote,
  type MemoCloudOptions,
  type MemoCloudPatch,
  type MemoCloudRecallHit,
  type MemoCloudRecallOptions,
  type MemoCloudRememberResult,
  type MemoCloudRetryOptions,
  type MemoCloudStats,
  type MemoCloudSupersedeResult,
  type MemoCloudTidyApplyResult,
  type MemoCloudWriteOptions,
  type MemoHybridMcpRuntime,
  type MemoHybridMcpRuntimeOptions,
  type MemoLike,
  type MemoMcpRuntime,
  MemoRuntimeError,
  type MemoRuntimeErrorCode,
  type MemoRuntimeErrorOptions,
  type MemoryStore,
  type MemoStats,
  type ModelProgress,
  type Note,
  type NoteDraft,
  type NotePage,
  type NotePatch,
  type RecallEngine,
  type RecallHit,
  type RecallParts,
  type RecallResult,
  type ReplicaApplyResult,
  type ReplicaChanges,
  type ReplicaStatus,
  type ReplicateOptions,
  type ReplicateProgress,
  type ReplicateResult,
  type RuntimeCallOptions,
  type RuntimeChange,
  type RuntimeCloseOptions,
  type RuntimeCompletion,
  type RuntimeConnectorFailure,
  type RuntimeConnectorSummary,
  type RuntimeCorrectInput,
  type RuntimeEmbedOptions,
  type RuntimeEmbedResult,
  type RuntimeFactoryOptions,
  type RuntimeFromEnvOptions,
  type RuntimeHistoryFilter,
  type RuntimeListOptions,
  type RuntimeMode,
  type RuntimeNotePatch,
  type RuntimeRecallOptions,
  type RuntimeRecallProfile,
  type RuntimeRecallSettings,
  type RuntimeRememberInput,
  type RuntimeRememberManyResult,
  type RuntimeRememberResult,
  type RuntimeScanOptions,
  type RuntimeScopes,
  type RuntimeSupersedeInput,
  type RuntimeSyncOptions,
  type RuntimeSyncProgress,
  type RuntimeSyncResult,
  type RuntimeUpdateOptions,
  scopeSettingsOf,
  type ScoreContribution,
  type SecretRedaction,
  type SecretScanResult,
  type SecretsPolicy,
  type SimilarNote,
  type StoreChanges,
  type StoreIssue,
  type StoreLoadReport,
  type SupersedeResult,
  type TidyApplyResult,
  type TidyNoteRef,
  type TidyPlan,
  type TidyProposal,
  type UserReplicaOptions,
  withUserReplica,
} from "./runtimes/mod.ts";
export { VERSION } from "./version.ts";

if (import.meta.main) {
  await import("./cli.ts");
}
