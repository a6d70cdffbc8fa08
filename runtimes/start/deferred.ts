/**
 * A runtime that is built at its first call: every method waits for the real runtime, then forwards
 * to it. `memo mcp` uses it so that finding the project (which loads `node:fs` and `node:path`)
 * happens after the `initialize` answer, not before it.
 *
 * @module
 */

import { MemoRuntimeError } from "../errors.ts";
import { scrubSecrets } from "../secrets.ts";
import { RuntimeListeners } from "../listeners.ts";
import { recallDetailedOf } from "../recall_detailed.ts";
import { delegateRuntime } from "../delegate.ts";
import type {
  MemoMcpRuntime,
  RecallResult,
  RuntimeCallOptions,
  RuntimeChange,
  RuntimeCloseOptions,
  RuntimeRecallOptions,
  RuntimeRecallProfile,
} from "../types.ts";

/** The refusals of the optional methods that the built runtime does not have. */
const MISSING = {
  rememberMany: "Cannot remember notes in one batch: this runtime cannot",
  forgetMany: "Cannot forget notes in one batch: this runtime cannot",
  embed: "Cannot embed: embed needs the local or hybrid runtime",
  correct: "Cannot correct notes: this runtime cannot",
  supersede: "Cannot supersede notes: this runtime cannot",
  tidy: "Cannot tidy the notes: this runtime cannot",
  applyTidy: "Cannot apply a tidy plan: this runtime cannot",
  scanSecrets: "Cannot scan: this runtime cannot scan its notes",
  replicate: "Cannot replicate: replicate needs the hybrid runtime",
};

/**
 * Wraps `build` in a runtime of kind `kind`. `build` runs once, at the first call; if it fails,
 * that call (and the next, which tries again) fails with its error. `close()` closes the runtime
 * only if it was built; after it, every call fails.
 *
 * `watch` forwards to the built runtime's `watch` (a built runtime without one reports nothing).
 * Called before the build, it starts the build, since a listener wants live data, and attaches the
 * listener when the build is done; a failed build attaches it at the next successful one.
 *
 * `replicate` is always there, so that a caller (`memo replicate`) can call it before knowing which
 * runtime gets built: it forwards to the built runtime's `replicate` (the hybrid runtime's), and a
 * built runtime without one rejects with a `MemoRuntimeError` `UNAVAILABLE`, "Cannot replicate:
 * replicate needs the hybrid runtime". `embed` is always there too: a built runtime without one
 * (the cloud runtime) rejects with `UNAVAILABLE`, "Cannot embed: embed needs the local or hybrid
 * runtime". `recallDetailed` forwards, or reports a built runtime's `recall` hits with their engine
 * and no coverage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { createDeferredRuntime } from "./deferred.ts";
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
    ...delegateRuntime({ target: ready, missing: MISSING }),
    kind,
    recallDetailed(query: string, options: RuntimeRecallOptions): Promise<RecallResult> {
      // Once built (every recall but the first), straight to it: no await on the way.
      if (built) return recallDetailedOf(built, query, options);
      return (async () => await recallDetailedOf(await ready(), query, options))();
    },
    scrubSecrets(value: unknown): Promise<unknown> {
      return scrubSecrets(value);
    },
    async recallProfile(options?: RuntimeCallOptions): Promise<RuntimeRecallProfile | undefined> {
      return await (await ready()).recallProfile?.(options);
    },
    watch(onChange: (change: RuntimeChange) => void): () => void {
      const stop = listeners.watch(closed, onChange);
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
