import assert from "node:assert/strict";
import {
  ClientConfigError,
  clientConfigPath,
  type ClientPlace,
  MCP_CLIENTS,
  memoServerEntry,
  mergeClientConfig,
  parseClients,
} from "./_client_config.ts";

const COMMAND = ["deno", "run", "-A", "/opt/memo/cli.ts", "mcp"];

Deno.test("parseClients: the four names, repeats dropped, others a usage error", () => {
  assert.deepEqual(parseClients([...MCP_CLIENTS, "cursor"]), [...MCP_CLIENTS]);
  assert.deepEqual(parseClients([]), []);
  for (const bad of ["Cursor", "", "claude", "vs-code"]) {
    assert.throws(() => parseClients(["cursor", bad]), {
      name: "UsageError",
      message: /^unknown client .*\(use claude-code, cursor, vscode or claude-desktop\)$/,
    });
  }
});

Deno.test("clientConfigPath: project files and Claude Desktop on each platform", () => {
  const linux: ClientPlace = { root: "/p", platform: "linux", env: {}, home: "/h" };
  assert.equal(clientConfigPath("claude-code", linux), "/p/.mcp.json");
  assert.equal(clientConfigPath("cursor", linux), "/p/.cursor/mcp.json");
  assert.equal(clientConfigPath("vscode", linux), "/p/.vscode/mcp.json");
  assert.equal(
    clientConfigPath("claude-desktop", linux),
    "/h/.config/Claude/claude_desktop_config.json",
  );
  assert.equal(
    clientConfigPath("claude-desktop", { ...linux, env: { HOME: "/home/ada" } }),
    "/home/ada/.config/Claude/claude_desktop_config.json",
  );
  assert.equal(
    clientConfigPath("claude-desktop", {
      ...linux,
      env: { HOME: "/home/ada", XDG_CONFIG_HOME: "/xdg" },
    }),
    "/xdg/Claude/claude_desktop_config.json",
  );
  // A relative or empty XDG_CONFIG_HOME is ignored, as the XDG spec says.
  assert.equal(
    clientConfigPath("claude-desktop", { ...linux, env: { XDG_CONFIG_HOME: "rel" } }),
    "/h/.config/Claude/claude_desktop_config.json",
  );
  assert.equal(
    clientConfigPath("claude-desktop", {
      ...linux,
      platform: "darwin",
      env: { HOME: "/Users/ada", XDG_CONFIG_HOME: "/xdg" },
    }),
    "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
  );
  const win: ClientPlace = { root: "C:\\p", platform: "win32", env: {}, home: "C:\\Users\\ada" };
  assert.equal(clientConfigPath("cursor", win), "C:\\p\\.cursor\\mcp.json");
  assert.equal(
    clientConfigPath("claude-desktop", win),
    "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  );
  assert.equal(
    clientConfigPath("claude-desktop", { ...win, env: { APPDATA: "D:\\Roaming" } }),
    "D:\\Roaming\\Claude\\claude_desktop_config.json",
  );
});

Deno.test("memoServerEntry: --dir per client, never twice", () => {
  assert.deepEqual(memoServerEntry("claude-code", COMMAND, "/p"), {
    command: "deno",
    args: ["run", "-A", "/opt/memo/cli.ts", "mcp"],
  });
  assert.deepEqual(memoServerEntry("cursor", COMMAND, "/p").args.slice(-2), [
    "--dir",
    "${workspaceFolder}",
  ]);
  assert.deepEqual(memoServerEntry("vscode", COMMAND, "/p"), {
    type: "stdio",
    command: "deno",
    args: ["run", "-A", "/opt/memo/cli.ts", "mcp", "--dir", "${workspaceFolder}"],
  });
  assert.deepEqual(memoServerEntry("claude-desktop", COMMAND, "/p").args.slice(-2), [
    "--dir",
    "/p",
  ]);
  assert.deepEqual(memoServerEntry("cursor", ["memo", "mcp", "--dir=/x"], "/p").args, [
    "mcp",
    "--dir=/x",
  ]);
  assert.deepEqual(COMMAND.length, 5, "the command given is not changed");
});

Deno.test("mergeClientConfig: a missing file is created", () => {
  const entry = memoServerEntry("vscode", COMMAND, "/p");
  const merged = mergeClientConfig("vscode", undefined, entry);
  assert.equal(merged.status, "created");
  assert.equal(
    merged.text,
    JSON.stringify({ servers: { memo: entry } }, null, 2) + "\n",
  );
  assert.match(merged.text, /^\{\n {2}"servers": \{\n {4}"memo": \{\n {6}"type": "stdio",/);
  const cc = mergeClientConfig(
    "claude-code",
    undefined,
    memoServerEntry("claude-code", COMMAND, "/p"),
  );
  assert.deepEqual(Object.keys(JSON.parse(cc.text)), ["mcpServers"]);
});

Deno.test("mergeClientConfig: other keys and servers kept, memo's command replaced, env kept", () => {
  const old = JSON.stringify(
    {
      inputs: [{ id: "token", type: "promptString" }],
      servers: {
        github: { type: "http", url: "https://api.example/mcp" },
        memo: {
          command: "old-memo",
          args: ["x"],
          env: { MEMO_CLOUD_API_KEY: "secret-1" },
          cwd: "/w",
        },
        zzz: { command: "z" },
      },
    },
    null,
    4,
  );
  const entry = memoServerEntry("vscode", COMMAND, "/p");
  const merged = mergeClientConfig("vscode", old, entry);
  assert.equal(merged.status, "updated");
  const doc = JSON.parse(merged.text);
  assert.deepEqual(Object.keys(doc), ["inputs", "servers"]);
  assert.deepEqual(Object.keys(doc.servers), ["github", "memo", "zzz"]);
  assert.deepEqual(doc.servers.github, { type: "http", url: "https://api.example/mcp" });
  assert.deepEqual(doc.servers.memo, {
    command: "deno",
    args: entry.args,
    env: { MEMO_CLOUD_API_KEY: "secret-1" },
    cwd: "/w",
    type: "stdio",
  });
  // Same again: unchanged, the bytes kept.
  const again = mergeClientConfig("vscode", merged.text, entry);
  assert.deepEqual(again, { status: "unchanged", text: merged.text });
});

Deno.test("mergeClientConfig: an HTTP memo entry becomes a stdio one without its url and headers", () => {
  const old = JSON.stringify({
    mcpServers: {
      memo: {
        type: "http",
        url: "http://127.0.0.1:8787/mcp",
        headers: { Authorization: "Bearer t0ken" },
        env: { MEMO_GITHUB_TOKEN: "kept" },
      },
    },
  });
  const merged = mergeClientConfig(
    "claude-code",
    old,
    memoServerEntry("claude-code", COMMAND, "/p"),
  );
  assert.deepEqual(JSON.parse(merged.text).mcpServers.memo, {
    type: "stdio",
    env: { MEMO_GITHUB_TOKEN: "kept" },
    command: "deno",
    args: ["run", "-A", "/opt/memo/cli.ts", "mcp"],
  });
  assert.doesNotMatch(merged.text, /t0ken/);
});

Deno.test("mergeClientConfig: an entry that is already right keeps the file's own formatting", () => {
  const entry = memoServerEntry("cursor", COMMAND, "/p");
  const text = JSON.stringify({ mcpServers: { memo: { ...entry, env: { A: "1" } } } }, null, "\t");
  assert.deepEqual(mergeClientConfig("cursor", text, entry), { status: "unchanged", text });
  // A memo entry with a type keeps a type, set to stdio (the HTTP address goes).
  const typed = JSON.stringify({ mcpServers: { memo: { type: "http", url: "http://x" } } });
  const merged = JSON.parse(
    mergeClientConfig("claude-code", typed, { command: "m", args: [] }).text,
  );
  assert.deepEqual(merged.mcpServers.memo, { type: "stdio", command: "m", args: [] });
  // An empty file counts as {} (and is updated, not created).
  assert.equal(mergeClientConfig("cursor", " \n", entry).status, "updated");
  // A byte-order mark is tolerated.
  assert.equal(mergeClientConfig("cursor", "\uFEFF{}", entry).status, "updated");
});

Deno.test("mergeClientConfig: a file it cannot merge is an error that quotes nothing", () => {
  const entry = { command: "memo", args: ["mcp"] };
  const cases: [string, RegExp][] = [
    ['{\n  "mcpServers": { "memo": { "env": { "T": "secret-2" } }\n', /^not valid JSON/],
    ['{"mcpServers": {"memo": secret-3}}', /^not valid JSON$/],
    ['{\n  "mcpServers": {},\n}', /^not valid JSON \(line 3, column 1\)$/],
    ["// comment\n{}", /^not valid JSON/],
    ["[]", /^not a JSON object$/],
    ['"secret-4"', /^not a JSON object$/],
    ["null", /^not a JSON object$/],
    ['{"mcpServers": []}', /^"mcpServers" is not an object$/],
    ['{"mcpServers": "secret-5"}', /^"mcpServers" is not an object$/],
  ];
  for (const [text, message] of cases) {
    const error = (() => {
      try {
        mergeClientConfig("cursor", text, entry);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof ClientConfigError, text);
    assert.match(error.message, message, text);
    assert.doesNotMatch(error.message, /secret/);
  }
  assert.throws(() => mergeClientConfig("vscode", '{"servers": 1}', entry), /"servers" is not/);
  // VS Code's key is servers: an odd mcpServers there is not its business.
  assert.equal(mergeClientConfig("vscode", '{"mcpServers": 1}', entry).status, "updated");
});

Deno.test("mergeClientConfig: a __proto__ key stays a plain key", () => {
  const text = '{"__proto__": {"x": 1}, "mcpServers": {"__proto__": {"command": "p"}}}';
  const merged = mergeClientConfig("cursor", text, { command: "memo", args: [] });
  const doc = JSON.parse(merged.text);
  assert.deepEqual(Object.keys(doc), ["__proto__", "mcpServers"]);
  assert.deepEqual(Object.keys(doc.mcpServers), ["__proto__", "memo"]);
});
