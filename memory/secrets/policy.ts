/**
 * The secrets policy: what a write does with a detected secret.
 *
 * @module
 */

import { MemoryValidationError } from "../errors.ts";

/**
 * What a write does with a detected secret:
 *
 * - `redact` (the default): each secret becomes `[redacted:<rule-id>]` before anything is written;
 * - `refuse`: the write fails, naming the rule ids, and nothing is written;
 * - `allow`: the guard is off.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SECRETS_POLICY, type SecretsPolicy } from "@memo/memory";
 * const policy: SecretsPolicy = DEFAULT_SECRETS_POLICY;
 * assert.equal(policy, "redact");
 * ```
 */
export type SecretsPolicy = "redact" | "refuse" | "allow";

/**
 * The policies, in the order messages list them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SECRETS_POLICIES } from "@memo/memory";
 * assert.deepEqual(SECRETS_POLICIES, ["redact", "refuse", "allow"]);
 * ```
 */
export const SECRETS_POLICIES: readonly SecretsPolicy[] = ["redact", "refuse", "allow"];

/**
 * The policy when none is set in code, `MEMO_SECRETS` or `.memo/config.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_SECRETS_POLICY } from "@memo/memory";
 * assert.equal(DEFAULT_SECRETS_POLICY, "redact");
 * ```
 */
export const DEFAULT_SECRETS_POLICY: SecretsPolicy = "redact";

/**
 * `value` as a policy (trimmed, any case), or undefined when it is undefined or empty; throws
 * `MemoryValidationError` naming `where` (a variable, a key, a flag) for anything else.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseSecretsPolicy } from "@memo/memory";
 * assert.equal(parseSecretsPolicy(" Refuse ", "MEMO_SECRETS"), "refuse");
 * assert.equal(parseSecretsPolicy(undefined, "MEMO_SECRETS"), undefined);
 * assert.throws(
 *   () => parseSecretsPolicy("mask", "MEMO_SECRETS"),
 *   /^MemoryValidationError: Cannot read MEMO_SECRETS: expected redact, refuse or allow, got mask$/,
 * );
 * ```
 */
export function parseSecretsPolicy(value: unknown, where: string): SecretsPolicy | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (text === "") return undefined;
  if (text !== undefined && (SECRETS_POLICIES as readonly string[]).includes(text)) {
    return text as SecretsPolicy;
  }
  const got = typeof value === "string" ? value.trim().slice(0, 40) : typeof value;
  throw new MemoryValidationError(
    `Cannot read ${where}: expected redact, refuse or allow, got ${got}`,
  );
}
