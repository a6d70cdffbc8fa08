/**
 * Internal: what the detectors report, and how overlapping reports become one finding.
 *
 * @module
 */

/**
 * One detected secret in a text: memo's rule id and the UTF-16 range to replace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { SecretMatch } from "./_rule.ts";
 * const match: SecretMatch = { rule: "github-token", start: 4, end: 44 };
 * assert.equal(match.end - match.start, 40);
 * ```
 */
export interface SecretMatch {
  /** memo's stable rule id. */
  rule: string;
  /** Where the secret starts. */
  start: number;
  /** Where it ends (exclusive). */
  end: number;
}

/**
 * Rules that match by shape and context rather than by a vendor's format: on an overlap with
 * another rule, the other rule's id is kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GENERIC_RULES } from "./_rule.ts";
 * assert.ok(GENERIC_RULES.has("secret-assignment"));
 * ```
 */
export const GENERIC_RULES: ReadonlySet<string> = new Set(["secret-assignment", "url-password"]);

/**
 * The matches sorted by start, overlapping ones merged into one range (named by the first
 * vendor rule among them, else the first rule).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeMatches } from "./_rule.ts";
 * assert.deepEqual(
 *   mergeMatches([
 *     { rule: "secret-assignment", start: 10, end: 50 },
 *     { rule: "aws-secret-key", start: 12, end: 52 },
 *     { rule: "jwt", start: 0, end: 5 },
 *   ]),
 *   [{ rule: "jwt", start: 0, end: 5 }, { rule: "aws-secret-key", start: 10, end: 52 }],
 * );
 * ```
 */
export function mergeMatches(matches: readonly SecretMatch[]): SecretMatch[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretMatch[] = [];
  for (const m of sorted) {
    const last = out[out.length - 1];
    if (last && m.start < last.end) {
      last.end = Math.max(last.end, m.end);
      if (GENERIC_RULES.has(last.rule) && !GENERIC_RULES.has(m.rule)) last.rule = m.rule;
      continue;
    }
    out.push({ ...m });
  }
  return out;
}
