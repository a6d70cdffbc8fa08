/**
 * A real browser against the hosted endpoint: headless Chromium loads a page
 * from a second loopback origin, and the page calls the endpoint with fetch.
 * From an allowed origin the preflight and the POST succeed; from a
 * disallowed one the browser blocks the call.
 */

import assert from "node:assert/strict";
import { createFrameworkMemoMcpHandler } from "../http.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { startChromium } from "./_chromium.ts";

const TOKEN = "browser-test-token-7f3a";

function page(endpoint: string): string {
  return `<!doctype html><meta charset="utf-8"><title>memo cors</title><script>
window.__result = (async () => {
  try {
    const res = await fetch(${JSON.stringify(endpoint)}, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": "Bearer ${TOKEN}",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    return { status: res.status, body: await res.json() };
  } catch (e) {
    return { error: e.name, message: String(e.message) };
  }
})();
</script>`;
}

Deno.test("createFrameworkMemoMcpHandler() lets an allowed origin in a browser call it and blocks others", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-browser-" });
  const pages = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const endpoint = new URL(req.url).searchParams.get("endpoint") ?? "";
    return new Response(page(endpoint), { headers: { "content-type": "text/html" } });
  });
  const pagePort = pages.addr.port;
  const allowedOrigin = `http://localhost:${pagePort}`;
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  const handler = createFrameworkMemoMcpHandler({
    runtime,
    env: {},
    auth: { bearerToken: TOKEN },
    allowedOrigins: [allowedOrigin],
  });
  const seen: { method: string; origin: string | null; status: number }[] = [];
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const res = await handler(req);
    seen.push({ method: req.method, origin: req.headers.get("origin"), status: res.status });
    return res;
  });
  const endpoint = `http://127.0.0.1:${api.addr.port}/mcp`;
  const browser = await startChromium();
  try {
    // Allowed: the page's origin is http://localhost:<port>.
    const ok = await browser.evaluateIn(
      `${allowedOrigin}/?endpoint=${encodeURIComponent(endpoint)}`,
      "window.__result",
    ) as { status: number; body: { result: { tools: { name: string }[] } } };
    assert.equal(ok.status, 200, JSON.stringify(ok));
    assert.ok(ok.body.result.tools.some((t) => t.name === "recall"));
    const allowedSeen = seen.filter((s) => s.origin === allowedOrigin);
    assert.deepEqual(allowedSeen.map((s) => [s.method, s.status]), [["OPTIONS", 204], [
      "POST",
      200,
    ]]);

    // Disallowed: the same page from http://127.0.0.1:<port>, another origin.
    const blockedOrigin = `http://127.0.0.1:${pagePort}`;
    const blocked = await browser.evaluateIn(
      `${blockedOrigin}/?endpoint=${encodeURIComponent(endpoint)}`,
      "window.__result",
    ) as { error?: string };
    assert.equal(blocked.error, "TypeError", JSON.stringify(blocked));
    const blockedSeen = seen.filter((s) => s.origin === blockedOrigin);
    assert.deepEqual(blockedSeen.map((s) => [s.method, s.status]), [["OPTIONS", 403]]);
  } finally {
    await browser.close();
    await api.shutdown();
    await pages.shutdown();
    await runtime.close();
    await Deno.remove(rootDir, { recursive: true }).catch(() => {});
  }
});
