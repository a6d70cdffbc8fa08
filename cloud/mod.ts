/**
 * The reference Memo Cloud API server (`docs/cloud-api.md`): the handler
 * ({@linkcode createMemoCloudHandler}), its configuration from `MEMO_CLOUD_*`
 * variables, the storage contract and the file store. The PostgreSQL store
 * (`postgres/`) is loaded by {@linkcode openCloudStore} only when a
 * database URL is configured, so that its driver is not imported otherwise.
 *
 * @example Serve a file store in a temporary folder
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudHandler, FileCloudStore } from "./mod.ts";
 *
 * const dataDir = await Deno.makeTempDir();
 * const store = new FileCloudStore({ dataDir });
 * const handler = createMemoCloudHandler({ store, apiKeys: new Map([["k-team", "team"]]) });
 * const response = await handler(
 *   new Request("http://127.0.0.1:8788/v1/whoami", { headers: { authorization: "Bearer k-team" } }),
 * );
 * assert.deepEqual(await response.json(), { workspaceId: "team" });
 * await store.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 *
 * @module
 */

export {
  type ApiKeyEntry,
  BATCH_MAX_BODY_BYTES,
  type CloudLogLevel,
  createMemoCloudHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RATE_LIMIT,
  type MemoCloudHandler,
  type MemoCloudHandlerOptions,
} from "./app.ts";
export {
  type CloudConfig,
  DEFAULT_CLOUD_DATA_DIR,
  parseApiKeys,
  readCloudConfig,
} from "./config.ts";
export { CloudApiError, type CloudErrorCode, errorResponse } from "./errors.ts";
export {
  createMemoCloudServerFromEnv,
  type MemoCloudServer,
  type MemoCloudServerOptions,
} from "./from_env.ts";
export { openCloudStore, type OpenCloudStoreOptions } from "./open_store.ts";
export { CLOUD_OPENAPI_DOCUMENT } from "./openapi/document.ts";
export {
  FileCloudStore,
  type FileCloudStoreOptions,
  type FileIdempotencyStore,
} from "./file/store.ts";
export type { PostgresCloudStore, PostgresCloudStoreOptions } from "./postgres/store.ts";
export type { PostgresIdempotencyStore } from "./postgres/idempotency.ts";
export { MemoryRateLimiter, type RateDecision, type RateLimiter } from "./rate_limit.ts";
export * from "./note_types.ts";
export * from "./store.ts";
// The memory package's other types the storage contract references (note_types.ts has the rest).
export type {
  CommitBatch,
  CommitResult,
  MemoryStore,
  Note,
  NotePage,
  RecallEngine,
  RecallHit,
  ScoreContribution,
  StoreChanges,
  StoreIssue,
  StoreLoadReport,
} from "@memo/memory";
