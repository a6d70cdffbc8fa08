/**
 * The local runtime: a {@linkcode MemoMcpRuntime} over a `Memo` memory client on this machine,
 * wrapped at once or opened at its first call.
 *
 * @module
 */

import { LocalRuntime } from "./_local_runtime.ts";
import type { MemoEmbeddingSettings } from "../memo_options.ts";
import { recallProfileOf, recallProfileOfMemo } from "./_recall_profile.ts";
import type { MemoLike, MemoMcpRuntime, RuntimeScopes } from "../types.ts";

/** The recall settings of a lazy runtime, with the scopes it serves. */
type RecallSettings = MemoEmbeddingSettings & { scopes?: RuntimeScopes };

/**
 * Options of {@linkcode createMemoMcpRuntimeFromMemo}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo, type LocalRuntimeOptions } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const options: LocalRuntimeOptions = { rootDir, env: {}, closeMemo: true };
 * const runtime = createMemoMcpRuntimeFromMemo(await openMemo({ rootDir }), options);
 * assert.equal((await runtime.syncConnectors()).connectors.length, 0); // no .memo/config.json
 * await runtime.close(); // closes the memory client too (closeMemo)
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export interface LocalRuntimeOptions {
  /**
   * Project root, where `sync_connectors` finds `.memo/config.json` and keeps its state.
   * @default "." (the current directory)
   */
  rootDir?: string;
  /**
   * Environment the connectors read their tokens from (`MEMO_GITHUB_TOKEN` …).
   * @default the process environment
   */
  env?: Record<string, string | undefined>;
  /**
   * Close the memory client when the runtime closes.
   * @default false
   */
  closeMemo?: boolean;
}

/**
 * Wraps a loaded memory client as a {@linkcode MemoMcpRuntime} (the local runtime). The client is
 * not closed with the runtime unless `closeMemo`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromMemo } from "@memo/mcp-server";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * await memo.remember({ text: "Deploys run with make deploy" });
 * const server = createMemoMcpProtocolServer({
 *   runtime: createMemoMcpRuntimeFromMemo(memo, { rootDir }),
 * });
 * const reply = await server.handle(JSON.stringify({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "tools/call",
 *   params: { name: "memory_stats", arguments: {} },
 * }));
 * assert.equal(JSON.parse(reply!).result.structuredContent.notes, 1);
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createMemoMcpRuntimeFromMemo(
  memo: MemoLike,
  options: LocalRuntimeOptions = {},
): MemoMcpRuntime {
  const ready = Promise.resolve(memo);
  return new LocalRuntime(
    () => ready,
    options.rootDir ?? ".",
    options.env,
    async () => {
      if (options.closeMemo) await memo.close();
    },
    () => recallProfileOfMemo(memo),
  );
}

/**
 * A local runtime that loads its memory client lazily: `open` runs at the first call (or at once
 * when `prewarm`), and its failure is reported to every call, not thrown here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createLazyLocalRuntime } from "./runtime.ts";
 * const rootDir = await Deno.makeTempDir();
 * let opened = 0;
 * const runtime = createLazyLocalRuntime(() => (opened++, openMemo({ rootDir })), {
 *   rootDir,
 *   prewarm: false,
 * });
 * assert.equal(opened, 0);
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.stats();
 * assert.equal(opened, 1); // opened once, at the first call
 * await runtime.close(); // closes the client it opened
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export function createLazyLocalRuntime(
  open: () => Promise<MemoLike>,
  options: {
    rootDir: string;
    env?: Record<string, string | undefined>;
    prewarm: boolean;
    /**
     * The recall settings `open` uses, for `recallProfile()` without opening anything; without it,
     * `recallProfile()` answers `undefined` until the client is open.
     */
    recall?: () => RecallSettings | Promise<RecallSettings>;
  },
): MemoMcpRuntime {
  let opening: Promise<MemoLike> | undefined;
  let opened: MemoLike | undefined;
  const ready = openOnce(() => opening = open().then((memo) => opened = memo));
  if (options.prewarm) ready();
  const { recall } = options;
  const profile = recall
    ? async () => recallProfileOf(await recall())
    : () => opened ? recallProfileOfMemo(opened) : Promise.resolve(undefined);
  return new LocalRuntime(ready, options.rootDir, options.env, async () => {
    if (!opening) return;
    let memo: MemoLike;
    try {
      memo = await opening;
    } catch {
      return;
    }
    await memo.close();
  }, profile);
}

/**
 * `open` run once, its promise shared by every caller; a failed open is reported to the callers
 * that await it and forgotten, so the next call tries again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openOnce } from "./runtime.ts";
 * let calls = 0;
 * const ready = openOnce(() => ++calls === 1 ? Promise.reject(new Error("busy")) : Promise.resolve(calls));
 * await assert.rejects(ready(), /busy/);
 * assert.equal(await ready(), 2);
 * assert.equal(await ready(), 2); // kept
 * ```
 */
export function openOnce<T>(open: () => Promise<T>): () => Promise<T> {
  let opening: Promise<T> | undefined;
  return () => {
    if (!opening) {
      const attempt = open();
      opening = attempt;
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  };
}
