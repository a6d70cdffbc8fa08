/**
 * The limit flags of `memo mcp` and `memo serve` (`--request-timeout-ms` …),
 * derived from the server's limits table, so that the flags, the
 * `MEMO_MCP_*` variables and the options cannot drift apart.
 *
 * @module
 */

import { MEMO_MCP_LIMITS, type MemoMcpLimitValues } from "../../server/mod.ts";
import { intFlag, type ParsedArgs } from "../args.ts";
import { MAX_LIMIT_VALUE } from "../../env.ts";

/**
 * The flag names, without `--`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LIMIT_FLAGS } from "./limit_flags.ts";
 *
 * assert.deepEqual(LIMIT_FLAGS, [
 *   "request-timeout-ms",
 *   "max-input-bytes",
 *   "max-output-bytes",
 *   "default-page-size",
 *   "max-page-size",
 *   "max-listen-streams",
 * ]);
 * ```
 */
export const LIMIT_FLAGS: readonly string[] = MEMO_MCP_LIMITS.map((l) => l.flag);

/**
 * The limits given as flags. Throws `UsageError` for a value that is not an
 * integer from 1 to 1000000000.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "../args.ts";
 * import { LIMIT_FLAGS, limitFlags } from "./limit_flags.ts";
 *
 * const p = parseArgs(["--max-page-size", "50"], { string: [...LIMIT_FLAGS] });
 * assert.deepEqual(limitFlags(p), { maxPageSize: 50 });
 * const zero = parseArgs(["--max-page-size", "0"], { string: [...LIMIT_FLAGS] });
 * assert.throws(() => limitFlags(zero), { name: "UsageError" });
 * ```
 */
export function limitFlags(p: ParsedArgs): MemoMcpLimitValues {
  const out: MemoMcpLimitValues = {};
  for (const limit of MEMO_MCP_LIMITS) {
    const value = intFlag(p, limit.flag, 1, MAX_LIMIT_VALUE);
    if (value !== undefined) out[limit.option] = value;
  }
  return out;
}
