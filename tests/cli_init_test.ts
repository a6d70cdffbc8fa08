import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only, pinned
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { type ProcessResult, runProcess } from "./_run_process.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const TOKEN = "tok-9f3a-do-not-print";
/** The running Deno: every process here is started with it, never with a `deno` from PATH. */
const DENO = Deno.execPath();

/** Deno's cache folder, kept when HOME moves (else the subprocess would download again). */
async function denoDir(): Promise<string> {
  const { stdout } = await new Deno.Command(DENO, { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(stdout)).denoDir;
}

/**
 * A project folder, and `memo` run in it as a process. `PATH` is a folder of
 * the test's own: empty, or with `deno` linked to the running Deno
 * (`denoOnPath`), so that what `memo init` writes does not depend on the
 * machine's PATH.
 */
async function tempProject(options: { denoOnPath?: boolean } = {}) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "memo-init-proc-" }));
  const root = join(base, "project");
  await mkdir(root);
  const bin = join(base, "bin");
  await mkdir(bin);
  if (options.denoOnPath) await Deno.symlink(DENO, join(bin, "deno"));
  const env = {
    HOME: join(base, "home"),
    XDG_CONFIG_HOME: join(base, "xdg"),
    DENO_DIR: await denoDir(),
    NO_COLOR: "1",
    PATH: bin,
  };
  return {
    base,
    root,
    desktop: join(base, "xdg", "Claude", "claude_desktop_config.json"),
    memo: (args: string[]): Promise<ProcessResult> =>
      runProcess(DENO, ["run", "-A", CLI, ...args], { cwd: root, env }),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

async function put(path: string, value: unknown): Promise<string> {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 4);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return text;
}

/** Every file under `dir`, path → content. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.set(relative(dir, p), await readFile(p, "utf8"));
    }
  };
  await walk(dir);
  return out;
}

const read = async (path: string) => JSON.parse(await readFile(path, "utf8"));
const ALL = ["claude-code", "cursor", "vscode", "claude-desktop"].flatMap((c) => ["--client", c]);

Deno.test("memo init (process) merges four client files, runs twice as a no-op, and the written line starts memo", async () => {
  await using p = await tempProject();
  const memoWithToken = {
    command: "old-memo",
    args: ["serve"],
    env: { MEMO_CLOUD_API_KEY: TOKEN },
  };
  const old = {
    mcp: await put(join(p.root, ".mcp.json"), {
      mcpServers: { github: { command: "github-mcp", args: ["stdio"] }, memo: memoWithToken },
    }),
    cursor: await put(join(p.root, ".cursor", "mcp.json"), {
      mcpServers: { memo: memoWithToken, linear: { url: "https://mcp.linear.app/sse" } },
    }),
    vscode: await put(join(p.root, ".vscode", "mcp.json"), {
      inputs: [{ type: "promptString", id: "api-key", password: true }],
      servers: {
        fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"] },
        memo: { type: "stdio", ...memoWithToken },
      },
    }),
    desktop: await put(p.desktop, {
      globalShortcut: "",
      mcpServers: {
        filesystem: { command: "npx", args: ["-y", "fs-server", "/tmp"] },
        memo: memoWithToken,
      },
    }),
  };

  const first = await p.memo(["init", ...ALL]);
  assert.equal(first.code, 0, first.err);
  assert.equal(first.err, "");
  assert.doesNotMatch(first.out + first.err, new RegExp(TOKEN));
  // No deno on PATH: the running Deno by its full path, which a client can start.
  const command = [DENO, "run", "-A", CLI, "mcp"];
  assert.match(
    first.out,
    new RegExp(
      "^created \\.memo/config\\.json\ncreated \\.memo/\\.gitignore\n" +
        "updated \\.mcp\\.json \\(backup \\.mcp\\.json\\.memo\\.bak\\)\n" +
        "updated \\.cursor/mcp\\.json \\(backup \\.cursor/mcp\\.json\\.memo\\.bak\\)\n" +
        "updated \\.vscode/mcp\\.json \\(backup \\.vscode/mcp\\.json\\.memo\\.bak\\)\n" +
        `updated ${p.desktop} \\(backup ${p.desktop}\\.memo\\.bak\\)\n` +
        `MCP clients start memo with: ${
          command.join(" ").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        }\n`,
    ),
  );

  // Other servers and keys kept; memo's command replaced; its env kept.
  const env = { MEMO_CLOUD_API_KEY: TOKEN };
  const args = command.slice(1);
  const workspace = [...args, "--dir", "${workspaceFolder}"];
  assert.deepEqual(await read(join(p.root, ".mcp.json")), {
    mcpServers: {
      github: { command: "github-mcp", args: ["stdio"] },
      memo: { command: DENO, args, env },
    },
  });
  assert.deepEqual(await read(join(p.root, ".cursor", "mcp.json")), {
    mcpServers: {
      memo: { command: DENO, args: workspace, env },
      linear: { url: "https://mcp.linear.app/sse" },
    },
  });
  assert.deepEqual(await read(join(p.root, ".vscode", "mcp.json")), {
    inputs: [{ type: "promptString", id: "api-key", password: true }],
    servers: {
      fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"] },
      memo: { type: "stdio", command: DENO, args: workspace, env },
    },
  });
  assert.deepEqual(await read(p.desktop), {
    globalShortcut: "",
    mcpServers: {
      filesystem: { command: "npx", args: ["-y", "fs-server", "/tmp"] },
      memo: { command: DENO, args: [...args, "--dir", p.root], env },
    },
  });
  // The written files: 2-space JSON and a newline.
  assert.match(
    await readFile(join(p.root, ".mcp.json"), "utf8"),
    /^\{\n {2}"mcpServers": \{\n {4}"github"[^]*\}\n$/,
  );
  // Backups hold the old bytes.
  assert.equal(await readFile(join(p.root, ".mcp.json.memo.bak"), "utf8"), old.mcp);
  assert.equal(await readFile(join(p.root, ".cursor", "mcp.json.memo.bak"), "utf8"), old.cursor);
  assert.equal(await readFile(join(p.root, ".vscode", "mcp.json.memo.bak"), "utf8"), old.vscode);
  assert.equal(await readFile(`${p.desktop}.memo.bak`, "utf8"), old.desktop);
  assert.equal(
    await readFile(join(p.root, ".memo", "config.json"), "utf8"),
    '{\n  "connectors": []\n}\n',
  );
  const gitignore = (await readFile(join(p.root, ".memo", ".gitignore"), "utf8")).split("\n");
  for (
    const line of ["cache/", "replica/", "connectors/state.json", "memory/notes.md.lock", "logs/"]
  ) {
    assert.ok(gitignore.includes(line), line);
  }
  assert.deepEqual((await readdir(p.root)).sort(), [
    ".cursor",
    ".mcp.json",
    ".mcp.json.memo.bak",
    ".memo",
    ".vscode",
  ]);

  // A second run: every file byte-identical, no new backup, "unchanged" everywhere.
  const before = await snapshot(p.base);
  const second = await p.memo(["init", ...ALL, "--json"]);
  assert.equal(second.code, 0, second.err);
  assert.deepEqual(await snapshot(p.base), before);
  const result = JSON.parse(second.out);
  assert.deepEqual(result.command, command);
  assert.equal(result.root, p.root);
  assert.deepEqual(
    result.files.map((f: { path: string; status: string }) => [f.path, f.status]),
    [
      [".memo/config.json", "unchanged"],
      [".memo/.gitignore", "unchanged"],
      [".mcp.json", "unchanged"],
      [".cursor/mcp.json", "unchanged"],
      [".vscode/mcp.json", "unchanged"],
      [p.desktop, "unchanged"],
    ],
  );
  const human = await p.memo(["init", ...ALL]);
  assert.deepEqual(await snapshot(p.base), before);
  assert.match(human.out, /^(unchanged \S+\n){6}MCP clients/);

  // The line written into .mcp.json starts memo for the SDK client, in the project folder.
  const entry = (await read(join(p.root, ".mcp.json"))).mcpServers.memo;
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd: p.root,
    stderr: "pipe",
    env: { ...Deno.env.toObject(), NO_COLOR: "1" },
  });
  const client = new Client({ name: "memo-init-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "memo");
    const remembered = await client.callTool({
      name: "remember",
      arguments: { text: "The staging database is db-stage-2", labels: ["infra"] },
    });
    assert.ok(!remembered.isError, JSON.stringify(remembered));
    const id = (remembered.structuredContent as { note: { id: string } }).note.id;
    const recalled = await client.callTool({
      name: "recall",
      arguments: { query: "staging database" },
    });
    const hits = (recalled.structuredContent as { hits: { note: { id: string } }[] }).hits;
    assert.equal(hits[0].note.id, id);
  } finally {
    await client.close();
  }
  // The note went into this project's notes.md.
  assert.match(
    await readFile(join(p.root, ".memo", "memory", "notes.md"), "utf8"),
    /The staging database is db-stage-2/,
  );
});

Deno.test("memo init (process) leaves a file that is not JSON alone, names it, writes the others, exits 1", async () => {
  await using p = await tempProject({ denoOnPath: true });
  const bad = `{\n  // my servers\n  "mcpServers": { "memo": { "env": { "K": "${TOKEN}" } } }\n}\n`;
  await put(join(p.root, ".cursor", "mcp.json"), bad);
  const r = await p.memo([
    "init",
    "--client",
    "claude-code",
    "--client",
    "cursor",
    "--client",
    "vscode",
  ]);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /^memo: Cannot update \.cursor\/mcp\.json: not valid JSON[^\n]*; left as is\n$/,
  );
  assert.doesNotMatch(r.out + r.err, new RegExp(TOKEN));
  assert.equal(await readFile(join(p.root, ".cursor", "mcp.json"), "utf8"), bad);
  assert.deepEqual(await readdir(join(p.root, ".cursor")), ["mcp.json"]);
  // PATH finds the running Deno: the plain command, which stays valid across upgrades.
  assert.equal((await read(join(p.root, ".mcp.json"))).mcpServers.memo.command, "deno");
  assert.equal((await read(join(p.root, ".vscode", "mcp.json"))).servers.memo.type, "stdio");
  assert.match(
    r.out,
    /^created \.memo\/config\.json\ncreated \.memo\/\.gitignore\ncreated \.mcp\.json\ncreated \.vscode\/mcp\.json\n/,
  );
});
