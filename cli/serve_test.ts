import assert from "node:assert/strict";
import { UsageError } from "./args.ts";
import { serveConfig } from "./serve.ts";

Deno.test("serveConfig() binds 127.0.0.1:8787 on the project by default", async () => {
  const dir = await Deno.makeTempDir();
  const c = await serveConfig([], { env: {}, cwd: dir });
  assert.equal(c.hostname, "127.0.0.1");
  assert.equal(c.port, 8787);
  assert.equal(c.rootDir, dir);
  assert.deepEqual(c.options, {});
  assert.equal(c.warning, undefined);
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
