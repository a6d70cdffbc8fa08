/**
 * The hosting recipes of docs/hosting.md that run here: the edge fetch
 * handler (a Worker's `export default { fetch }`, configured by its env
 * bindings) and a Hono route (the framework handler) both serving memo with
 * the cloud runtime against a reference Cloud API server (file store) on
 * 127.0.0.1; and `/healthz` on the `http.ts` default export (`deno serve
 * http.ts`).
 */

import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Hono } from "npm:hono@4.13.19";
import { createMemoCloudHandler } from "../cloud/app.ts";
import { FileCloudStore } from "../cloud/file/store.ts";
import server, { createFrameworkMemoMcpHandler, createMemoMcpFetchHandler } from "../http.ts";

const KEY = "mk_hosting_test_key_0b1c";
const TOKEN = "mcp-hosting-token";
const HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function call(id: number, name: string, args: Record<string, unknown>): RequestInit {
  return {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  };
}

Deno.test("hosting: a Worker-style fetch handler and a Hono route serve memo on the cloud runtime", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "memo-hosting-" });
  const store = new FileCloudStore({ dataDir });
  const cloud = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createMemoCloudHandler({ store, apiKeys: new Map([[KEY, "team"]]), rateLimit: 0 }),
  );
  // What a Worker's bindings (wrangler vars and secrets) or a host's environment hold.
  const env = {
    MEMO_RUNTIME: "cloud",
    MEMO_CLOUD_BASE_URL: `http://127.0.0.1:${cloud.addr.port}`,
    MEMO_CLOUD_API_KEY: KEY,
    MEMO_CLOUD_WORKSPACE_ID: "team",
    MEMO_CLOUD_PROJECT_ID: "hosting",
    MEMO_MCP_BEARER_TOKEN: TOKEN,
    UNRELATED_BINDING: "ignored",
  };
  try {
    // Cloudflare Workers: `export default { fetch: createMemoMcpFetchHandler() }`.
    const worker = { fetch: createMemoMcpFetchHandler({ env: {} }) };
    const written = await worker.fetch(
      new Request(
        "https://memo.example.workers.dev/mcp",
        call(1, "remember", {
          text: "The staging database is rebuilt every Monday",
          labels: ["ops"],
        }),
      ),
      env,
      {},
    );
    assert.equal(written.status, 200);
    const { result } = await written.json();
    assert.equal(result.structuredContent.status, "written", JSON.stringify(result));
    const unauthorized = await worker.fetch(
      new Request("https://memo.example.workers.dev/mcp", { method: "POST" }),
      env,
    );
    assert.equal(unauthorized.status, 401);
    await unauthorized.body?.cancel();

    // A Hono route (the framework handler), same cloud project: it sees the note.
    const handler = createFrameworkMemoMcpHandler({ env });
    const app = new Hono().all("/mcp", (c) => handler(c.req.raw));
    const recalled = await app.request(
      "https://app.example.com/mcp",
      call(2, "recall", { query: "staging database Monday" }),
    );
    assert.equal(recalled.status, 200);
    const recall = (await recalled.json()).result.structuredContent;
    assert.ok(
      JSON.stringify(recall).includes("The staging database is rebuilt every Monday"),
      JSON.stringify(recall),
    );
    // The note is in the Cloud API's store.
    const notes = await fetch(
      `${env.MEMO_CLOUD_BASE_URL}/v1/workspaces/team/projects/hosting/notes`,
      { headers: { authorization: `Bearer ${KEY}` } },
    );
    const listed = await notes.json();
    assert.equal(listed.notes?.length ?? listed.items?.length, 1, JSON.stringify(listed));
  } finally {
    await cloud.shutdown();
    await store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("hosting: deno serve http.ts answers /healthz (GET and HEAD) with no data", async () => {
  const get = await server.fetch(new Request("http://memo.internal:8000/healthz"));
  assert.equal(get.status, 200);
  assert.equal(get.headers.get("cache-control"), "no-store");
  assert.equal(await get.text(), '{"status":"ok"}');
  const head = await server.fetch(
    new Request("http://memo.internal:8000/healthz", { method: "HEAD" }),
  );
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  const del = await server.fetch(
    new Request("http://127.0.0.1:8000/healthz", { method: "DELETE" }),
  );
  assert.equal(del.status, 405);
  assert.equal(del.headers.get("allow"), "GET, HEAD");
  await del.body?.cancel();
});
