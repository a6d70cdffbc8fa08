/**
 * The reference Cloud API server's configuration from `MEMO_CLOUD_*` variables:
 * `MEMO_CLOUD_API_KEYS` (required), `MEMO_CLOUD_DATABASE_URL`, `MEMO_CLOUD_DATA_DIR`,
 * `MEMO_CLOUD_RATE_LIMIT`, `MEMO_CLOUD_SECRETS`, `MEMO_CLOUD_MAX_BODY_BYTES` and `MEMO_LOG_LEVEL`.
 * Errors never echo a key.
 *
 * @module
 */

import { resolve } from "node:path";
import { readEnv } from "../env.ts";
import { type ApiKeyEntry, CLOUD_ID_PATTERN, CLOUD_ID_RULE } from "./_auth.ts";
import { type CloudLogLevel, DEFAULT_MAX_BODY_BYTES, DEFAULT_RATE_LIMIT } from "./app.ts";
import { DEFAULT_INDEX_BUDGET_MB } from "./store.ts";

/**
 * Where the file store keeps its data by default, relative to the working directory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_CLOUD_DATA_DIR } from "./config.ts";
 *
 * assert.equal(DEFAULT_CLOUD_DATA_DIR, "./memo-cloud-data");
 * ```
 */
export const DEFAULT_CLOUD_DATA_DIR = "./memo-cloud-data";

/**
 * What the reference server runs with.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type CloudConfig, readCloudConfig } from "./config.ts";
 *
 * const config: CloudConfig = readCloudConfig({ MEMO_CLOUD_API_KEYS: "k1:team" }, { cwd: "/srv" });
 * assert.equal(config.dataDir, "/srv/memo-cloud-data");
 * assert.equal(config.databaseUrl, undefined); // the file store
 * ```
 */
export interface CloudConfig {
  /** The API keys and their workspaces (at least one). */
  apiKeys: ApiKeyEntry[];
  /** PostgreSQL URL; when set, the PostgreSQL store is used instead of the file store. */
  databaseUrl?: string;
  /** The file store's folder, absolute. */
  dataDir: string;
  /** Requests per second per key, across every instance sharing the store; 0 is off. */
  rateLimit: number;
  /** Body limit in bytes (`notes:batch` allows 16 MiB regardless). */
  maxBodyBytes: number;
  /** How much is logged. */
  logLevel: CloudLogLevel;
  /** `MEMO_CLOUD_SECRETS`: what a write does with a detected secret. */
  secrets: "redact" | "refuse" | "allow";
  /** Memory for the projects an instance holds, in MiB. */
  indexBudgetMb: number;
  /** Keys that read `GET /v1/stats` only (none: the route answers 401). */
  operatorKeys: string[];
  /** How long `memo cloud serve` drains after SIGTERM before it stops, in ms. */
  drainMs: number;
}

/**
 * How long `memo cloud serve` keeps serving after SIGTERM, with `GET /readyz` answering 503, before
 * it stops accepting connections (`MEMO_CLOUD_DRAIN_MS`): time for a load balancer that follows
 * `/readyz` to stop sending requests.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_CLOUD_DRAIN_MS } from "./config.ts";
 *
 * assert.equal(DEFAULT_CLOUD_DRAIN_MS, 5000);
 * ```
 */
export const DEFAULT_CLOUD_DRAIN_MS = 5000;

/**
 * Reads `MEMO_CLOUD_OPERATOR_KEYS`: comma-separated keys, each visible ASCII without a comma, given
 * once. Never echoes a key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseOperatorKeys } from "./config.ts";
 *
 * assert.deepEqual(parseOperatorKeys(" op-1 , op-2 "), ["op-1", "op-2"]);
 * assert.deepEqual(parseOperatorKeys(undefined), []);
 * assert.throws(() => parseOperatorKeys("op-1,op-1"), /key 2 repeats key 1/);
 * ```
 */
export function parseOperatorKeys(value: string | undefined): string[] {
  const keys = (value ?? "").split(",").map((k) => k.trim()).filter((k) => k !== "");
  keys.forEach((key, i) => {
    if (!KEY_PATTERN.test(key)) {
      throw new Error(
        `Cannot read MEMO_CLOUD_OPERATOR_KEYS: key ${i + 1} must be visible ASCII characters ` +
          "without spaces or commas",
      );
    }
    const twin = keys.indexOf(key);
    if (twin < i) {
      throw new Error(`Cannot read MEMO_CLOUD_OPERATOR_KEYS: key ${i + 1} repeats key ${twin + 1}`);
    }
  });
  return keys;
}

/** The message of a server started without keys. */
const NO_KEYS =
  "Cannot start the cloud API: MEMO_CLOUD_API_KEYS is empty; set it to key:workspaceId pairs";

const KEY_PATTERN = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * Parses `MEMO_CLOUD_API_KEYS`: comma-separated `key:workspaceId` pairs (a key may hold `:`; the
 * workspace id follows the last one). Throws for none, a malformed pair, a bad workspace id or a
 * repeated key, naming the pair by its position and never echoing it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseApiKeys } from "./config.ts";
 *
 * assert.deepEqual(parseApiKeys("k1:team, k2:ops"), [
 *   { key: "k1", workspaceId: "team" },
 *   { key: "k2", workspaceId: "ops" },
 * ]);
 * assert.throws(() => parseApiKeys(""), /MEMO_CLOUD_API_KEYS is empty/);
 * assert.throws(
 *   () => parseApiKeys("k1:team,secret-without-workspace"),
 *   (e: Error) => /pair 2 is not key:workspaceId/.test(e.message) && !e.message.includes("secret"),
 * );
 * ```
 */
export function parseApiKeys(value: string | undefined): ApiKeyEntry[] {
  const pairs = (value ?? "").split(",").map((pair) => pair.trim()).filter((pair) => pair !== "");
  if (pairs.length === 0) throw new Error(NO_KEYS);
  const seen = new Map<string, number>();
  return pairs.map((pair, i) => {
    const at = `Cannot read MEMO_CLOUD_API_KEYS: pair ${i + 1}`;
    const colon = pair.lastIndexOf(":");
    if (colon <= 0 || colon === pair.length - 1) {
      throw new Error(`${at} is not key:workspaceId`);
    }
    const key = pair.slice(0, colon).trim();
    const workspaceId = pair.slice(colon + 1).trim();
    if (!KEY_PATTERN.test(key)) {
      throw new Error(`${at}: a key is visible ASCII characters without spaces or commas`);
    }
    if (!CLOUD_ID_PATTERN.test(workspaceId)) {
      throw new Error(`${at}: the workspace id must be ${CLOUD_ID_RULE}`);
    }
    const twin = seen.get(key);
    if (twin !== undefined) throw new Error(`${at} repeats the key of pair ${twin}`);
    seen.set(key, i + 1);
    return { key, workspaceId };
  });
}

/**
 * Reads the configuration from `env`. Throws "Cannot start the cloud API: MEMO_CLOUD_API_KEYS is
 * empty; …" without keys, and "Cannot read NAME: …" for a malformed value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCloudConfig } from "./config.ts";
 *
 * const config = readCloudConfig({
 *   MEMO_CLOUD_API_KEYS: "k1:team",
 *   MEMO_CLOUD_DATA_DIR: "/var/lib/memo",
 *   MEMO_CLOUD_RATE_LIMIT: "0",
 *   MEMO_LOG_LEVEL: "warn",
 * });
 * assert.deepEqual(config, {
 *   apiKeys: [{ key: "k1", workspaceId: "team" }],
 *   dataDir: "/var/lib/memo",
 *   rateLimit: 0,
 *   maxBodyBytes: 1048576,
 *   logLevel: "warn",
 *   secrets: "redact",
 *   indexBudgetMb: 192,
 *   operatorKeys: [],
 *   drainMs: 5000,
 * });
 * assert.equal(readCloudConfig({ MEMO_CLOUD_API_KEYS: "k1:team", MEMO_CLOUD_SECRETS: "refuse" }).secrets, "refuse");
 * assert.throws(() => readCloudConfig({}), /^Error: Cannot start the cloud API: MEMO_CLOUD_API_KEYS is empty/);
 * ```
 */
export function readCloudConfig(
  env: Readonly<Record<string, string | undefined>>,
  options: { cwd?: string } = {},
): CloudConfig {
  const read = readEnv(env, "cloud");
  const config: CloudConfig = {
    apiKeys: parseApiKeys(read.apiKeys),
    dataDir: resolve(options.cwd ?? ".", read.dataDir ?? DEFAULT_CLOUD_DATA_DIR),
    rateLimit: read.rateLimit ?? DEFAULT_RATE_LIMIT,
    maxBodyBytes: read.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    logLevel: readEnv(env, "log").level ?? "info",
    secrets: read.secrets ?? "redact",
    indexBudgetMb: read.indexBudgetMb ?? DEFAULT_INDEX_BUDGET_MB,
    operatorKeys: parseOperatorKeys(read.operatorKeys),
    drainMs: read.drainMs ?? DEFAULT_CLOUD_DRAIN_MS,
  };
  if (read.databaseUrl !== undefined) config.databaseUrl = read.databaseUrl;
  return config;
}
