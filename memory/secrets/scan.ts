/**
 * Finding secrets in a text, and redacting them. A cheap prefilter (every rule's fixed prefix or
 * key word, in one regular expression) runs first; the rules run only on texts it lets through,
 * and secretlint's rules are loaded only when a text needs them.
 *
 * @module
 */

import { MEMO_RULES, runMemoRules } from "./_memo_rules.ts";
import { mergeMatches, type SecretMatch } from "./_rule.ts";
import { SECRETLINT_RULES, secretlintScanner } from "./_secretlint.ts";

export type { SecretMatch };

const alternation = (anchors: readonly string[]) => anchors.map((a) => `(?:${a})`).join("|");

/** The anchors of secretlint's rules. */
const SECRETLINT_ANCHOR = new RegExp(
  alternation(Object.values(SECRETLINT_RULES).map((r) => r.anchor)),
);
/** The anchors of memo's rules, case-sensitive ones and the others. */
const MEMO_ANCHOR = new RegExp(
  alternation(MEMO_RULES.filter((r) => !r.anchorIgnoresCase).map((r) => r.anchor)),
);
const MEMO_ANCHOR_I = new RegExp(
  alternation(MEMO_RULES.filter((r) => r.anchorIgnoresCase).map((r) => r.anchor)),
  "i",
);

/** Token characters: `A-Z a-z 0-9 + / _ . = -`. */
const TOKEN_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_.=-") {
  TOKEN_CHAR[c.charCodeAt(0)] = 1;
}

/** Whether `text[from, to)` holds a run of 20 token characters. */
function tokenRun(text: string, from: number, to: number): boolean {
  let run = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && TOKEN_CHAR[c] === 1) {
      if (++run >= 20) return true;
    } else run = 0;
  }
  return false;
}

/**
 * The first, cheapest test: every vendor and memo anchor (all but the `NAME=value` key words)
 * comes with a run of 20 token characters (a token, a key, a digest), a `://` or a PEM header.
 * Prose is words between spaces: only the stretches of 20 characters or more between two spaces
 * (found with `indexOf`, which the engine runs natively) are looked at character by character.
 */
function quick(text: string): boolean {
  const n = text.length;
  let start = 0;
  while (start < n) {
    let end = text.indexOf(" ", start);
    if (end < 0) end = n;
    if (end - start >= 20 && tokenRun(text, start, end)) return true;
    start = end + 1;
  }
  return text.includes("://") || text.includes("PRIVATE KEY");
}

/** A key word assigned a value (`TOKEN=`, `password:`): its `=` or `:` is looked for first. */
function assignment(text: string): boolean {
  return (text.includes("=") || text.includes(":")) && MEMO_ANCHOR_I.test(text);
}

/**
 * Every rule id memo reports, sorted: memo's own and those it gives secretlint's rules. They are
 * stable: `[redacted:<id>]` stays in `notes.md`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SECRET_RULE_IDS } from "@memo/memory";
 * assert.ok(SECRET_RULE_IDS.includes("github-token"));
 * assert.ok(SECRET_RULE_IDS.includes("aws-access-key"));
 * assert.ok(SECRET_RULE_IDS.includes("secret-assignment"));
 * ```
 */
export const SECRET_RULE_IDS: readonly string[] = [
  ...new Set([
    ...MEMO_RULES.map((r) => r.id),
    ...Object.values(SECRETLINT_RULES).flatMap((r) =>
      Object.values(r.messages).flatMap((m) => m.id === null ? [] : [m.id])
    ),
  ]),
].sort();

/**
 * Whether `text` may hold a secret: the cheap test that runs before any rule. False means no
 * rule can match.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mayHoldSecret } from "@memo/memory";
 * assert.equal(mayHoldSecret("Deploys run with make deploy"), false);
 * assert.equal(mayHoldSecret("We rotate the key every month"), false);
 * assert.equal(mayHoldSecret("GITHUB_TOKEN=…"), true); // a candidate; the rules decide
 * ```
 */
export function mayHoldSecret(text: string): boolean {
  return (quick(text) && (SECRETLINT_ANCHOR.test(text) || MEMO_ANCHOR.test(text))) ||
    assignment(text);
}

/**
 * The secrets in `text`: memo's rule id and range of each, sorted, overlaps merged. Loads
 * secretlint's rules on the first text that needs them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findSecrets } from "@memo/memory";
 * const text = "AWS_SECRET_ACCESS_KEY=Zr8vQ2mW4kT9xN1pLc7Hs3Bd5Gf0Jy6Ra2Ue8Wq4";
 * assert.deepEqual(await findSecrets(text), [{ rule: "aws-secret-key", start: 22, end: 62 }]);
 * assert.deepEqual(await findSecrets("Rotate the key every 90 days"), []);
 * ```
 */
export async function findSecrets(text: string): Promise<SecretMatch[]> {
  if (typeof text !== "string" || !text) return [];
  const candidate = quick(text);
  const vendor = candidate && SECRETLINT_ANCHOR.test(text);
  if (!vendor && !(candidate && MEMO_ANCHOR.test(text)) && !assignment(text)) return [];
  const found: SecretMatch[] = [];
  runMemoRules(text, found);
  if (vendor) (await secretlintScanner())(text, found);
  return mergeMatches(found);
}

/**
 * `text` with each match replaced by `[redacted:<rule-id>]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redactMatches } from "@memo/memory";
 * assert.equal(
 *   redactMatches("key: abc, then def", [{ rule: "x", start: 5, end: 8 }, { rule: "y", start: 15, end: 18 }]),
 *   "key: [redacted:x], then [redacted:y]",
 * );
 * ```
 */
export function redactMatches(text: string, matches: readonly SecretMatch[]): string {
  let out = "";
  let at = 0;
  for (const m of [...matches].sort((a, b) => a.start - b.start)) {
    if (m.start < at) continue;
    out += text.slice(at, m.start) + `[redacted:${m.rule}]`;
    at = m.end;
  }
  return out + text.slice(at);
}

/**
 * `text` with each secret the guard detects replaced by `[redacted:<rule-id>]`, whatever the
 * policy: for text that may echo what it was given (an error's message, a skipped record's
 * reason). Cheap for a text the prefilter lets pass.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maskSecrets } from "@memo/memory";
 * assert.equal(
 *   await maskSecrets("Cannot find note ghp_ZK2vNTaIlzUaP8YUAZtvaJko1sGEultVpJkQ"),
 *   "Cannot find note [redacted:github-token]",
 * );
 * assert.equal(await maskSecrets("Cannot find note n1"), "Cannot find note n1");
 * ```
 */
export async function maskSecrets(text: string): Promise<string> {
  if (!mayHoldSecret(text)) return text;
  return redactMatches(text, await findSecrets(text));
}
