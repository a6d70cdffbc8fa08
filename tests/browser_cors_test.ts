/**
 * A real browser against the hosted endpoint: headless Chromium loads a page
 * from a second loopback origin, and the page calls the endpoint with fetch.
 * From an allowed origin the preflight and the POST succeed; from a
 * disallowed one the browser blocks the call. Both for a session-era request and
 * for a 2026-07-28 one (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
 * the per-request `_meta`), including a `subscriptions/listen` stream the
 * page reads and aborts.
 */

import assert from "node:assert/strict";
import { createFrameworkMemoMcpHandler } from "../http.ts";
import { createMemoMcpRuntimeFromConfig } from "../runtimes/factory.ts";
import { startChromium } from "./_chromium.ts";

const TOKEN = "browser-test-token-7f3a";

// deno-lint-ignore no-explicit-any
type Json = any;

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

const STATELESS = "2026-07-28";

/**
 * The expression a page evaluates: one stateless POST with fetch, answered as
 * `{ status, contentType, wwwAuthenticate, vary, body }` or `{ error }`.
 */
function statelessFetch(
  endpoint: string,
  method: string,
  name: string | undefined,
  params: Record<string, unknown>,
  token: string | undefined,
): string {
  return `(async () => {
  const headers = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": ${JSON.stringify(STATELESS)},
    "mcp-method": ${JSON.stringify(method)},
  };
  ${name === undefined ? "" : `headers["mcp-name"] = ${JSON.stringify(name)};`}
  ${token === undefined ? "" : `headers["authorization"] = "Bearer ${token}";`}
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": ${JSON.stringify(STATELESS)},
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "chromium-page", version: "1.0.0" },
  };
  try {
    const res = await fetch(${JSON.stringify(endpoint)}, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: ${JSON.stringify(method)},
        params: { ...${JSON.stringify(params)}, _meta },
      }),
    });
    return {
      status: res.status,
      contentType: res.headers.get("content-type"),
      wwwAuthenticate: res.headers.get("www-authenticate"),
      vary: res.headers.get("vary"),
      body: await res.json(),
    };
  } catch (e) {
    return { error: e.name, message: String(e.message) };
  }
})()`;
}

/**
 * The expression that opens `subscriptions/listen` with fetch, reads the
 * stream up to its first SSE event, then aborts the fetch.
 */
function listenThenAbort(endpoint: string, token: string): string {
  return `(async () => {
  const controller = new AbortController();
  // A stream that goes silent would leave a read pending for ever: the deadline aborts it.
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    controller.abort();
  }, 30000);
  let text = "";
  try {
    const res = await fetch(${JSON.stringify(endpoint)}, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": "Bearer ${token}",
        "mcp-protocol-version": ${JSON.stringify(STATELESS)},
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          notifications: { resourcesListChanged: true, resourceSubscriptions: ["memo://stats"] },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": ${JSON.stringify(STATELESS)},
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
      signal: controller.signal,
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    while (!text.includes("\\n\\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    clearTimeout(deadline);
    controller.abort();
    let afterAbort = "no error";
    try {
      await reader.read();
    } catch (e) {
      afterAbort = e.name;
    }
    return {
      status: res.status,
      contentType: res.headers.get("content-type"),
      firstEvent: text.slice(0, text.indexOf("\\n\\n")),
      afterAbort,
    };
  } catch (e) {
    if (late) return { error: "Timeout", message: "no SSE event within 30 s; read: " + text };
    return { error: e.name, message: String(e.message) };
  } finally {
    clearTimeout(deadline);
  }
})()`;
}

Deno.test("a browser page on an allowed origin speaks 2026-07-28 to the endpoint: preflight with Mcp-Method and Mcp-Name, a result, a listen stream it can abort", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "memo-browser-stateless-" });
  const pages = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response('<!doctype html><meta charset="utf-8"><title>memo stateless</title>', {
        headers: { "content-type": "text/html" },
      }),
  );
  const pagePort = pages.addr.port;
  const allowedOrigin = `http://localhost:${pagePort}`;
  const blockedOrigin = `http://127.0.0.1:${pagePort}`;
  const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
  await runtime.remember({ text: "Deploys run with make deploy" });
  const handler = createFrameworkMemoMcpHandler({
    runtime,
    env: {},
    auth: { bearerToken: TOKEN },
    allowedOrigins: [allowedOrigin],
  });
  const seen: {
    method: string;
    origin: string | null;
    status: number;
    requestHeaders: string | null;
    mcpMethod: string | null;
  }[] = [];
  const { promise: listenCancelled, resolve: cancelled } = Promise.withResolvers<void>();
  const api = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const res = await handler(req);
    seen.push({
      method: req.method,
      origin: req.headers.get("origin"),
      status: res.status,
      requestHeaders: req.headers.get("access-control-request-headers"),
      mcpMethod: req.headers.get("mcp-method"),
    });
    if (req.headers.get("mcp-method") !== "subscriptions/listen" || res.body === null) return res;
    // Pass the listen stream through, noting when the browser's abort reaches it.
    const upstream = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await upstream.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        cancelled();
        return upstream.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  });
  const endpoint = `http://127.0.0.1:${api.addr.port}/mcp`;
  const browser = await startChromium();
  try {
    // tools/call of recall.
    const recall = await browser.evaluateIn(
      `${allowedOrigin}/`,
      statelessFetch(endpoint, "tools/call", "recall", {
        name: "recall",
        arguments: { query: "deploy" },
      }, TOKEN),
    ) as Json;
    assert.equal(recall.status, 200, JSON.stringify(recall));
    assert.equal(recall.contentType, "application/json");
    assert.equal(recall.body.id, 1);
    assert.equal(recall.body.result.resultType, "complete", JSON.stringify(recall.body));
    assert.equal(
      recall.body.result.structuredContent.hits[0].note.title,
      "Deploys run with make deploy",
    );
    assert.equal(recall.vary, null, "Vary is not exposed: the browser hides it from the page");
    // The preflight asked for the stateless headers, and memo allowed them.
    const [preflight] = seen.filter((s) => s.origin === allowedOrigin);
    assert.equal(preflight.method, "OPTIONS");
    assert.equal(preflight.status, 204);
    const asked = preflight.requestHeaders!.split(",").map((h) => h.trim()).sort();
    assert.deepEqual(asked, [
      "authorization",
      "content-type",
      "mcp-method",
      "mcp-name",
      "mcp-protocol-version",
    ]);

    // resources/read of memo://stats.
    const stats = await browser.evaluateIn(
      `${allowedOrigin}/`,
      statelessFetch(endpoint, "resources/read", "memo://stats", { uri: "memo://stats" }, TOKEN),
    ) as Json;
    assert.equal(stats.status, 200, JSON.stringify(stats));
    assert.equal(stats.body.result.resultType, "complete");
    assert.equal(JSON.parse(stats.body.result.contents[0].text).notes, 1);

    // Without the token: 401, and the page reads the exposed WWW-Authenticate.
    const anonymous = await browser.evaluateIn(
      `${allowedOrigin}/`,
      statelessFetch(endpoint, "tools/list", undefined, {}, undefined),
    ) as Json;
    assert.equal(anonymous.status, 401, JSON.stringify(anonymous));
    assert.match(anonymous.wwwAuthenticate ?? "", /^Bearer/);

    // subscriptions/listen: the acknowledgement is the first event; the abort
    // closes the stream at the server.
    const listen = await browser.evaluateIn(
      `${allowedOrigin}/`,
      listenThenAbort(endpoint, TOKEN),
    ) as Json;
    assert.equal(listen.status, 200, JSON.stringify(listen));
    assert.equal(listen.contentType, "text/event-stream");
    assert.equal(listen.afterAbort, "AbortError");
    const data = (listen.firstEvent as string).split("\n").filter((l) => l.startsWith("data: "))
      .map((l) => l.slice(6)).join("\n");
    const ack = JSON.parse(data);
    assert.equal(ack.method, "notifications/subscriptions/acknowledged");
    assert.equal(ack.params._meta["io.modelcontextprotocol/subscriptionId"], "listen-1");
    assert.deepEqual(ack.params.notifications, {
      resourcesListChanged: true,
      resourceSubscriptions: ["memo://stats"],
    });
    // Chromium may keep the socket up to 5 s after the abort, draining the
    // body to reuse the connection (net's HttpResponseBodyDrainer), so the
    // server can learn of it that late.
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        listenCancelled,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error("the abort never reached the server")),
            30_000, // Chromium's 5 s, on a loaded machine
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }

    const allowedPosts = seen.filter((s) => s.origin === allowedOrigin && s.method === "POST");
    assert.deepEqual(allowedPosts.map((s) => [s.mcpMethod, s.status]), [
      ["tools/call", 200],
      ["resources/read", 200],
      ["tools/list", 401],
      ["subscriptions/listen", 200],
    ]);

    // A disallowed origin: the preflight is refused, the POST never leaves the browser.
    const blocked = await browser.evaluateIn(
      `${blockedOrigin}/`,
      statelessFetch(endpoint, "tools/call", "recall", {
        name: "recall",
        arguments: { query: "deploy" },
      }, TOKEN),
    ) as Json;
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
