import assert from "node:assert/strict";
import { WEB_ASSETS, WEB_ENTRY } from "../../web/mod.ts";
import { createPageHandler, PAGE_CSP, type PageHandlerConfig } from "./page.ts";

const PAGE = { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0.1.0" };
const CONFIG: PageHandlerConfig = { uiPath: "/", allowedOrigins: [], page: PAGE };
const ORIGIN = "http://127.0.0.1:8787";

function get(path: string, headers: Record<string, string> = {}, method = "GET"): Request {
  return new Request(`${ORIGIN}${path}`, { method, headers });
}

async function gunzip(response: Response): Promise<Uint8Array> {
  const stream = response.body!.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("page: the HTML on the UI path, with its headers", async () => {
  const handler = createPageHandler(CONFIG);
  const response = handler(get("/?q=deploy&engine=lexical"))!;
  assert.equal(response.status, 200);
  const h = response.headers;
  assert.equal(h.get("content-type"), "text/html; charset=utf-8");
  assert.equal(h.get("cache-control"), "no-cache");
  assert.equal(h.get("content-security-policy"), PAGE_CSP);
  assert.equal(h.get("x-content-type-options"), "nosniff");
  assert.equal(h.get("referrer-policy"), "no-referrer");
  assert.equal(h.get("x-frame-options"), "DENY");
  assert.equal(h.get("vary"), "accept-encoding");
  assert.equal(h.get("content-encoding"), null);
  assert.match(h.get("etag")!, /^"[0-9a-f]+"$/);
  const html = await response.text();
  assert.ok(html.includes(`/_memo/assets/${WEB_ENTRY.script}`));
  assert.ok(html.includes("&quot;mcpPath&quot;:&quot;/mcp&quot;"));
});

Deno.test("page: other paths are not the page's", () => {
  const handler = createPageHandler(CONFIG);
  for (const path of ["/mcp", "/index.html", "/_memo", "/favicon.ico"]) {
    assert.equal(handler(get(path)), undefined, path);
  }
  const moved = createPageHandler({ ...CONFIG, uiPath: "/ui" });
  assert.equal(moved(get("/")), undefined);
  assert.equal(moved(get("/ui"))?.status, 200);
});

Deno.test("page: every asset is served with its type, immutable caching and a strong ETag", async () => {
  const handler = createPageHandler(CONFIG);
  for (const asset of WEB_ASSETS) {
    const response = handler(get(`/_memo/assets/${asset.name}`))!;
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), asset.type);
    assert.equal(response.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("content-security-policy"), PAGE_CSP);
    const etag = response.headers.get("etag")!;
    assert.match(etag, /^"[0-9a-f]+"$/);
    assert.equal(await response.text(), asset.text);
    const again = handler(get(`/_memo/assets/${asset.name}`, { "if-none-match": etag }))!;
    assert.equal(again.status, 304);
    assert.equal(again.body, null);
  }
  const unknown = handler(get("/_memo/assets/nope.js"))!;
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
});

Deno.test("page: the HTML answers If-None-Match with 304, a stale tag with 200", async () => {
  const handler = createPageHandler(CONFIG);
  const first = handler(get("/"))!;
  await first.body?.cancel();
  const etag = first.headers.get("etag")!;
  assert.equal(handler(get("/", { "if-none-match": `"x", ${etag}` }))!.status, 304);
  const stale = handler(get("/", { "if-none-match": '"stale"' }))!;
  assert.equal(stale.status, 200);
  await stale.body?.cancel();
  const other = createPageHandler({ ...CONFIG, page: { ...PAGE, readOnly: true } })(get("/"))!;
  await other.body?.cancel();
  assert.notEqual(other.headers.get("etag"), etag, "another config is another document");
});

Deno.test("page: gzip when Accept-Encoding allows it", async () => {
  const handler = createPageHandler(CONFIG);
  const asset = WEB_ASSETS.find((a) => a.name === WEB_ENTRY.script)!;
  const path = `/_memo/assets/${asset.name}`;
  for (const accept of ["gzip, deflate, br", "br;q=1, gzip;q=0.5", "*", "identity, *;q=0.1"]) {
    const response = handler(get(path, { "accept-encoding": accept }))!;
    assert.equal(response.headers.get("content-encoding"), "gzip", accept);
    assert.equal(response.headers.get("vary"), "accept-encoding");
    assert.equal(new TextDecoder().decode(await gunzip(response)), asset.text);
  }
  for (const accept of ["br", "gzip;q=0", "*;q=0", "identity", "gzip;q=0, *"]) {
    const response = handler(get(path, { "accept-encoding": accept }))!;
    assert.equal(response.headers.get("content-encoding"), null, accept);
    assert.equal(await response.text(), asset.text);
  }
  const html = handler(get("/", { "accept-encoding": "gzip" }))!;
  assert.equal(html.headers.get("content-encoding"), "gzip");
  assert.match(new TextDecoder().decode(await gunzip(html)), /^<!doctype html>/);
  // The gzip and identity representations have different strong tags.
  const plain = handler(get(path))!;
  await plain.body?.cancel();
  const zipped = handler(get(path, { "accept-encoding": "gzip" }))!;
  await zipped.body?.cancel();
  assert.notEqual(plain.headers.get("etag"), zipped.headers.get("etag"));
});

Deno.test("page: HEAD has the headers and the length of a GET, and no body; other methods are 405", async () => {
  const handler = createPageHandler(CONFIG);
  // Before any GET computed the gzip body, HEAD describes the identity body.
  const first = handler(get("/", { "accept-encoding": "gzip" }, "HEAD"))!;
  assert.equal(first.status, 200);
  assert.equal(first.body, null);
  assert.equal(first.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(first.headers.get("content-encoding"), null);
  const plain = await handler(get("/"))!.arrayBuffer();
  assert.equal(first.headers.get("content-length"), String(plain.byteLength));
  const zipped = await handler(get("/", { "accept-encoding": "gzip" }))!.arrayBuffer();
  const head = handler(get("/", { "accept-encoding": "gzip" }, "HEAD"))!;
  assert.equal(head.body, null);
  assert.equal(head.headers.get("content-encoding"), "gzip");
  assert.equal(head.headers.get("content-length"), String(zipped.byteLength));
  for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
    for (const path of ["/", `/_memo/assets/${WEB_ENTRY.style}`, "/_memo/assets/nope.js"]) {
      const response = handler(get(path, {}, method))!;
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get("allow"), "GET, HEAD");
      await response.body?.cancel();
    }
  }
});

Deno.test("page: without authentication a non-loopback Host is refused", async () => {
  const open = createPageHandler(CONFIG);
  for (const path of ["/", `/_memo/assets/${WEB_ENTRY.script}`]) {
    const response = open(get(path, { host: "evil.example" }))!;
    assert.equal(response.status, 403, path);
    await response.body?.cancel();
    const loopback = open(get(path, { host: "localhost:8787" }))!;
    assert.equal(loopback.status, 200);
    await loopback.body?.cancel();
  }
  const authed = createPageHandler({ ...CONFIG, page: { ...PAGE, authRequired: true } });
  const remote = authed(get("/", { host: "memo.example.com" }))!;
  assert.equal(remote.status, 200, "no token is needed for the page, and any Host may ask");
  await remote.body?.cancel();
});

Deno.test("page: an Origin neither allowed nor the request's own is refused", async () => {
  const handler = createPageHandler({ ...CONFIG, allowedOrigins: ["https://app.example.com"] });
  const cases: [string, number][] = [
    [ORIGIN, 200], // its own (a module script request carries it)
    ["https://app.example.com", 200],
    ["https://evil.example", 403],
    ["null", 403],
  ];
  for (const [origin, status] of cases) {
    const response = handler(get(`/_memo/assets/${WEB_ENTRY.script}`, { origin }))!;
    assert.equal(response.status, status, origin);
    await response.body?.cancel();
  }
});

Deno.test("page: a UI path that cannot work is refused at construction", () => {
  for (const uiPath of ["ui", "/mcp", "/_memo", "/_memo/ui", "/a b", "/x?y", "/x#y", "/a/../b"]) {
    assert.throws(
      () => createPageHandler({ ...CONFIG, uiPath }),
      /^Error: Cannot configure the web page: /,
      uiPath,
    );
  }
});
