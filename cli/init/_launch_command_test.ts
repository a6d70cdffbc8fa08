import assert from "node:assert/strict";
import { delimiter, join } from "node:path";
import { launchCommand, runningCommand, splitCommandLine } from "./_launch_command.ts";

Deno.test("launchCommand: an npm install runs npx", () => {
  for (
    const url of [
      "file:///srv/app/node_modules/@memo/mcp-server/cli/init.js",
      "file:///srv/app/node_modules/.deno/@memo+mcp-server@0.2.0/node_modules/@memo/mcp-server/cli/init.js",
      "file:///root/.cache/deno/npm/registry.npmjs.org/@memo/mcp-server/0.2.0/cli/init.js",
    ]
  ) {
    assert.deepEqual(launchCommand(url), ["npx", "-y", "@memo/mcp-server", "mcp"], url);
    assert.deepEqual(launchCommand(url, "/srv/app/sub"), ["npx", "-y", "@memo/mcp-server", "mcp"]);
  }
  // What npx fetched itself (`npx -y @memo/mcp-server init`): npx again.
  assert.deepEqual(
    launchCommand(
      "file:///home/ada/.npm/_npx/3f2a/node_modules/@memo/mcp-server/cli/init.js",
      "/home/ada/project",
    ),
    ["npx", "-y", "@memo/mcp-server", "mcp"],
  );
});

Deno.test("launchCommand: a global npm install runs its own cli.js (npx would ask the registry)", () => {
  assert.deepEqual(
    launchCommand("file:///usr/local/lib/node_modules/@memo/mcp-server/cli/init.js", "/home/ada/p"),
    ["node", "/usr/local/lib/node_modules/@memo/mcp-server/cli.js", "mcp"],
  );
  // Another project's install is not this project's either.
  assert.deepEqual(
    launchCommand("file:///srv/other/node_modules/@memo/mcp-server/cli/init.js", "/srv/app"),
    ["node", "/srv/other/node_modules/@memo/mcp-server/cli.js", "mcp"],
  );
});

Deno.test("launchCommand: JSR runs deno with the jsr: specifier, unpinned", () => {
  assert.deepEqual(
    launchCommand("https://jsr.io/@memo/mcp-server/0.2.0/cli/init.ts"),
    ["deno", "run", "-A", "jsr:@memo/mcp-server", "mcp"],
  );
});

Deno.test("launchCommand: a clone runs its cli.ts (one folder up) with plain deno", () => {
  assert.deepEqual(
    launchCommand("file:///home/ada/src/my%20memo/cli/init.ts"),
    ["deno", "run", "-A", "/home/ada/src/my memo/cli.ts", "mcp"],
  );
  // A module of this very CLI: the repository's own cli.ts.
  const cli = new URL("../../cli.ts", import.meta.url).pathname;
  assert.deepEqual(launchCommand(new URL("../main.ts", import.meta.url).href), [
    "deno",
    "run",
    "-A",
    cli,
    "mcp",
  ]);
});

Deno.test("launchCommand: a built clone runs node, another URL runs deno with that URL", () => {
  assert.deepEqual(launchCommand("file:///home/ada/memo/npm/mcp-server/cli/init.js"), [
    "node",
    "/home/ada/memo/npm/mcp-server/cli.js",
    "mcp",
  ]);
  assert.deepEqual(launchCommand("https://example.com/memo/v1/cli/init.ts"), [
    "deno",
    "run",
    "-A",
    "https://example.com/memo/v1/cli.ts",
    "mcp",
  ]);
  // Another JSR package is not ours.
  assert.equal(
    launchCommand("https://jsr.io/@other/pkg/1.0.0/cli/init.ts")[3],
    "https://jsr.io/@other/pkg/1.0.0/cli.ts",
  );
});

Deno.test("launchCommand: options name the commands that start Deno and Node", () => {
  const options = { deno: "/opt/deno/bin/deno", node: "/opt/node/bin/node" };
  assert.deepEqual(launchCommand("file:///home/ada/memo/cli/init.ts", undefined, options), [
    "/opt/deno/bin/deno",
    "run",
    "-A",
    "/home/ada/memo/cli.ts",
    "mcp",
  ]);
  assert.deepEqual(
    launchCommand("https://jsr.io/@memo/mcp-server/0.2.0/cli/init.ts", undefined, options)[0],
    "/opt/deno/bin/deno",
  );
  assert.deepEqual(
    launchCommand("file:///home/ada/memo/npm/mcp-server/cli/init.js", undefined, options),
    ["/opt/node/bin/node", "/home/ada/memo/npm/mcp-server/cli.js", "mcp"],
  );
  // npx stays npx.
  assert.deepEqual(
    launchCommand("file:///app/node_modules/@memo/mcp-server/cli/init.js", "/app", options),
    ["npx", "-y", "@memo/mcp-server", "mcp"],
  );
});

Deno.test("runningCommand: plain deno when PATH finds the running Deno, else its full path", async (t) => {
  const self = Deno.execPath();
  const base = await Deno.makeTempDir({ prefix: "memo-launch-" });
  try {
    const linked = join(base, "linked"); // deno: a link to the running Deno
    const other = join(base, "other"); // deno: another program
    const empty = join(base, "empty");
    for (const dir of [linked, other, empty]) await Deno.mkdir(dir);
    await Deno.symlink(self, join(linked, "deno"));
    await Deno.writeTextFile(join(other, "deno"), "#!/bin/sh\n");
    await Deno.chmod(join(other, "deno"), 0o755);
    const path = (...dirs: string[]) => dirs.join(delimiter);

    await t.step("the first deno on PATH is the running one", async () => {
      assert.equal(await runningCommand("deno", self, path(empty, linked)), "deno");
    });
    await t.step("the first deno on PATH is another one", async () => {
      assert.equal(await runningCommand("deno", self, path(other, linked)), self);
    });
    await t.step("no deno on PATH, or no PATH", async () => {
      assert.equal(await runningCommand("deno", self, path(empty, join(base, "missing"))), self);
      assert.equal(await runningCommand("deno", self, ""), self);
      assert.equal(await runningCommand("deno", self, undefined), self);
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("splitCommandLine: whitespace, quotes and escapes", () => {
  assert.deepEqual(splitCommandLine("  deno   run\t-A /opt/memo/cli.ts mcp \n"), [
    "deno",
    "run",
    "-A",
    "/opt/memo/cli.ts",
    "mcp",
  ]);
  assert.deepEqual(
    splitCommandLine(`deno run -A "/opt/my memo/cli.ts" mcp`)[3],
    "/opt/my memo/cli.ts",
  );
  assert.deepEqual(splitCommandLine(`node '/a b/"c"/cli.js'`), ["node", `/a b/"c"/cli.js`]);
  assert.deepEqual(splitCommandLine(`x "say \\"hi\\" \\\\ \\n"`), ["x", `say "hi" \\ \\n`]);
  assert.deepEqual(splitCommandLine(`x a"b c"d ''`), ["x", "ab cd", ""]);
  assert.deepEqual(splitCommandLine(`C:\\memo\\memo.exe mcp`), ["C:\\memo\\memo.exe", "mcp"]);
});

Deno.test("splitCommandLine: empty lines and unclosed quotes are usage errors", () => {
  assert.throws(() => splitCommandLine(""), {
    name: "UsageError",
    message: /needs a command line/,
  });
  assert.throws(() => splitCommandLine(" \t "), { name: "UsageError" });
  assert.throws(() => splitCommandLine(`deno 'run`), {
    name: "UsageError",
    message: /unclosed quote \(\'\)/,
  });
  assert.throws(() => splitCommandLine(`deno "run \\"`), {
    name: "UsageError",
    message: /unclosed quote/,
  });
});
