/**
 * A runtime that is built at its first call: every method waits for the
 * real runtime, then forwards to it. `memo mcp` uses it so that finding the
 * project (which loads `node:fs` and `node:path`) happens after the
 * `initialize` answer, not before it.
 *
 * @module
 */

import { MemoRuntimeError } from "../errors.ts";
import { scrubSecrets } from "../secrets.ts";
import { RuntimeListeners } from "../listeners.ts";
import { recallDetailedOf } from "../local/runtime.ts";
import type {
  ListResult,
  MemoMcpRuntime,
  MemoStats,
  Note,
  NoteDraft,
  RecallHit,
  RecallResult,
  ReplicateOptions,
  ReplicateResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCloseOptions,
  RuntimeCompletion,
  RuntimeCorrectInput,
  RuntimeEmbedOptions,
  RuntimeEmbedResult,
  RuntimeListOptions,
  RuntimeNotePatch,
  RuntimeRecallOptions,
  RuntimeRecallProfile,
  RuntimeRememberInput,
  RuntimeRememberManyResult,
  RuntimeRememberResult,
  RuntimeScanOptions,
  RuntimeSupersedeInput,
  RuntimeSyncOptions,
  RuntimeSyncResult,
  RuntimeUpdateOptions,
  SecretScanResult,
  TidyApplyResult,
  TidyPlan,
} from "../types.ts";

/** The refusal of a method that the built runtime does not have. */
function unsupported(action: string): MemoRuntimeError {
  return new MemoRuntimeError("UNAVAILABLE", `Cannot ${action}: this runtime cannot`);
}

/**
 * Wraps `build` in a runtime of kind `kind`. `build` runs once, at the first
 * call; if it fails, that call (and the next, which tries again) fails with
 * its error. `close()` closes the runtime only if it was built; after it,
 * every call fails.
 *
 * `watch` forwards to the built runtime's `watch` (a built runtime without
 * one reports nothing). Called before the build, it starts the build, since
 * a listener wants live data, and attaches the listener when the build is
 * done; a failed build attaches it at the next successful one.
 *
 * `replicate` is always there, so that a caller (`memo replicate`) can call
 * it before knowing which runtime gets built: it forwards to the built
 * runtime's `replicate` (the hybrid runtime's), and a built runtime without
 * one rejects with a `MemoRuntimeError` `UNAVAILABLE`, "Cannot replicate:
 * replicate needs the hybrid runtime". `embed` is always there too: a built
 * runtime without one (the cloud runtime) rejects with `UNAVAILABLE`,
 * "Cannot embed: embed needs the local or hybrid runtime". `recallDetailed`
 * forwards, or reports a built runtime's `recall` hits with their engine and
 * no coverage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createDeferredRuntime } from "./deferred.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * let built = false;
 * const runtime = createDeferredRuntime("local", () => {
 *   built = true; // e.g. find the project root first
 *   return Promise.resolve(createMemoMcpRuntimeFromConfig({ rootDir }));
 * });
 * assert.equal(runtime.kind, "local");
 * assert.equal(built, false);
 * assert.equal((await runtime.stats()).notes, 0);
 * assert.equal(built, true);
 * await assert.rejects(runtime.replicate(), {
 *   code: "UNAVAILABLE",
 *   message: "Cannot replicate: replicate needs the hybrid runtime",
 * });
 * const { engine, coverage } = await runtime.recallDetailed("deploy", { limit: 5, engine: "lexical" });
 * assert.equal(engine, "lexical");
 * assert.deepEqual(coverage, { embedded: 0, total: 0 });
 * await runtime.close();
 * await assert.rejects(runtime.stats(), { code: "UNAVAILABLE" });
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createDeferredRuntime(
  kind: MemoMcpRuntime["kind"],
  build: () => Promise<MemoMcpRuntime>,
):
  & MemoMcpRuntime
  & Required<
    Pick<
      MemoMcpRuntime,
      | "watch"
      | "replicate"
      | "embed"
      | "recallDetailed"
      | "rememberMany"
      | "forgetMany"
      | "scanSecrets"
      | "scrubSecrets"
      | "correct"
      | "supersede"
      | "tidy"
      | "applyTidy"
      | "recallProfile"
    >
  > {
  let building: Promise<MemoMcpRuntime> | undefined;
  let built: MemoMcpRuntime | undefined;
  let closed = false;
  const listeners = new RuntimeListeners();
  const attach = (runtime: MemoMcpRuntime) => {
    if (closed || !runtime.watch || !listeners.size) return;
    listeners.attach((deliver) => runtime.watch!(deliver));
  };
  const ready = (): MemoMcpRuntime | Promise<MemoMcpRuntime> => {
    if (built) return built;
    if (closed) {
      throw new MemoRuntimeError("UNAVAILABLE", "Cannot use the memory: the runtime is closed");
    }
    if (!building) {
      const attempt = build().then((r) => {
        built = r;
        attach(r);
        return r;
      });
      building = attempt;
      attempt.catch(() => {
        if (building === attempt) building = undefined;
      });
    }
    return building;
  };
  return {
    kind,
    async remember(
      input: RuntimeRememberInput,
      options?: RuntimeCallOptions,
    ): Promise<RuntimeRememberResult> {
      return await (await ready()).remember(input, options);
    },
    async rememberMany(
      drafts: readonly NoteDraft[],
      options?: RuntimeCallOptions,
    ): Promise<RuntimeRememberManyResult> {
      const runtime = await ready();
      if (!runtime.rememberMany) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          "Cannot remember notes in one batch: this runtime cannot",
        );
      }
      return await runtime.rememberMany(drafts, options);
    },
    async forgetMany(ids: readonly string[], options?: RuntimeCallOptions): Promise<Note[]> {
      const runtime = await ready();
      if (!runtime.forgetMany) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          "Cannot forget notes in one batch: this runtime cannot",
        );
      }
      return await runtime.forgetMany(ids, options);
    },
    async recall(query: string, options: RuntimeRecallOptions): Promise<RecallHit[]> {
      return await (await ready()).recall(query, options);
    },
    async recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult> {
      return await recallDetailedOf(await ready(), query, options);
    },
    async embed(options?: RuntimeEmbedOptions): Promise<RuntimeEmbedResult> {
      const runtime = await ready();
      if (!runtime.embed) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          "Cannot embed: embed needs the local or hybrid runtime",
        );
      }
      return await runtime.embed(options);
    },
    async get(id: string, options?: RuntimeCallOptions): Promise<Note> {
      return await (await ready()).get(id, options);
    },
    async correct(input: RuntimeCorrectInput, options?: RuntimeCallOptions) {
      const runtime = await ready();
      if (!runtime.correct) throw unsupported("correct notes");
      return await runtime.correct(input, options);
    },
    async supersede(input: RuntimeSupersedeInput, options?: RuntimeCallOptions) {
      const runtime = await ready();
      if (!runtime.supersede) throw unsupported("supersede notes");
      return await runtime.supersede(input, options);
    },
    async tidy(options?: RuntimeCallOptions): Promise<TidyPlan> {
      const runtime = await ready();
      if (!runtime.tidy) throw unsupported("tidy the notes");
      return await runtime.tidy(options);
    },
    async applyTidy(plan: TidyPlan, options?: RuntimeCallOptions): Promise<TidyApplyResult> {
      const runtime = await ready();
      if (!runtime.applyTidy) throw unsupported("apply a tidy plan");
      return await runtime.applyTidy(plan, options);
    },
    async list(options: RuntimeListOptions): Promise<ListResult> {
      return await (await ready()).list(options);
    },
    async update(id: string, patch: RuntimeNotePatch, options?: RuntimeUpdateOptions) {
      return await (await ready()).update(id, patch, options);
    },
    async forget(id: string, options?: RuntimeCallOptions): Promise<Note> {
      return await (await ready()).forget(id, options);
    },
    async stats(options?: RuntimeCallOptions): Promise<MemoStats> {
      return await (await ready()).stats(options);
    },
    async syncConnectors(options?: RuntimeSyncOptions): Promise<RuntimeSyncResult> {
      return await (await ready()).syncConnectors(options);
    },
    async completeIds(
      prefix: string,
      limit: number,
      options?: RuntimeCallOptions,
    ): Promise<RuntimeCompletion> {
      return await (await ready()).completeIds(prefix, limit, options);
    },
    scrubSecrets(value: unknown): Promise<unknown> {
      return scrubSecrets(value);
    },
    async scanSecrets(options?: RuntimeScanOptions): Promise<SecretScanResult> {
      const runtime = await ready();
      if (!runtime.scanSecrets) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          "Cannot scan: this runtime cannot scan its notes",
        );
      }
      return await runtime.scanSecrets(options);
    },
    async recallProfile(options?: RuntimeCallOptions): Promise<RuntimeRecallProfile | undefined> {
      return await (await ready()).recallProfile?.(options);
    },
    async replicate(options?: ReplicateOptions): Promise<ReplicateResult> {
      const runtime = await ready();
      if (!runtime.replicate) {
        throw new MemoRuntimeError(
          "UNAVAILABLE",
          "Cannot replicate: replicate needs the hybrid runtime",
        );
      }
      return await runtime.replicate(options);
    },
    watch(onChange: (change: RuntimeChange) => void): () => void {
      if (closed) {
        throw new MemoRuntimeError("UNAVAILABLE", "Cannot watch the memory: the runtime is closed");
      }
      if (typeof onChange !== "function") {
        throw new MemoRuntimeError(
          "INVALID_INPUT",
          "Cannot watch the memory: onChange must be a function",
        );
      }
      const stop = listeners.add(onChange);
      if (built) attach(built);
      else {
        // The build's failure (even a synchronous one) is reported to the next call, which
        // builds again and then attaches the listener.
        Promise.resolve().then(ready).catch(() => {});
      }
      return stop;
    },
    async close(options?: RuntimeCloseOptions): Promise<void> {
      closed = true;
      listeners.clear();
      const pending = building;
      if (!built && !pending) return;
      let runtime: MemoMcpRuntime;
      try {
        runtime = built ?? await pending!;
      } catch {
        return;
      }
      await runtime.close(options);
    },
  };
}
