/**
 * The committed bundle of the web page: rebuilding `web/src/` with
 * `scripts/build_web.ts` (npm ci of the pinned tools, then esbuild) gives
 * exactly `web/assets.ts`, and the page loads with at most 150 KB of
 * assets, gzipped.
 */

import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { WEB_ASSETS, WEB_ENTRY, webPageHtml } from "../web/mod.ts";

const ROOT = new URL("..", import.meta.url);
const BUDGET_BYTES = 150 * 1024;

Deno.test("web/assets.ts is what scripts/build_web.ts builds from web/src/", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/build_web.ts", "--check"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.match(stderr, /is what web\/src\/ builds to/);
});

Deno.test("the page and every asset it links weigh at most 150 KB gzipped", () => {
  const html = webPageHtml({ mcpPath: "/mcp", readOnly: false, authRequired: false, version: "0" });
  const linked = [WEB_ENTRY.script, WEB_ENTRY.style, WEB_ENTRY.icon];
  for (const name of linked) assert.ok(html.includes(`/_memo/assets/${name}`), name);
  const bytes = [html, ...WEB_ASSETS.map((a) => a.text)]
    .reduce((sum, text) => sum + gzipSync(text, { level: 9 }).length, 0);
  assert.ok(bytes <= BUDGET_BYTES, `${bytes} bytes gzipped, over ${BUDGET_BYTES}`);
  assert.deepEqual(WEB_ASSETS.map((a) => a.name).sort(), [...linked].sort());
});
