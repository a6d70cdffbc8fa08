/**
 * The npm build under Node: build the three packages with scripts/build_npm.ts,
 * pack them, install the tarballs into a fresh project with npm, and use them
 * from `node` — the `memo` bin, the library, stdio MCP and the HTTP handler.
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type ProcessResult, runProcess } from "./_run_process.ts";

const repo = new URL("..", import.meta.url).pathname;

function run(cmd: string, args: string[], cwd: string, stdin?: string): Promise<ProcessResult> {
  return runProcess(cmd, args, {
    cwd,
    stdin,
    env: { NO_COLOR: "1", npm_config_loglevel: "error", npm_config_fund: "false" },
  });
}

Deno.test("build_npm.ts output installs with npm and runs under Node", async (t) => {
  const work = await Deno.makeTempDir({ prefix: "memo-npm-" });
  const out = join(work, "npm");
  const build = await run(
    Deno.execPath(),
    ["run", "-A", "scripts/build_npm.ts", "--out", out],
    repo,
  );
  assert.equal(build.code, 0, build.err);

  const app = join(work, "app");
  await Deno.mkdir(app);
  for (const pkg of ["memory", "connectors", "mcp-server"]) {
    const packed = await run("npm", ["pack", "--pack-destination", app], join(out, pkg));
    assert.equal(packed.code, 0, packed.err);
  }
  const tarballs = (await readdir(app)).filter((f) => f.endsWith(".tgz")).map((f) => `./${f}`);
  assert.equal(tarballs.length, 3);
  assert.equal((await run("npm", ["init", "-y"], app)).code, 0);
  const installed = await run("npm", ["install", "--no-audit", "--no-fund", ...tarballs], app);
  assert.equal(installed.code, 0, installed.err);

  const version = await run("node", ["--version"], app);
  const bin = join(app, "node_modules", ".bin", "memo");

  await t.step(`the memo bin works under node ${version.out.trim()}`, async () => {
    const r = await run(
      "node",
      [bin, "remember", "Node can run memo", "--label", "npm", "--json"],
      app,
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(JSON.parse(r.out).status, "written");
    const hits =
      JSON.parse((await run("node", [bin, "recall", "node memo", "--json"], app)).out).hits;
    assert.equal(hits[0].note.body, "Node can run memo");
    const bad = await run("node", [bin, "remember", "x", "--nope"], app);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^memo: unknown flag --nope/);
  });

  await t.step("the library imports and works from node", async () => {
    const script = `
      import { openMemo } from "@memo/memory";
      import { createConnectorRegistry } from "@memo/connectors";
      import { createMemoMcpProtocolServer, createMemoMcpRuntimeFromMemo } from "@memo/mcp-server";
      const memo = await openMemo({ rootDir: process.cwd() });
      const server = createMemoMcpProtocolServer({ runtime: createMemoMcpRuntimeFromMemo(memo) });
      const out = await server.handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
      const names = JSON.parse(out).result.tools.map((t) => t.name);
      console.log(JSON.stringify({ names, types: createConnectorRegistry().types() }));
      await memo.close();
    `;
    const r = await run("node", ["--input-type=module", "-e", script], app);
    assert.equal(r.code, 0, r.err);
    const parsed = JSON.parse(r.out);
    assert.ok(parsed.names.includes("recall"));
    assert.deepEqual([...parsed.types].sort(), ["discussions", "pages"]);
  });

  await t.step("use-lite embeds under node in its worker thread, silently", async () => {
    const script = `
      import { loadEmbedder } from "@memo/memory";
      const embedder = await loadEmbedder("use-lite");
      const [v] = await embedder.embed(["The staging deploy key rotates every 90 days"]);
      const hub = await loadEmbedder("Xenova/all-MiniLM-L6-v2").catch((e) => e);
      await embedder.close();
      console.log(JSON.stringify({
        dims: v.length, norm: Math.hypot(...v), hub: { code: hub.code, message: hub.message },
      }));
    `;
    // A file, not `-e`: a worker thread inherits node's flags, and `--input-type` fails there.
    await Deno.writeTextFile(join(app, "embed.mjs"), script);
    const r = await run("node", ["embed.mjs"], app);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, "");
    const parsed = JSON.parse(r.out); // the only output: tfjs printed nothing
    assert.equal(parsed.dims, 512);
    assert.ok(Math.abs(parsed.norm - 1) < 1e-5);
    // @huggingface/transformers is an optional peer, not installed here.
    assert.deepEqual(parsed.hub, {
      code: "EMBEDDER_UNAVAILABLE",
      message: "Cannot load model Xenova/all-MiniLM-L6-v2: install @huggingface/transformers",
    });
    const pkg = JSON.parse(
      await Deno.readTextFile(join(app, "node_modules", "@memo", "memory", "package.json")),
    );
    assert.deepEqual(pkg.peerDependencies, { "@huggingface/transformers": "^4.3.1" });
    assert.deepEqual(pkg.peerDependenciesMeta, { "@huggingface/transformers": { optional: true } });
    assert.equal(pkg.dependencies["@huggingface/transformers"], undefined);
    const hubJs = await Deno.readTextFile(
      join(app, "node_modules", "@memo", "memory", "embed", "_hub.js"),
    );
    assert.match(hubJs, /const TRANSFORMERS = "@huggingface\/transformers";/);
  });

  await t.step("memo mcp answers over stdio under node", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    };
    const r = await run("node", [bin, "mcp"], app, JSON.stringify(init) + "\n");
    assert.equal(r.code, 0, r.err);
    const reply = JSON.parse(r.out.trim());
    assert.equal(reply.result.protocolVersion, "2025-06-18");
    assert.equal(reply.result.serverInfo.name, "memo");
  });

  await t.step("the ./http subpath handles a Request under node", async () => {
    const script = `
      import { handleMemoMcpRequest } from "@memo/mcp-server/http";
      const res = await handleMemoMcpRequest(new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
      }), { env: { MEMO_ROOT_DIR: process.cwd() } });
      console.log(res.status, await res.text());
    `;
    const r = await run("node", ["--input-type=module", "-e", script], app);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^200 \{"jsonrpc":"2.0","id":7,"result":\{\}\}/);
  });
});
