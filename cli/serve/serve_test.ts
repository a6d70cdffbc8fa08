import assert from "node:assert/strict";
import { UsageError } from "../args.ts";
import { serve } from "../../platform/mod.ts";
import { recordingIO } from "../../testing/cli_io.ts";
import { serveCommand } from "./serve.ts";
import { serveConfig } from "./serve_config.ts";
import { sanitizedTest as test } from "../../testing/sanitized.ts";
import { MEMO_MCP_INSTRUCTIONS } from "../../server/mod.ts";

test("serveConfig() binds 127.0.0.1:8787 on the project by default", async () => {
  const dir = await Deno.makeTempDir();
  const c = await serveConfig([], { env: {}, cwd: dir });
  assert.equal(c.hostname, "127.0.0.1");
  assert.equal(c.port, 8787);
  assert.equal(c.rootDir, dir);
  assert.deepEqual(c.options, {});
  assert.equal(c.warning, undefined);
  assert.equal(c.ui, undefined, "the web page: MEMO_UI decides, on by default");
  assert.equal(c.uiPath, undefined);
});

test("serveConfig() reads --ui-path and --no-ui", async () => {
  const moved = await serveConfig(["--ui-path", "/ui"], { env: {}, cwd: "/" });
  assert.equal(moved.uiPath, "/ui");
  assert.equal(moved.ui, undefined);
  const off = await serveConfig(["--no-ui"], { env: {}, cwd: "/" });
  assert.equal(off.ui, false);
  for (const argv of [["--ui-path", "ui"], ["--ui-path", "/ui", "--no-ui"], ["--ui-path"]]) {
    await assert.rejects(serveConfig(argv, { env: {}, cwd: "/" }), UsageError, argv.join(" "));
  }
});

test("serveConfig() turns flags into endpoint options", async () => {
  const c = await serveConfig(
    [
      "--port=0",
      "--dir",
      "/tmp",
      "--read-only",
      "--allowed-origins",
      "https://a.example,https://b.example",
      "--max-input-bytes",
      "1000",
      "--request-timeout-ms",
      "500",
    ],
    { env: { MEMO_MCP_BEARER_TOKEN: "t" }, cwd: "/" },
  );
  assert.equal(c.port, 0);
  assert.equal(c.rootDir, "/tmp");
  assert.deepEqual(c.options, {
    readOnly: true,
    allowedOrigins: ["https://a.example", "https://b.example"],
    maxInputBytes: 1000,
    requestTimeoutMs: 500,
  });
});

test("serveConfig() takes MEMO_ROOT_DIR when --dir is missing", async () => {
  const dir = await Deno.makeTempDir();
  const c = await serveConfig([], { env: { MEMO_ROOT_DIR: dir }, cwd: "/" });
  assert.equal(c.rootDir, dir);
  await Deno.remove(dir);
});

test("serveConfig() refuses a non-loopback host without a token unless --no-auth", async () => {
  await assert.rejects(
    serveConfig(["--host", "0.0.0.0"], { env: {}, cwd: "/" }),
    (e) =>
      e instanceof UsageError && /without authentication/.test(e.message) &&
      /--no-auth/.test(e.message),
  );
  const withToken = await serveConfig(["--host", "0.0.0.0"], {
    env: { MEMO_MCP_BEARER_TOKEN: "t" },
    cwd: "/",
  });
  assert.equal(withToken.warning, undefined);
  const noAuth = await serveConfig(["--host", "0.0.0.0", "--no-auth"], { env: {}, cwd: "/" });
  assert.deepEqual(noAuth.options.auth, { requireAuth: false });
  assert.match(noAuth.warning!, /loopback/);
  for (const host of ["localhost", "127.0.0.1", "::1"]) {
    const c = await serveConfig(["--host", host], { env: {}, cwd: "/" });
    assert.equal(c.hostname, host);
  }
});

test("serveConfig() refuses bad flags as usage errors", async () => {
  for (
    const argv of [["--port", "70000"], ["--port", "x"], ["--bogus"], ["extra"], [
      "--max-page-size",
      "0",
    ]]
  ) {
    await assert.rejects(serveConfig(argv, { env: {}, cwd: "/" }), UsageError, argv.join(" "));
  }
});

test("memo serve prints the web page's address, and --json gives it as ui (null when off)", async () => {
  const dir = await Deno.makeTempDir();
  const run = async (argv: string[]) => {
    let stop = () => {};
    const io = {
      ...recordingIO(dir),
      serve,
      onShutdownSignal: (callback: () => void) => {
        stop = callback;
        return () => {};
      },
    };
    const exit = serveCommand.run(["--port", "0", "--json", ...argv], io);
    const deadline = Date.now() + 10_000;
    while (io.out.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    stop();
    assert.equal(await exit, 0);
    return { json: JSON.parse(io.out.join("")), err: io.err.join("") };
  };
  try {
    const on = await run(["--ui-path", "/ui"]);
    const port = new URL(on.json.url).port;
    assert.equal(on.json.ui, `http://127.0.0.1:${port}/ui`);
    assert.match(
      on.err,
      new RegExp(`listening on ${on.json.url}\\nmemo: web page at ${on.json.ui}\\n`),
    );
    const off = await run(["--no-ui"]);
    assert.equal(off.json.ui, null);
    assert.ok(!off.err.includes("web page"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("serveConfig() reads MEMO_LOG_LEVEL: info off a terminal, warn on one, a bad value is a usage error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal((await serveConfig([], { env: {}, cwd: dir })).logLevel, "info");
    const tty = await serveConfig([], { env: {}, cwd: dir, stderrIsTerminal: true });
    assert.equal(tty.logLevel, "warn");
    const debug = await serveConfig([], {
      env: { MEMO_LOG_LEVEL: "debug" },
      cwd: dir,
      stderrIsTerminal: true,
    });
    assert.equal(debug.logLevel, "debug");
    await assert.rejects(
      serveConfig([], { env: { MEMO_LOG_LEVEL: "loud" }, cwd: dir }),
      UsageError,
      "Cannot read MEMO_LOG_LEVEL: expected error, warn, info or debug, got loud",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("memo serve logs one line per request; MEMO_LOG_LEVEL=error hides 2xx and 4xx lines", async () => {
  const dir = await Deno.makeTempDir();
  const token = "tok-log-level-test-91c3";
  const run = async (level: string | undefined) => {
    let stop = () => {};
    const base = recordingIO(dir);
    const io = {
      ...base,
      env: { MEMO_MCP_BEARER_TOKEN: token, ...(level ? { MEMO_LOG_LEVEL: level } : {}) },
      serve,
      onShutdownSignal: (callback: () => void) => {
        stop = callback;
        return () => {};
      },
    };
    const exit = serveCommand.run(["--port", "0", "--json"], io);
    const deadline = Date.now() + 10_000;
    while (io.out.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const url = JSON.parse(io.out.join("")).url as string;
    const ok = await fetch(`${url}?session=abc`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      }),
    });
    assert.equal(ok.status, 200);
    // memo's instructions for the model, as `memo mcp` sends them.
    assert.equal((await ok.json()).result.instructions, MEMO_MCP_INSTRUCTIONS);
    const refused = await fetch(url, { method: "POST", headers: { authorization: "Bearer no" } });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    stop();
    assert.equal(await exit, 0);
    return io.err.join("");
  };
  try {
    const info = await run(undefined);
    assert.match(info, /\nmemo: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z POST \/mcp 200 \d+ms\n/);
    assert.match(info, /\nmemo: \S+ POST \/mcp 401 \d+ms\n/);
    assert.ok(!info.includes(token) && !info.includes("session=abc"), info);
    const quiet = await run("error");
    assert.doesNotMatch(quiet, / POST \/mcp \d{3} /);
    assert.match(quiet, /memo: stopped\n/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serveConfig() turns the --oauth-* flags into auth.oauth, reads the oauth block, and lets OAuth open a non-loopback host", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const c = await serveConfig([
      "--oauth-issuer",
      "https://id.example.com",
      "--oauth-resource",
      "https://memo.example.com/mcp",
      "--oauth-scopes",
      "notes.read,notes.write",
      "--oauth-jwks-uri",
      "https://id.example.com/jwks",
      "--oauth-introspection-url",
      "https://id.example.com/introspect",
      "--oauth-introspection-client-id",
      "memo",
      "--oauth-page-client-id",
      "memo-page",
      "--host",
      "0.0.0.0",
    ], { env: {}, cwd: dir });
    assert.deepEqual(c.options.auth?.oauth, {
      issuer: "https://id.example.com",
      resource: "https://memo.example.com/mcp",
      jwksUri: "https://id.example.com/jwks",
      pageClientId: "memo-page",
      scopes: { read: "notes.read", write: "notes.write" },
      introspection: { url: "https://id.example.com/introspect", clientId: "memo" },
    });
    assert.equal(c.warning, undefined, "OAuth is authentication: no warning");
    await assert.rejects(
      serveConfig(["--oauth-scopes", "one"], { env: {}, cwd: dir }),
      /--oauth-scopes needs the read scope and the write scope/,
    );
    await assert.rejects(
      serveConfig(["--no-auth"], {
        env: { MEMO_OAUTH_ISSUER: "https://id.example.com" },
        cwd: dir,
      }),
      /--no-auth cannot be used with OAuth/,
    );
    await Deno.mkdir(`${dir}/.memo`);
    await Deno.writeTextFile(
      `${dir}/.memo/config.json`,
      JSON.stringify({
        oauth: { issuer: "https://id.example.com", resource: "https://m.example.com/mcp" },
      }),
    );
    const fromFile = await serveConfig(["--host", "0.0.0.0"], { env: {}, cwd: dir });
    assert.deepEqual(fromFile.projectOAuth, {
      issuer: "https://id.example.com",
      resource: "https://m.example.com/mcp",
    });
    await Deno.writeTextFile(
      `${dir}/.memo/config.json`,
      JSON.stringify({ oauth: { introspection: { clientSecret: "hunter2" } } }),
    );
    await assert.rejects(
      serveConfig([], { env: {}, cwd: dir }),
      (e: Error) =>
        /comes only from MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET/.test(e.message) &&
        !e.message.includes("hunter2"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
