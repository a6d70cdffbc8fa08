/**
 * Benchmark peer: memo's own HTTP endpoint (`handleMemoMcpRequest`) over a
 * recall engine that costs nothing. At start it runs the real engine once for
 * each bench query and keeps the hits; then `recall` answers those hits at
 * once, so every response is byte for byte what memo sends, and the rate
 * measures everything but the engine: HTTP, JSON-RPC, validation, limits and
 * serialization. `bench/http_bench.ts` runs it beside `memo` to tell what is
 * left to the engine. (The same hit objects are serialized every time, so
 * they sit warm in the CPU caches; fresh engine results serialize slower.)
 *
 * Run: `deno run -A bench/peers/memo_fixed_engine.ts <port> <rootDir> <queries.json>`
 *
 * @module
 */

import { openMemo } from "../../memory/mod.ts";
import { createMemoMcpRuntimeFromMemo, type MemoLike, type RecallHit } from "../../mod.ts";
import { handleMemoMcpRequest } from "../../http.ts";

const port = Number(Deno.args[0] ?? 8790);
const rootDir = Deno.args[1] ?? ".";
const queries: string[] = Deno.args[2] ? JSON.parse(await Deno.readTextFile(Deno.args[2])) : [];

const memo = await openMemo({ rootDir });
const fixed = new Map<string, RecallHit[]>();
for (const query of queries) fixed.set(query, await memo.recall(query, { limit: 10 }));

const noEngine: MemoLike = {
  rememberMany: (drafts, options) => memo.rememberMany(drafts, options),
  recall: (query) => Promise.resolve(fixed.get(query) ?? []),
  get: (id) => memo.get(id),
  list: (options) => memo.list(options),
  update: (id, patch) => memo.update(id, patch),
  forget: (id) => memo.forget(id),
  stats: () => memo.stats(),
  close: () => memo.close(),
};
const options = { runtime: createMemoMcpRuntimeFromMemo(noEngine) };

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: () => console.error(`memo-no-engine: listening on http://127.0.0.1:${port}/mcp`),
}, (request) => handleMemoMcpRequest(request, options));
