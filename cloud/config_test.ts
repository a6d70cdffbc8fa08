import assert from "node:assert/strict";
import { parseApiKeys, readCloudConfig } from "./config.ts";

const SECRET = "sk_live_do_not_echo";

function refuses(value: string, message: RegExp): void {
  assert.throws(
    () => parseApiKeys(value),
    (e: Error) => {
      assert.match(e.message, message);
      assert.ok(!e.message.includes(SECRET), `echoed the key: ${e.message}`);
      assert.ok(!e.message.includes("do_not"), `echoed part of the key: ${e.message}`);
      return true;
    },
  );
}

Deno.test("parseApiKeys() refuses no keys with the documented message", () => {
  for (const value of [undefined, "", " , ,"]) {
    assert.throws(
      () => parseApiKeys(value),
      {
        message:
          "Cannot start the cloud API: MEMO_CLOUD_API_KEYS is empty; set it to key:workspaceId pairs",
      },
    );
  }
});

Deno.test("parseApiKeys() names a bad pair by position and never echoes it", () => {
  refuses(`${SECRET}`, /^Cannot read MEMO_CLOUD_API_KEYS: pair 1 is not key:workspaceId$/);
  refuses(`ok:team,${SECRET}:`, /pair 2 is not key:workspaceId/);
  refuses(`ok:team,:team`, /pair 2 is not key:workspaceId/);
  refuses(`${SECRET}:Team`, /pair 1: the workspace id must be 1 to 64 characters/);
  refuses(`${SECRET}:${"a".repeat(65)}`, /pair 1: the workspace id/);
  refuses(`${SECRET} x:team`, /pair 1: a key is visible ASCII/);
  refuses(`${SECRET}:team,${SECRET}:ops`, /pair 2 repeats the key of pair 1/);
});

Deno.test("parseApiKeys() keeps a colon inside a key and trims around pairs", () => {
  assert.deepEqual(parseApiKeys(" a:b:team , c:ops "), [
    { key: "a:b", workspaceId: "team" },
    { key: "c", workspaceId: "ops" },
  ]);
});

Deno.test("readCloudConfig() reads every MEMO_CLOUD_* variable", () => {
  assert.deepEqual(
    readCloudConfig({
      MEMO_CLOUD_API_KEYS: "k:team",
      MEMO_CLOUD_DATABASE_URL: " postgres://memo@127.0.0.1:5432/memo ",
      MEMO_CLOUD_DATA_DIR: "data",
      MEMO_CLOUD_RATE_LIMIT: "25",
      MEMO_CLOUD_MAX_BODY_BYTES: "2048",
      MEMO_LOG_LEVEL: "DEBUG",
      MEMO_CLOUD_SECRETS: "Refuse",
      MEMO_CLOUD_INDEX_BUDGET_MB: "512",
      MEMO_CLOUD_OPERATOR_KEYS: "op-1, op-2",
      MEMO_CLOUD_DRAIN_MS: "0",
    }, { cwd: "/srv/memo" }),
    {
      apiKeys: [{ key: "k", workspaceId: "team" }],
      databaseUrl: "postgres://memo@127.0.0.1:5432/memo",
      dataDir: "/srv/memo/data",
      rateLimit: 25,
      maxBodyBytes: 2048,
      logLevel: "debug",
      secrets: "refuse",
      indexBudgetMb: 512,
      operatorKeys: ["op-1", "op-2"],
      drainMs: 0,
    },
  );
  const defaults = readCloudConfig({ MEMO_CLOUD_API_KEYS: "k:team" }, { cwd: "/w" });
  assert.deepEqual(defaults, {
    apiKeys: [{ key: "k", workspaceId: "team" }],
    dataDir: "/w/memo-cloud-data",
    rateLimit: 100,
    maxBodyBytes: 1048576,
    logLevel: "info",
    secrets: "redact",
    indexBudgetMb: 192,
    operatorKeys: [],
    drainMs: 5000,
  });
});

Deno.test("readCloudConfig() refuses malformed numbers and levels", () => {
  const base = { MEMO_CLOUD_API_KEYS: "k:team" };
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_RATE_LIMIT: "-1" }),
    /Cannot read MEMO_CLOUD_RATE_LIMIT: expected a whole number/,
  );
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_RATE_LIMIT: "fast" }),
    /Cannot read MEMO_CLOUD_RATE_LIMIT/,
  );
  assert.equal(readCloudConfig({ ...base, MEMO_CLOUD_RATE_LIMIT: "0" }).rateLimit, 0);
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_MAX_BODY_BYTES: "0" }),
    /Cannot read MEMO_CLOUD_MAX_BODY_BYTES: expected an integer from 1 to 1000000000/,
  );
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_INDEX_BUDGET_MB: "0" }),
    /Cannot read MEMO_CLOUD_INDEX_BUDGET_MB: expected an integer from 1 to 1000000000, got 0/,
  );
  assert.equal(readCloudConfig({ ...base, MEMO_CLOUD_INDEX_BUDGET_MB: "1" }).indexBudgetMb, 1);
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_DRAIN_MS: "soon" }),
    /Cannot read MEMO_CLOUD_DRAIN_MS: expected a whole number \(0 stops at once\)/,
  );
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_CLOUD_OPERATOR_KEYS: "op 1" }),
    /Cannot read MEMO_CLOUD_OPERATOR_KEYS: key 1 must be visible ASCII/,
  );
  assert.throws(
    () => readCloudConfig({ ...base, MEMO_LOG_LEVEL: "loud" }),
    /Cannot read MEMO_LOG_LEVEL: expected error, warn, info or debug, got loud/,
  );
});
