/**
 * `memo serve` under Node: cli.ts bundled for Node (`deno bundle
 * --platform=node`) runs on the machine's `node`, so the Node side of
 * `serve()` (`platform/_node_serve.ts`) answers real HTTP and stops on SIGTERM.
 * Answers over 1 KB come gzipped, and a listen stream stays plain and live
 * (Node's `CompressionStream` would hold its events).
 */

import assert from "node:assert/strict";
import { WEB_ASSETS, WEB_ENTRY } from "../web/mod.ts";
import { checkGzipAnswers, checkListenLive } from "./_http_encoding.ts";
import { readUntil } from "../testing/wait.ts";

const ROOT = new URL("..", import.meta.url);

Deno.test("memo serve runs under Node through platform/_node_serve.ts", async () => {
  const work = await Deno.makeTempDir({ prefix: "memo-node-serve-" });
  const bundle = `${work}/memo.mjs`;
  const built = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform=node", "-o", bundle, "cli.ts"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(built.success, new TextDecoder().decode(built.stderr));

  const child = new Deno.Command("node", {
    args: [bundle, "serve", "--port", "0", "--dir", work],
    cwd: work,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let port = 0;
  try {
    const listening = /memo: listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
    const started = await readUntil(reader, (t) => listening.test(t), "node's listening line");
    text = started.text;
    if (started.done) throw new Error(`node exited before it listened:\n${text}`);
    port = Number(listening.exec(text)![1]);
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { text: "Node serves memo too" } },
      }),
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).result.structuredContent.status, "written");
    const preflight = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:5173");
    await preflight.body?.cancel();

    // gzip above 1 KB only; a listen stream plain, its events live.
    await checkGzipAnswers(`http://127.0.0.1:${port}/mcp`);
    await checkListenLive(`http://127.0.0.1:${port}/mcp`);

    // The web page, and an asset gzip-compressed that decodes to the same bytes.
    const page = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /<title>memo<\/title>/);
    const asset = WEB_ASSETS.find((a) => a.name === WEB_ENTRY.script)!;
    for (let i = 0; i < 2; i++) { // the first compresses, the second is served from the cache
      const zipped = await fetch(`http://127.0.0.1:${port}/_memo/assets/${asset.name}`, {
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(zipped.status, 200);
      assert.equal(zipped.headers.get("content-type"), asset.type);
      // fetch decodes gzip itself; its header stays.
      assert.equal(zipped.headers.get("content-encoding"), "gzip");
      assert.equal(await zipped.text(), asset.text);
    }
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    while (!(await reader.read()).done) { /* drain */ }
    await Deno.remove(work, { recursive: true }).catch(() => {});
    assert.equal(status.code, 0, text);
  }
});
