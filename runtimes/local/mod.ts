/**
 * The local runtime: a runtime over a `Memo` (the notes in
 * `.memo/memory/notes.md`), built at once or at its first call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openMemo } from "@memo/memory";
 * import { createMemoMcpRuntimeFromMemo } from "./mod.ts";
 * const rootDir = await Deno.makeTempDir();
 * const memo = await openMemo({ rootDir });
 * const runtime = createMemoMcpRuntimeFromMemo(memo);
 * assert.equal(runtime.kind, "local");
 * assert.equal((await runtime.stats()).notes, 0);
 * await runtime.close();
 * await memo.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 *
 * @module
 */

export * from "./runtime.ts";
export * from "./hooks_status.ts";
