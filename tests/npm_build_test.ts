/**
 * The npm build under Node, as issue 15 runs it from a fresh clone: build the
 * three packages with scripts/build_npm.ts, check what `npm pack` would ship,
 * `npm install --install-links` the built folders into an empty project, and
 * use them from `node` and `npx` — `npx memo --help`, `npx memo mcp` driven by
 * the official SDK client, every export of every package, the library, the
 * `memo` bin, stdio MCP and the HTTP handler.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { COMMAND_INFO } from "../cli/command_info.ts";
import { type ProcessResult, runProcess } from "./_run_process.ts";

const repo = new URL("..", import.meta.url).pathname;

/** The three packages: the folder in the repo and the one `build_npm.ts` writes. */
const PACKAGES = [
  { dir: "memory", out: "memory" },
  { dir: "connectors", out: "connectors" },
  { dir: "", out: "mcp-server" },
];

/** What `npm pack --dry-run --json` reports for one package. */
interface PackReport {
  name: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

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
    ["run", "-A", "--lock=deno.dev.lock", "scripts/build_npm.ts", "--out", out],
    repo,
  );
  assert.equal(build.code, 0, build.err);

  await t.step(
    "each package.json follows its deno.json, and npm packs only what ships",
    async () => {
      const packed = await run(
        "npm",
        ["pack", "--dry-run", "--json", ...PACKAGES.map((p) => `./${p.out}`)],
        out,
      );
      assert.equal(packed.code, 0, packed.err);
      const reports: PackReport[] = JSON.parse(packed.out);
      const license = await Deno.readTextFile(join(repo, "LICENSE"));
      for (const [i, p] of PACKAGES.entries()) {
        const config = JSON.parse(await Deno.readTextFile(join(repo, p.dir, "deno.json")));
        const pkg = JSON.parse(await Deno.readTextFile(join(out, p.out, "package.json")));
        assert.equal(pkg.name, config.name);
        assert.equal(pkg.version, config.version);
        assert.equal(pkg.license, config.license);
        assert.deepEqual(pkg.engines, { node: ">=20" });
        assert.equal(pkg.repository, undefined);
        assert.deepEqual(Object.keys(pkg.exports), Object.keys(config.exports));
        assert.deepEqual(pkg.bin, p.out === "mcp-server" ? { memo: "./cli.js" } : undefined);
        assert.equal(
          await Deno.readTextFile(join(out, p.out, "README.md")),
          await Deno.readTextFile(join(repo, p.dir, "README.md")),
        );
        assert.equal(await Deno.readTextFile(join(out, p.out, "LICENSE")), license);

        const report = reports[i];
        assert.equal(report.name, config.name);
        const files = report.files.map((f) => f.path);
        for (const must of ["README.md", "LICENSE", "package.json", "mod.js", "mod.d.ts"]) {
          assert.ok(files.includes(must), `${config.name} ships ${must}`);
        }
        const stray = files.filter((f) =>
          !["README.md", "LICENSE", "package.json"].includes(f) &&
          !(f.endsWith(".js") || f.endsWith(".d.ts"))
        );
        assert.deepEqual(stray, [], `${config.name} ships only built files`);
        const notShipped = files.filter((f) =>
          /_test\.|(^|\/)(tests|testing|bench|scripts|web\/src)\//.test(f)
        );
        assert.deepEqual(notShipped, [], `${config.name} ships no tests, helpers or sources`);
      }
    },
  );

  // An empty project; the package.json only keeps npm from installing into a parent folder.
  const app = join(work, "app");
  await Deno.mkdir(app);
  await Deno.writeTextFile(join(app, "package.json"), JSON.stringify({ private: true }));
  const installed = await run(
    "npm",
    [
      "install",
      "--install-links",
      "--no-audit",
      "--no-fund",
      ...PACKAGES.map((p) => `../npm/${p.out}`),
    ],
    app,
  );
  assert.equal(installed.code, 0, installed.err);

  const version = await run("node", ["--version"], app);
  const bin = join(app, "node_modules", ".bin", "memo");

  await t.step("npx memo --help lists every command", async () => {
    const r = await run("npx", ["memo", "--help"], app);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^memo \d+\.\d+\.\d+: /);
    for (const name of Object.keys(COMMAND_INFO)) {
      assert.match(r.out, new RegExp(`^  ${name} `, "m"), `--help lists ${name}`);
    }
  });

  await t.step(
    "npx memo init --client claude-code writes the npx form for a project install",
    async () => {
      const r = await run("npx", ["memo", "init", "--client", "claude-code", "--json"], app);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out).command, ["npx", "-y", "@memo/mcp-server", "mcp"]);
      const written = JSON.parse(await Deno.readTextFile(join(app, ".mcp.json")));
      assert.deepEqual(written.mcpServers.memo, {
        command: "npx",
        args: ["-y", "@memo/mcp-server", "mcp"],
      });
    },
  );

  await t.step("every export of the three packages imports under node, as under Deno", async () => {
    const specifiers: string[] = [];
    const expected: Record<string, string[]> = {};
    for (const p of PACKAGES) {
      const config = JSON.parse(await Deno.readTextFile(join(repo, p.dir, "deno.json")));
      for (const [key, file] of Object.entries(config.exports as Record<string, string>)) {
        const specifier = config.name + key.slice(1);
        specifiers.push(specifier);
        expected[specifier] = Object.keys(await import(join(repo, p.dir, file))).sort();
      }
    }
    const script = `
      const out = {};
      for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).sort();
      console.log(JSON.stringify(out));
    `;
    const r = await run("node", ["--input-type=module", "-e", script], app);
    assert.equal(r.code, 0, r.err);
    const actual = JSON.parse(r.out);
    assert.deepEqual(Object.keys(actual), specifiers);
    for (const s of specifiers) {
      assert.ok(actual[s].length > 0, `${s} exports something`);
      assert.deepEqual(actual[s], expected[s], `${s} exports the same names under node`);
    }
  });

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

  await t.step("npx memo mcp answers the SDK client", async () => {
    const transport = new StdioClientTransport({
      command: "npx",
      args: ["memo", "mcp"],
      cwd: app,
      stderr: "pipe",
      env: { ...Deno.env.toObject(), NO_COLOR: "1", npm_config_loglevel: "error" },
    });
    const client = new Client({ name: "memo-npm-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, "memo");
      const { tools } = await client.listTools();
      const names = tools.map((tool: { name: string }) => tool.name);
      for (const name of ["remember", "recall", "forget"]) assert.ok(names.includes(name), name);
      const result = await client.callTool({
        name: "remember",
        arguments: { text: "npx memo mcp remembers over stdio", labels: ["npx"] },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
    } finally {
      await client.close();
    }
    const notes = await Deno.readTextFile(join(app, ".memo", "memory", "notes.md"));
    assert.match(notes, /^## npx memo mcp remembers over stdio$/m);
  });

  await Deno.remove(work, { recursive: true });
});
