/**
 * What keeps secrets off the wire: token-shaped strings and secret-named keys are masked
 * ({@linkcode scrubSecrets}, {@linkcode isSecretKey}, {@linkcode safeDetails}), and messages are
 * cut to one line ({@linkcode oneLine}).
 *
 * @module
 */

const MAX_MESSAGE = 500;
const SECRET_KEY = /token|secret|password|passwd|api[-_]?key|authorization|credential|cookie/i;
const SECRET_VALUE =
  /\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|secret_[A-Za-z0-9]{16,}|ntn_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{16,}|xox[abp]-[A-Za-z0-9-]{10,})\b/g;
const BEARER = /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;

/**
 * Replaces token-shaped substrings (bearer values, GitHub and Notion tokens …) with `[REDACTED]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scrubSecrets } from "./scrub.ts";
 *
 * assert.equal(scrubSecrets("sent Bearer abc123def456"), "sent Bearer [REDACTED]");
 * assert.equal(scrubSecrets("token ghp_0123456789abcdefABCDEF"), "token [REDACTED]");
 * ```
 */
export function scrubSecrets(text: string): string {
  return text.replace(BEARER, "$1 [REDACTED]").replace(SECRET_VALUE, "[REDACTED]");
}

/**
 * Whether a key names a secret (`token`, `apiKey`, `password` …).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isSecretKey } from "./scrub.ts";
 *
 * assert.ok(isSecretKey("githubToken"));
 * assert.ok(isSecretKey("api_key"));
 * assert.ok(!isSecretKey("title"));
 * ```
 */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * One line of at most 500 characters, without terminal escapes or control characters, scrubbed of
 * secrets: what an error message may say on the wire.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oneLine } from "./scrub.ts";
 *
 * assert.equal(oneLine("disk gone:\n  Bearer abc123def456"), "disk gone: Bearer [REDACTED]");
 * ```
 */
export function oneLine(message: string): string {
  const flat = message
    // deno-lint-ignore no-control-regex
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, "")
    .replace(/\s*\r?\n\s*/g, " ")
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim();
  return scrubSecrets(flat.length > MAX_MESSAGE ? flat.slice(0, MAX_MESSAGE - 1) + "…" : flat);
}

/**
 * Makes details safe: masks secret-named keys, scrubs token-shaped strings, drops functions and
 * cuts depth and size.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { safeDetails } from "./scrub.ts";
 *
 * assert.deepEqual(
 *   safeDetails({ url: "https://api.github.com", token: "ghp_x", retry: () => {}, n: 2 }),
 *   { url: "https://api.github.com", token: "[REDACTED]", n: 2 },
 * );
 * ```
 */
export function safeDetails(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return oneLine(value);
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" || typeof value === "bigint"
      ? undefined
      : value;
  }
  if (depth >= 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => safeDetails(v, depth + 1));
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(value)) {
    if (++n > 50) break;
    if (isSecretKey(k)) out[k] = "[REDACTED]";
    else {
      const s = safeDetails(v, depth + 1);
      if (s !== undefined) out[k] = s;
    }
  }
  return out;
}
