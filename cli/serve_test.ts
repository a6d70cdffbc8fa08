import assert from "node:assert/strict";
import { UsageError } from "./args.ts";
import { serve } from "../_platform.ts";
import { recordingIO } from "../testing/cli_io.ts";
import { serveCommand, serveConfig } from "./serve.ts";

Deno.test("serveConfig() binds 127.0.0.1:8787 on the project by default", async () => {
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

Deno.test("serveConfig() reads --ui-path and --no-ui", async () => {
  const moved = await serveConfig(["--ui-path", "/ui"], { env: {}, cwd: "/" });
  assert.equal(moved.uiPath, "/ui");
  assert.equal(moved.ui, undefined);
  const off = await serveConfig(["--no-ui"], { env: {}, cwd: "/" });
  assert.equal(off.ui, false);
  for (const argv of [["--ui-path", "ui"], ["--ui-path", "/ui", "--no-ui"], ["--ui-path"]]) {
    await assert.rejects(serveConfig(argv, { env: {}, cwd: "/" }), UsageError, argv.join(" "));
  }
});

Deno.test("serveConfig() turns flags into endpoint options", async () => {
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

Deno.test("serveConfig() takes MEMO_ROOT_DIR when --dir is missing", async () => {
  const dir = await Deno.makeTempDir();
  const c = await serveConfig([], { env: { MEMO_ROOT_DIR: dir }, cwd: "/" });
  assert.equal(c.rootDir, dir);
  await Deno.remove(dir);
});

Deno.test("serveConfig() refuses a non-loopback host without a token unless --no-auth", async () => {
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

Deno.test("serveConfig() refuses bad flags as usage errors", async () => {
  for (
    const argv of [["--port", "70000"], ["--port", "x"], ["--bogus"], ["extra"], [
      "--max-page-size",
      "0",
    ]]
  ) {
    await assert.rejects(serveConfig(argv, { env: {}, cwd: "/" }), UsageError, argv.join(" "));
  }
});

Deno.test("memo serve prints the web page's address, and --json gives it as ui (null when off)", async () => {
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
