/**
 * The cloud runtime on PostgreSQL as a system under test of
 * `../shared/bench/recall_eval.mjs` (JSON Lines on stdin/stdout, as
 * `bench/recall_adapter.ts`): the whole path a cloud user's recall takes.
 *
 * - It starts a throwaway cluster (`tests/_postgres.ts`), the reference
 *   Cloud API handler (`createMemoCloudHandler`) over `PostgresCloudStore`,
 *   served by `Deno.serve` on a loopback port (rate limit off), and one
 *   cloud runtime (`createMemoCloudMcpRuntime`) per conversation, each on
 *   its own project.
 * - A conversation's items are written with one `upsertBatch` (the notes of
 *   `itemToDraft`, the same as the local adapter's), through the runtime's
 *   client.
 * - A question is `runtime.recall(question, { engine: "lexical", limit: k })`;
 *   hits map back to items by their source key `locomo:<item id>`.
 *
 * Logs on stderr only; exits when stdin closes, stopping the server and the
 * cluster.
 *
 * Run: deno run -A bench/cloud_recall_adapter.ts
 *
 * @module
 */

import process from "node:process";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { PostgresCloudStore } from "../cloud/postgres/store.ts";
import { createMemoCloudMcpRuntime } from "../runtimes/cloud/runtime.ts";
import { MemoCloudClient } from "../runtimes/cloud/client.ts";
import type { MemoMcpRuntime } from "../runtimes/types.ts";
import { startPostgres } from "../tests/_postgres.ts";
import { itemIdsOf, itemToDraft } from "./recall_adapter.ts";
import { serveEvaluatorProtocol } from "./_evaluator_sut.ts";

/** One corpus item of the benchmark format. */
interface Item {
  id: string;
  text: string;
  speaker?: string;
  date_text?: string;
}

const API_KEY = "bench-key";
const WORKSPACE = "bench";

/**
 * The Cloud API project id of a conversation: lower case, other characters
 * as `-`, at most 64 characters (`[0-9a-z][0-9a-z_-]*`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { projectIdOf } from "./cloud_recall_adapter.ts";
 *
 * assert.equal(projectIdOf("conv-26"), "conv-26");
 * assert.equal(projectIdOf("Conv 7/B"), "conv-7-b");
 * ```
 */
export function projectIdOf(conversationId: string): string {
  const id = conversationId.toLowerCase().replace(/[^0-9a-z_-]/g, "-").replace(/^[_-]+/, "");
  return (id || "c").slice(0, 64);
}

async function main(): Promise<void> {
  const pg = await startPostgres();
  const store = await PostgresCloudStore.open({ url: pg.url, max: 4 });
  const handler = createMemoCloudHandler({
    store,
    apiKeys: [{ key: API_KEY, workspaceId: WORKSPACE }],
    rateLimit: 0,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const baseUrl = `http://127.0.0.1:${server.addr.port}`;
  const projects = new Map<string, { client: MemoCloudClient; runtime: MemoMcpRuntime }>();

  function projectOf(conversationId: string) {
    let entry = projects.get(conversationId);
    if (!entry) {
      const client = new MemoCloudClient({
        baseUrl,
        apiKey: API_KEY,
        workspaceId: WORKSPACE,
        projectId: projectIdOf(conversationId),
      });
      entry = { client, runtime: createMemoCloudMcpRuntime({ cloudClient: client }) };
      projects.set(conversationId, entry);
    }
    return entry;
  }

  // deno-lint-ignore no-explicit-any
  async function handle(msg: any): Promise<unknown> {
    if (msg?.op === "index") {
      const items = msg.items as Item[];
      const { client } = projectOf(msg.conversation_id);
      const result = await client.upsertBatch(items.map(itemToDraft));
      if (result.results.length !== items.length) {
        return { ok: false, error: `stored ${result.results.length} of ${items.length} items` };
      }
      return { ok: true };
    }
    if (msg?.op === "query") {
      const k = Number.isInteger(msg.k) && msg.k > 0 ? msg.k : 10;
      let ids: string[] = [];
      if (typeof msg.question === "string" && msg.question.trim() !== "") {
        const { runtime } = projectOf(msg.conversation_id);
        ids = itemIdsOf(await runtime.recall(msg.question, { limit: k, engine: "lexical" }));
      }
      return { qid: msg.qid, ids };
    }
    return { ok: false, error: `unknown op ${msg?.op}` };
  }

  try {
    await serveEvaluatorProtocol(handle, "cloud_recall_adapter");
  } finally {
    for (const { runtime } of projects.values()) await runtime.close();
    await server.shutdown();
    await store.close();
    await pg.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
