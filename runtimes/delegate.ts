/**
 * One way for a runtime to wrap another: {@linkcode delegateRuntime} builds every method of
 * {@linkcode MemoMcpRuntime} but `kind`, `watch` and `close` as a call forwarded to a target
 * runtime, which it obtains at each call (so it may be built at the first). The deferred runtime
 * and the hybrid runtime are built on it, and override only the methods they change.
 *
 * @module
 */

import { MemoRuntimeError } from "./errors.ts";
import type { MemoMcpRuntime } from "./types.ts";

/** The methods {@linkcode delegateRuntime} forwards: all but `kind`, `watch` and `close`. */
export type DelegatedMethod = Exclude<keyof MemoMcpRuntime, "kind" | "watch" | "close">;

/** The forwarded methods, each one present. */
export type DelegatedMethods = { [K in DelegatedMethod]-?: NonNullable<MemoMcpRuntime[K]> };

/** What {@linkcode delegateRuntime} forwards to and how. */
export interface DelegateOptions {
  /** The runtime a call goes to, asked at every call; it may build it (and fail). */
  target: () => MemoMcpRuntime | Promise<MemoMcpRuntime>;
  /**
   * Runs each forwarded call: `call()` starts it on the target. The target lacking the method
   * is refused before this runs.
   *
   * @default the call itself
   */
  around?: <T>(method: DelegatedMethod, call: () => Promise<T>) => Promise<T>;
  /**
   * The message of the `UNAVAILABLE` refusal when the target lacks an optional method.
   *
   * @default "Cannot <method>: this runtime cannot"
   */
  missing?: Partial<Record<DelegatedMethod, string>>;
}

// Every delegated method, checked by the type: a method added to MemoMcpRuntime must be listed.
const DELEGATED: Record<DelegatedMethod, true> = {
  remember: true,
  rememberMany: true,
  forgetMany: true,
  recall: true,
  recallDetailed: true,
  embed: true,
  get: true,
  list: true,
  update: true,
  forget: true,
  correct: true,
  supersede: true,
  tidy: true,
  applyTidy: true,
  stats: true,
  syncConnectors: true,
  completeIds: true,
  replicate: true,
  scanSecrets: true,
  scrubSecrets: true,
  recallProfile: true,
};

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * The methods of a runtime that forwards each call to `options.target()`. A method the target
 * lacks rejects with a `MemoRuntimeError` `UNAVAILABLE` (message from `options.missing`); a
 * target that cannot be obtained rejects the call with its error.
 *
 * @example Log the methods called, and refuse `replicate` with a message of one's own
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { delegateRuntime } from "./delegate.ts";
 * const rootDir = await Deno.makeTempDir();
 * const local = createMemoMcpRuntimeFromConfig({ rootDir });
 * const called: string[] = [];
 * const methods = delegateRuntime({
 *   target: () => local,
 *   around: (method, call) => {
 *     called.push(method);
 *     return call();
 *   },
 *   missing: { replicate: "Cannot replicate: not here" },
 * });
 * assert.equal((await methods.stats()).notes, 0);
 * await assert.rejects(methods.replicate(), { code: "UNAVAILABLE", message: "Cannot replicate: not here" });
 * assert.deepEqual(called, ["stats"]);
 * await local.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function delegateRuntime(options: DelegateOptions): DelegatedMethods {
  const around = options.around ?? (<T>(_: DelegatedMethod, call: () => Promise<T>) => call());
  const methods: Partial<Record<DelegatedMethod, AnyMethod>> = {};
  for (const method of Object.keys(DELEGATED) as DelegatedMethod[]) {
    methods[method] = async (...args: unknown[]) => {
      const target = await options.target();
      const forwarded = target[method] as AnyMethod | undefined;
      if (!forwarded) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          options.missing?.[method] ?? `Cannot ${method}: this runtime cannot`,
        );
      }
      return await around(method, () => forwarded.apply(target, args));
    };
  }
  return methods as DelegatedMethods;
}
