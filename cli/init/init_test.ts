import assert from "node:assert/strict";
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { recordingIO } from "../../testing/cli_io.ts";
import { initCommand, type InitResult } from "./init.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";

async function project() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "memo-init-" }));
  const xdg = join(root, "xdg");
  const io = recordingIO(root);
  io.env = { HOME: join(root, "home"), XDG_CONFIG_HOME: xdg };
  return {
    root,
    xdg,
    io,
    run: async (...argv: string[]) => {
      io.out.length = 0;
      io.err.length = 0;
      const code = await initCommand.run([...argv, "--json"], io);
      return { code, result: JSON.parse(io.out.join("")) as InitResult, err: io.err.join("") };
    },
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

test("memo init: usage errors exit 2 before anything is written", async () => {
  await using p = await project();
  for (
    const argv of [
      ["--client", "zed"],
      ["--client", "cursor", "--client", "Cursor"],
      ["--command", ""],
      ["--command", `deno "run`],
      ["extra"],
      ["--nope"],
    ]
  ) {
    await assert.rejects(initCommand.run(argv, p.io), { name: "UsageError" }, argv.join(" "));
  }
  await assert.rejects(initCommand.run(["--client", "zed"], p.io), {
    message: "unknown client zed (use claude-code, cursor, vscode or claude-desktop)",
  });
  assert.deepEqual(await readdir(p.root), []);
});

test("memo init: config.json and .gitignore are created once; an existing .gitignore is completed", async () => {
  await using p = await project();
  await mkdir(join(p.root, ".memo"));
  await writeFile(join(p.root, ".memo", ".gitignore"), "# mine\ncache/\nnotes-draft.md");
  const first = await p.run();
  assert.equal(first.code, 0);
  assert.deepEqual(first.result, {
    root: p.root,
    // No PATH in this environment: the configuration names the running Deno by its path.
    command: [
      Deno.execPath(),
      "run",
      "-A",
      new URL("../../cli.ts", import.meta.url).pathname,
      "mcp",
    ],
    files: [
      { path: ".memo/config.json", status: "created" },
      { path: ".memo/.gitignore", status: "updated" },
    ],
  });
  assert.equal(
    await readFile(join(p.root, ".memo", "config.json"), "utf8"),
    '{\n  "connectors": []\n}\n',
  );
  assert.equal(
    await readFile(join(p.root, ".memo", ".gitignore"), "utf8"),
    "# mine\ncache/\nnotes-draft.md\nreplica/\nconnectors/state.json\nmemory/notes.md.lock\n" +
      "memory/notes.local.md\nmemory/notes.local.md.lock\nlogs/\n",
  );
  const second = await p.run();
  assert.deepEqual(second.result.files.map((f) => f.status), ["unchanged", "unchanged"]);
  // The project's own .gitignore is never touched (nor created).
  await assert.rejects(stat(join(p.root, ".gitignore")), { code: "ENOENT" });
});

test("memo init: an existing config.json is kept; one that is not JSON stops everything", async () => {
  await using p = await project();
  await mkdir(join(p.root, ".memo"));
  const config = '{"runtime": "local"}';
  await writeFile(join(p.root, ".memo", "config.json"), config);
  assert.equal((await p.run()).code, 0);
  assert.equal(await readFile(join(p.root, ".memo", "config.json"), "utf8"), config);

  await using q = await project();
  await mkdir(join(q.root, ".memo"));
  await writeFile(join(q.root, ".memo", "config.json"), "{runtime: local}");
  const code = await initCommand.run(["--client", "cursor"], q.io);
  assert.equal(code, 1);
  assert.deepEqual(q.io.out, []);
  assert.deepEqual(q.io.err, [
    "memo: Cannot set up .memo/config.json: it is not valid JSON; fix it, then run memo init " +
    "again (nothing was changed)\n",
  ]);
  assert.deepEqual(await readdir(join(q.root, ".memo")), ["config.json"]);
  assert.deepEqual((await readdir(q.root)).sort(), [".memo"]);
});

test("memo init --client: every client file, --command with --dir per client, idempotent", async () => {
  await using p = await project();
  const clients = ["claude-code", "cursor", "vscode", "claude-desktop"];
  const argv = [...clients.flatMap((c) => ["--client", c]), "--command", "memo-bin mcp --quiet"];
  const first = await p.run(...argv);
  assert.equal(first.code, 0, first.err);
  const desktop = join(p.xdg, "Claude", "claude_desktop_config.json");
  assert.deepEqual(first.result.files.slice(2), [
    { path: ".mcp.json", client: "claude-code", status: "created" },
    { path: ".cursor/mcp.json", client: "cursor", status: "created" },
    { path: ".vscode/mcp.json", client: "vscode", status: "created" },
    { path: desktop, client: "claude-desktop", status: "created" },
  ]);
  assert.deepEqual(first.result.command, ["memo-bin", "mcp", "--quiet"]);
  const read = async (path: string) => JSON.parse(await readFile(path, "utf8"));
  assert.deepEqual(await read(join(p.root, ".mcp.json")), {
    mcpServers: { memo: { command: "memo-bin", args: ["mcp", "--quiet"] } },
  });
  assert.deepEqual(await read(join(p.root, ".cursor", "mcp.json")), {
    mcpServers: {
      memo: { command: "memo-bin", args: ["mcp", "--quiet", "--dir", "${workspaceFolder}"] },
    },
  });
  assert.deepEqual(await read(join(p.root, ".vscode", "mcp.json")), {
    servers: {
      memo: {
        type: "stdio",
        command: "memo-bin",
        args: ["mcp", "--quiet", "--dir", "${workspaceFolder}"],
      },
    },
  });
  assert.deepEqual(await read(desktop), {
    mcpServers: { memo: { command: "memo-bin", args: ["mcp", "--quiet", "--dir", p.root] } },
  });
  const second = await p.run(...argv);
  assert.ok(second.result.files.every((f) => f.status === "unchanged"), JSON.stringify(second));
  assert.ok(second.result.files.every((f) => !f.backup));
  // A different command: updated, with a backup of the previous content.
  const before = await readFile(join(p.root, ".mcp.json"), "utf8");
  const third = await p.run("--client", "claude-code", "--command", "other mcp");
  assert.deepEqual(third.result.files[2], {
    path: ".mcp.json",
    client: "claude-code",
    status: "updated",
    backup: ".mcp.json.memo.bak",
  });
  assert.equal(await readFile(join(p.root, ".mcp.json.memo.bak"), "utf8"), before);
  // The backup may hold an env block's tokens: its owner only may read it.
  assert.equal((await stat(join(p.root, ".mcp.json.memo.bak"))).mode & 0o777, 0o600);
});

test("memo init --client: the human report, and --dir", async () => {
  await using p = await project();
  const io = recordingIO("/");
  io.env = p.io.env;
  const code = await initCommand.run(
    ["--dir", p.root, "--client", "claude-code", "--command", "npx -y @memo/mcp-server mcp"],
    io,
  );
  assert.equal(code, 0);
  const out = io.out.join("");
  assert.match(
    out,
    /^created \.memo\/config\.json\ncreated \.memo\/\.gitignore\ncreated \.mcp\.json\nMCP clients start memo with: npx -y @memo\/mcp-server mcp\n/,
  );
  for (const key of ["runtime", "cloud.*", "recall.*", "connectors"]) {
    assert.match(out, new RegExp(`\\n  ${key.replace(".", "\\.").replace("*", "\\*")} +\\S`));
  }
  assert.match(out, /docs\/configuration\.md lists every key/);
  assert.match(out, /\n {2}npx -y @memo\/mcp-server remember .*\n.*recall .*\n.*serve/);
  assert.deepEqual(io.err, []);
  await stat(join(p.root, ".mcp.json"));
  // A --command that does not end with mcp: the next steps say plain memo.
  io.out.length = 0;
  await initCommand.run(["--dir", p.root, "--command", "memo-server --stdio"], io);
  assert.match(io.out.join(""), /\n {2}memo remember /);
});

test("memo init --client: a file it cannot merge is left alone, the others still written, exit 1", async () => {
  await using p = await project();
  await mkdir(join(p.root, ".cursor"));
  const bad = '{"mcpServers": {"memo": {"env": {"TOKEN": "tok-secret"}}}';
  await writeFile(join(p.root, ".cursor", "mcp.json"), bad);
  const r = await p.run("--client", "cursor", "--client", "vscode", "--command", "memo mcp");
  assert.equal(r.code, 1);
  assert.deepEqual(r.result.files[2], {
    path: ".cursor/mcp.json",
    client: "cursor",
    status: "error",
    error: "Cannot update .cursor/mcp.json: not valid JSON (line 1, column 58); left as is",
  });
  assert.equal(r.result.files[3].status, "created");
  assert.equal(
    r.err,
    "memo: Cannot update .cursor/mcp.json: not valid JSON (line 1, column 58); left as is\n",
  );
  assert.equal(await readFile(join(p.root, ".cursor", "mcp.json"), "utf8"), bad);
  assert.deepEqual(await readdir(join(p.root, ".cursor")), ["mcp.json"]);
  assert.doesNotMatch(r.err + p.io.out.join(""), /tok-secret/);
});

test("memo init --client: the file's mode is kept, a symbolic link keeps pointing at its target", async () => {
  await using p = await project();
  const real = join(p.root, "dotfiles", "mcp.json");
  await mkdir(join(p.root, "dotfiles"));
  await writeFile(real, '{"mcpServers": {"memo": {"command": "x", "env": {"K": "v"}}}}');
  await chmod(real, 0o600);
  await symlink(real, join(p.root, ".mcp.json"));
  const r = await p.run("--client", "claude-code", "--command", "memo mcp");
  assert.equal(r.result.files[2].status, "updated");
  assert.ok((await lstat(join(p.root, ".mcp.json"))).isSymbolicLink());
  assert.equal((await stat(real)).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(await readFile(real, "utf8")).mcpServers.memo, {
    command: "memo",
    args: ["mcp"],
    env: { K: "v" },
  });
  assert.deepEqual((await readdir(join(p.root, "dotfiles"))).sort(), ["mcp.json"]);
});

test("memo init --hooks: a --command carrying memo mcp's flags writes hooks that run memo hook", async () => {
  await using p = await project();
  // docs/clients.md: "Add --read-only to refuse every write".
  const { code } = await p.run(
    "--client",
    "claude-code",
    "--command",
    "memo mcp --read-only",
    "--hooks",
  );
  assert.equal(code, 0);
  const doc = JSON.parse(await readFile(join(p.root, ".claude", "settings.local.json"), "utf8"));
  // `memo mcp --read-only hook …` would be a usage error (exit 2): Claude Code would block every
  // prompt.
  assert.equal(
    doc.hooks.UserPromptSubmit[0].hooks[0].command,
    "memo hook --client claude-code prompt",
  );
});

test("memo init --hooks in a git work tree keeps the .claude/settings.local.json it makes out of git, in this clone alone", async () => {
  await using p = await project();
  const git = (...args: string[]) =>
    new Deno.Command("git", { args, cwd: p.root, stdout: "null", stderr: "null" }).output();
  await git("init", "-q");
  assert.equal((await p.run("--client", "claude-code", "--hooks")).code, 0);
  assert.equal((await git("check-ignore", "-q", ".claude/settings.local.json")).code, 0);
  assert.equal((await git("check-ignore", "-q", ".claude/settings.local.json.memo.bak")).code, 0);
  // In the clone's own exclude file (no .gitignore to commit), and written once.
  assert.equal(await Deno.stat(join(p.root, ".gitignore")).then(() => true, () => false), false);
  assert.equal((await p.run("--client", "claude-code", "--no-hooks")).code, 0);
  assert.equal((await p.run("--client", "claude-code", "--hooks")).code, 0);
  const exclude = await readFile(join(p.root, ".git", "info", "exclude"), "utf8");
  assert.equal(exclude.split("/.claude/settings.local.json*").length, 2, exclude);
});
