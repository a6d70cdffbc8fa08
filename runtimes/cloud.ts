/**
 * The cloud-only runtime and its options. The runtime itself comes in a later
 * version: {@linkcode createMemoCloudMcpRuntime} refuses with a clear error,
 * but the option types are final.
 *
 * @module
 */

import { MemoRuntimeError } from "./errors.ts";
import type { MemoMcpRuntime } from "./types.ts";

/**
 * Retry policy of the Cloud API client.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, type MemoCloudRetryOptions } from "@memo/mcp-server";
 *
 * const retry: MemoCloudRetryOptions = { maxRetries: 5, backoffMs: 500 };
 * // The option type is final; the cloud runtime itself is not in this version.
 * assert.throws(
 *   () => createMemoCloudMcpRuntime({ baseUrl: "https://cloud.example", apiKey: "k", retry }),
 *   { code: "UNAVAILABLE" },
 * );
 * ```
 */
export interface MemoCloudRetryOptions {
  /**
   * Retries after the first attempt.
   * @default 3
   */
  maxRetries?: number;
  /**
   * First backoff; it grows exponentially with jitter, and `Retry-After` wins.
   * @default 250
   */
  backoffMs?: number;
}

/**
 * The `cloud` options: where the Cloud API is and how to call it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromEnv, type MemoCloudOptions } from "@memo/mcp-server";
 *
 * // Laid over the MEMO_CLOUD_* variables.
 * const cloud: MemoCloudOptions = {
 *   baseUrl: "https://cloud.example",
 *   workspaceId: "acme",
 *   projectId: "handbook",
 *   timeoutMs: 5000,
 * };
 * assert.throws(
 *   () => createMemoMcpRuntimeFromEnv({ env: { MEMO_CLOUD_API_KEY: "k" }, mode: "cloud", cloud }),
 *   { code: "UNAVAILABLE" }, // the cloud runtime comes in a later version
 * );
 * ```
 */
export interface MemoCloudOptions {
  /** Base address of the Cloud API. */
  baseUrl?: string;
  /** API key sent as a bearer token. Never logged. */
  apiKey?: string;
  /** Workspace the notes belong to. */
  workspaceId?: string;
  /** Project the notes belong to. */
  projectId?: string;
  /**
   * Timeout of one request.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * `User-Agent` of the requests.
   * @default "memo/<version>"
   */
  userAgent?: string;
  /**
   * Refuse to start without an API key.
   * @default true
   */
  requireApiKey?: boolean;
  /** Retry policy. */
  retry?: MemoCloudRetryOptions;
}

/**
 * The typed Cloud API client: the `cloudClient` option of the hybrid and
 * cloud runtimes. Its methods come with the cloud runtime.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, type MemoCloudClient } from "@memo/mcp-server";
 *
 * const cloudClient: MemoCloudClient = { baseUrl: "https://cloud.example" };
 * assert.throws(() => createMemoCloudMcpRuntime({ cloudClient }), { code: "UNAVAILABLE" });
 * ```
 */
export interface MemoCloudClient {
  /** Base address the client talks to. */
  readonly baseUrl: string;
}

/**
 * Options of {@linkcode createMemoCloudMcpRuntime}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime, type MemoCloudMcpRuntimeOptions } from "@memo/mcp-server";
 *
 * const calls: string[] = [];
 * const options: MemoCloudMcpRuntimeOptions = {
 *   baseUrl: "https://cloud.example",
 *   apiKey: "k",
 *   // An injected fetch: tests answer without a network.
 *   fetch: (input) => {
 *     calls.push(String(input));
 *     return Promise.resolve(Response.json({ notes: [] }));
 *   },
 * };
 * assert.throws(() => createMemoCloudMcpRuntime(options), { code: "UNAVAILABLE" });
 * assert.deepEqual(calls, []); // refused before any request
 * ```
 */
export interface MemoCloudMcpRuntimeOptions extends MemoCloudOptions {
  /** A ready client; built from the other fields when missing. */
  cloudClient?: MemoCloudClient;
  /**
   * `fetch` the client uses.
   * @default globalThis.fetch
   */
  fetch?: (input: Request | URL | string, init?: RequestInit) => Promise<Response>;
}

/**
 * Creates the cloud-only runtime. Not available in this version: it throws a
 * `MemoRuntimeError` with code `UNAVAILABLE`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoCloudMcpRuntime } from "@memo/mcp-server";
 *
 * assert.throws(
 *   () => createMemoCloudMcpRuntime({ baseUrl: "https://cloud.example", apiKey: "k" }),
 *   {
 *     code: "UNAVAILABLE",
 *     message: "Cannot start the cloud runtime: not available in this version",
 *   },
 * );
 * ```
 */
export function createMemoCloudMcpRuntime(_options: MemoCloudMcpRuntimeOptions): MemoMcpRuntime {
  throw new MemoRuntimeError(
    "UNAVAILABLE",
    "Cannot start the cloud runtime: not available in this version",
  );
}
