/**
 * The per-call options of the runtime's methods: the abort signal every method takes, the options
 * of the secrets scan and of an update, and those of closing. `types.ts` re-exports them.
 *
 * @module
 */

import type { SecretRedaction } from "@memo/memory";

/** Per-call options every runtime method takes. *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCallOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const options: RuntimeCallOptions = { signal: AbortSignal.abort(new Error("client went away")) };
 * await assert.rejects(runtime.stats(options), /client went away/);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCallOptions {
  /** Aborted when the call times out or the client goes away. */
  signal?: AbortSignal;
}

/**
 * Options of {@linkcode MemoMcpRuntime.scanSecrets}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeScanOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir, secrets: "allow" });
 * await runtime.remember({ text: "runner token glpat-Zr8vQ2mW4kT9xN1pLc7H" });
 * const options: RuntimeScanOptions = { redact: true };
 * assert.equal((await runtime.scanSecrets!(options)).redacted.length, 1);
 * assert.equal((await runtime.scanSecrets!()).findings.length, 0);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeScanOptions extends RuntimeCallOptions {
  /**
   * Rewrite every finding as `[redacted:<rule-id>]`.
   * @default false
   */
  redact?: boolean;
}

/**
 * Options of {@linkcode MemoMcpRuntime.update}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig, type RuntimeUpdateOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const { note } = await runtime.remember({ text: "CI runner" });
 * const heard: string[] = [];
 * const options: RuntimeUpdateOptions = { onRedacted: (r) => heard.push(...r.map((x) => x.rule)) };
 * await runtime.update(note.id, { text: "CI runner uses glpat-Zr8vQ2mW4kT9xN1pLc7H" }, options);
 * assert.deepEqual(heard, ["gitlab-token"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeUpdateOptions extends RuntimeCallOptions {
  /**
   * Called after the write with what the secrets guard replaced (rule ids and fields, never
   * values); not called when it replaced nothing.
   */
  onRedacted?: (redacted: SecretRedaction[]) => void;
}

/**
 * Options of {@linkcode MemoMcpRuntime.close}.
 *
 * @example
 * ```ts
 * import { createMemoMcpRuntimeFromConfig, type RuntimeCloseOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * const options: RuntimeCloseOptions = { drainMs: 250 }; // what is left of a shutdown's second
 * await runtime.close(options);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface RuntimeCloseOptions {
  /**
   * Longest time to spend pushing the hybrid outbox before closing.
   * @default the runtime's `closeDrainMs` (1000)
   */
  drainMs?: number;
}
