import assert from "node:assert/strict";
import { WEB_ENTRY, webPageHtml } from "./mod.ts";

const BASE = { mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0.1.0" };

function configOf(html: string): unknown {
  const m = /<meta name="memo-config" content="([^"]*)">/.exec(html);
  assert.ok(m, "the config meta is there");
  const text = m[1].replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e as string]!,
  );
  return JSON.parse(text);
}

Deno.test("webPageHtml: the document links the entry assets and nothing else", () => {
  const html = webPageHtml(BASE);
  assert.ok(html.startsWith('<!doctype html><html lang="en"><head><meta charset="utf-8">'));
  assert.ok(html.includes("<title>memo</title>"));
  assert.ok(html.includes(`<link rel="icon" href="/_memo/assets/${WEB_ENTRY.icon}"`));
  assert.ok(html.includes(`<link rel="stylesheet" href="/_memo/assets/${WEB_ENTRY.style}">`));
  assert.ok(html.includes(`<script type="module" src="/_memo/assets/${WEB_ENTRY.script}">`));
  assert.ok(html.includes('<div id="app"></div>'));
  assert.ok(html.includes("<noscript>memo's web page needs JavaScript.</noscript>"));
  assert.equal(html.match(/<script/g)?.length, 1, "no inline script");
});

Deno.test("webPageHtml: the config is the four keys, escaped so no markup can break out", () => {
  const mcpPath = `/m"><script>alert('x')</script>&`;
  const html = webPageHtml({ ...BASE, mcpPath, readOnly: true });
  assert.ok(!html.includes("<script>alert"), "no markup from the config");
  const meta = /<meta name="memo-config" content="([^"]*)">/.exec(html)![1];
  assert.doesNotMatch(meta, /[<>"']/);
  assert.deepEqual(configOf(html), { ...BASE, mcpPath, readOnly: true });
});

Deno.test("webPageHtml: extra keys (a token) never reach the page", () => {
  const config = { ...BASE, authRequired: true, bearerToken: "s3cret-token" };
  const html = webPageHtml(config);
  assert.ok(!html.includes("s3cret-token"));
  assert.deepEqual(Object.keys(configOf(html) as object), [
    "mcpPath",
    "readOnly",
    "authRequired",
    "version",
  ]);
});
