import assert from "node:assert/strict";
import { MEMO_ENV_VARIABLES, readEnv } from "./env.ts";
import { MEMO_MCP_LIMITS } from "./server/limits.ts";

const readHttpEnv = (env: Record<string, string>) => readEnv(env, "http");

Deno.test("readEnv(env, 'http') reads every MEMO_MCP_* variable of the endpoint", () => {
  const config = readHttpEnv({
    MEMO_ROOT_DIR: "/tmp/p",
    MEMO_RUNTIME: "Local",
    MEMO_MCP_PATH: "/api/mcp",
    MEMO_MCP_BEARER_TOKEN: "t",
    MEMO_MCP_REQUIRE_AUTH: "false",
    MEMO_MCP_ALLOWED_ORIGINS: "https://a.example, http://localhost:*",
    MEMO_MCP_READ_ONLY: "1",
    MEMO_MCP_REQUEST_TIMEOUT_MS: "1000",
    MEMO_MCP_MAX_INPUT_BYTES: "2000",
    MEMO_MCP_MAX_OUTPUT_BYTES: "3000",
    MEMO_MCP_DEFAULT_PAGE_SIZE: "10",
    MEMO_MCP_MAX_PAGE_SIZE: "50",
    MEMO_CLOUD_BASE_URL: "https://cloud.example",
    MEMO_UI: "no",
    MEMO_UI_PATH: "/ui",
  });
  // MEMO_ROOT_DIR, MEMO_RUNTIME and MEMO_CLOUD_* belong to the runtime section.
  assert.deepEqual(config, {
    path: "/api/mcp",
    bearerToken: "t",
    requireAuth: false,
    allowedOrigins: ["https://a.example", "http://localhost:*"],
    readOnly: true,
    requestTimeoutMs: 1000,
    maxInputBytes: 2000,
    maxOutputBytes: 3000,
    defaultPageSize: 10,
    maxPageSize: 50,
    ui: false,
    uiPath: "/ui",
  });
});

Deno.test("readEnv(env, 'http') treats empty values as unset", () => {
  const config = readHttpEnv({ MEMO_MCP_BEARER_TOKEN: " ", MEMO_MCP_READ_ONLY: "" });
  assert.equal(config.bearerToken, undefined);
  assert.equal(config.readOnly, undefined);
});

Deno.test("readEnv(env, 'http') refuses malformed values with a Cannot message", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ MEMO_MCP_READ_ONLY: "maybe" }, /Cannot read MEMO_MCP_READ_ONLY/],
    [{ MEMO_MCP_REQUIRE_AUTH: "sometimes" }, /Cannot read MEMO_MCP_REQUIRE_AUTH/],
    [{ MEMO_MCP_MAX_INPUT_BYTES: "-5" }, /Cannot read MEMO_MCP_MAX_INPUT_BYTES/],
    [{ MEMO_MCP_MAX_PAGE_SIZE: "1e3" }, /Cannot read MEMO_MCP_MAX_PAGE_SIZE/],
    [{ MEMO_MCP_PATH: "mcp" }, /Cannot read MEMO_MCP_PATH/],
    [{ MEMO_UI: "maybe" }, /Cannot read MEMO_UI: expected true or false/],
    [{ MEMO_UI_PATH: "ui" }, /Cannot read MEMO_UI_PATH: the path must start with \//],
  ];
  for (const [env, message] of cases) {
    await t.step(JSON.stringify(env), () => assert.throws(() => readHttpEnv(env), message));
  }
});

Deno.test("MEMO_ENV_VARIABLES: docs/configuration.md documents every variable", async () => {
  const page = await Deno.readTextFile(new URL("./docs/configuration.md", import.meta.url));
  const missing = MEMO_ENV_VARIABLES.map((v) => v.name).filter((name) => !page.includes(name));
  assert.deepEqual(missing, []);
});

Deno.test("MEMO_ENV_VARIABLES: the server limits are read under their option names", () => {
  for (const limit of MEMO_MCP_LIMITS) {
    const row = MEMO_ENV_VARIABLES.find((v) => v.name === limit.env);
    assert.deepEqual([row?.section, row?.key, row?.kind], ["server", limit.option, "positive"]);
  }
});

Deno.test("readEnv() reads one section only: a bad variable of another never stops it", () => {
  const env = { MEMO_CLOUD_RATE_LIMIT: "lots", MEMO_RUNTIME: "local" };
  assert.deepEqual(readEnv(env, "runtime"), { runtime: "local", cloud: {}, recall: {} });
  assert.throws(
    () => readEnv(env, "cloud"),
    /^Error: Cannot read MEMO_CLOUD_RATE_LIMIT: expected a whole number \(0 turns the limit off\), got lots$/,
  );
});

Deno.test("readEnv() reads each kind of value: trimmed, blank as unset, malformed refused", () => {
  assert.deepEqual(readEnv({ MEMO_ROOT_DIR: " x " }, "runtime").rootDir, "x");
  assert.equal(readEnv({ MEMO_ROOT_DIR: "  " }, "runtime").rootDir, undefined);
  assert.equal(readEnv({ MEMO_UI: "Yes" }, "http").ui, true);
  assert.throws(
    () => readEnv({ MEMO_UI: "maybe" }, "http"),
    /^Error: Cannot read MEMO_UI: expected true or false$/,
  );
  assert.equal(readEnv({ MEMO_MCP_MAX_PAGE_SIZE: "25" }, "server").maxPageSize, 25);
  assert.throws(
    () => readEnv({ MEMO_MCP_MAX_PAGE_SIZE: "0" }, "server"),
    /^Error: Cannot read MEMO_MCP_MAX_PAGE_SIZE: expected an integer from 1 to 1000000000, got 0$/,
  );
  assert.equal(readEnv({ MEMO_CLOUD_DRAIN_MS: "0" }, "cloud").drainMs, 0);
  assert.throws(
    () => readEnv({ MEMO_CLOUD_DRAIN_MS: "-1" }, "cloud"),
    /^Error: Cannot read MEMO_CLOUD_DRAIN_MS: expected a whole number \(0 stops at once\), got -1$/,
  );
  assert.equal(readEnv({ MEMO_RUNTIME: "Local" }, "runtime").runtime, "local");
  assert.throws(
    () => readEnv({ MEMO_RUNTIME: "mars" }, "runtime"),
    /^Error: Cannot read MEMO_RUNTIME: expected local, hybrid or cloud, got mars$/,
  );
  assert.deepEqual(readEnv({ MEMO_MCP_ALLOWED_ORIGINS: " a, ,b " }, "http").allowedOrigins, [
    "a",
    "b",
  ]);
  assert.deepEqual(readEnv({ MEMO_OAUTH_SCOPES: "r, w" }, "oauth").scopes, {
    read: "r",
    write: "w",
  });
  assert.throws(
    () => readEnv({ MEMO_OAUTH_SCOPES: "r" }, "oauth"),
    /^Error: Cannot read MEMO_OAUTH_SCOPES: it needs the read scope and the write scope, comma-separated$/,
  );
  assert.deepEqual(
    readEnv({ MEMO_OAUTH_INTROSPECTION_URL: "https://id.example/i" }, "oauth"),
    { introspection: { url: "https://id.example/i" } },
  );
});

Deno.test("readEnv(): a number variable takes 1 to 10^9, as the flags do (a longer timer fires at once)", () => {
  assert.equal(
    readEnv({ MEMO_MCP_REQUEST_TIMEOUT_MS: "1000000000" }, "server").requestTimeoutMs,
    1_000_000_000,
  );
  assert.throws(
    () => readEnv({ MEMO_MCP_REQUEST_TIMEOUT_MS: "3000000000" }, "server"),
    /^Error: Cannot read MEMO_MCP_REQUEST_TIMEOUT_MS: expected an integer from 1 to 1000000000, got 3000000000$/,
  );
});
