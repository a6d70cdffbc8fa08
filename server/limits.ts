/**
 * The server's limits in one table: each limit's option, its `MEMO_MCP_*`
 * variable, its `memo mcp` / `memo serve` flag and its default. The options'
 * defaults, the variables and the flags are all derived from it.
 *
 * @module
 */

/**
 * The name of a limit option of `MemoMcpOptions`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_MCP_DEFAULTS, type MemoMcpLimitName } from "@memo/mcp-server";
 *
 * const name: MemoMcpLimitName = "maxPageSize";
 * assert.equal(MEMO_MCP_DEFAULTS[name], 100);
 * ```
 */
export type MemoMcpLimitName =
  | "requestTimeoutMs"
  | "maxInputBytes"
  | "maxOutputBytes"
  | "defaultPageSize"
  | "maxPageSize"
  | "maxListenStreams";

/**
 * One limit: where it is set, and its default.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_MCP_LIMITS, type MemoMcpLimit } from "@memo/mcp-server";
 *
 * const pageSize: MemoMcpLimit = MEMO_MCP_LIMITS.find((l) => l.option === "defaultPageSize")!;
 * assert.equal(`--${pageSize.flag}`, "--default-page-size");
 * assert.equal(pageSize.env, "MEMO_MCP_DEFAULT_PAGE_SIZE");
 * assert.equal(pageSize.default, 25);
 * ```
 */
export interface MemoMcpLimit {
  /** Option of `MemoMcpOptions`. */
  readonly option: MemoMcpLimitName;
  /** Environment variable. */
  readonly env: string;
  /** Flag of `memo mcp` and `memo serve`, without the leading `--`. */
  readonly flag: string;
  /** Default value. */
  readonly default: number;
  /** What it limits. */
  readonly description: string;
}

/**
 * The limits table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_MCP_LIMITS } from "@memo/mcp-server";
 *
 * const timeout = MEMO_MCP_LIMITS.find((l) => l.option === "requestTimeoutMs")!;
 * assert.equal(timeout.env, "MEMO_MCP_REQUEST_TIMEOUT_MS");
 * assert.equal(timeout.flag, "request-timeout-ms");
 * assert.equal(timeout.default, 30000);
 * ```
 */
export const MEMO_MCP_LIMITS: readonly MemoMcpLimit[] = [
  {
    option: "requestTimeoutMs",
    env: "MEMO_MCP_REQUEST_TIMEOUT_MS",
    flag: "request-timeout-ms",
    default: 30000,
    description: "time one operation may take, in ms",
  },
  {
    option: "maxInputBytes",
    env: "MEMO_MCP_MAX_INPUT_BYTES",
    flag: "max-input-bytes",
    default: 256000,
    description: "largest request message, in bytes",
  },
  {
    option: "maxOutputBytes",
    env: "MEMO_MCP_MAX_OUTPUT_BYTES",
    flag: "max-output-bytes",
    default: 512000,
    description: "largest serialized response, in bytes",
  },
  {
    option: "defaultPageSize",
    env: "MEMO_MCP_DEFAULT_PAGE_SIZE",
    flag: "default-page-size",
    default: 25,
    description: "page size of list operations when the caller gives none",
  },
  {
    option: "maxPageSize",
    env: "MEMO_MCP_MAX_PAGE_SIZE",
    flag: "max-page-size",
    default: 100,
    description: "largest page size a caller may ask for",
  },
  {
    option: "maxListenStreams",
    env: "MEMO_MCP_MAX_LISTEN_STREAMS",
    flag: "max-listen-streams",
    default: 64,
    description:
      "subscriptions/listen streams open at once (per endpoint, or per stdio connection)",
  },
];

/**
 * Values for some of the limits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoMcpLimitValues } from "./limits.ts";
 * import { readEnv } from "../env.ts";
 *
 * const values: MemoMcpLimitValues = readEnv({ MEMO_MCP_REQUEST_TIMEOUT_MS: "5000" }, "server");
 * assert.deepEqual(values, { requestTimeoutMs: 5000 }); // the others are unset
 * ```
 */
export type MemoMcpLimitValues = Partial<Record<MemoMcpLimitName, number>>;
