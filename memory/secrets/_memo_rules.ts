/**
 * memo's own secret rules: the formats that secretlint's recommended preset does not cover (JWTs,
 * GCP API keys and service-account key ids, PyPI, Twilio, Azure connection strings, Notion's
 * legacy `secret_` prefix, passwords in URLs of any scheme, and `NAME=value` assignments). Every
 * other rule comes from secretlint (see `_secretlint.ts`). Each rule names the documentation of
 * the format it follows, and has a test in `_memo_rules_test.ts`.
 *
 * @module
 */

import { charClasses, entropy, isElided, isPlaceholder, looksRandom } from "./_plausible.ts";
import type { SecretMatch } from "./_rule.ts";

/**
 * One of memo's own rules.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_RULES, type MemoSecretRule } from "./_memo_rules.ts";
 * const jwt: MemoSecretRule = MEMO_RULES.find((r) => r.id === "jwt")!;
 * assert.match(jwt.source, /^https:\/\//);
 * ```
 */
export interface MemoSecretRule {
  /** memo's stable rule id (what `[redacted:<id>]` names). */
  readonly id: string;
  /** The documentation of the format the rule follows. */
  readonly source: string;
  /**
   * A regular expression (source) that every match of `pattern` contains: the cheap
   * prefilter looks for it before any rule runs.
   */
  readonly anchor: string;
  /** Whether `anchor` ignores case. */
  readonly anchorIgnoresCase?: boolean;
  /**
   * The format, with the `g` and `d` flags; the named group `secret`, when present, is what is
   * redacted (else the whole match).
   */
  readonly pattern: RegExp;
  /** Checks a match further (a checksum, a decoded header, a placeholder); true keeps it. */
  readonly check?: (secret: string, groups: Record<string, string | undefined>) => boolean;
}

/** The base64url alphabet's boundary: a token does not start or end inside a longer word. */
const B64URL = "A-Za-z0-9_-";

function decodesToJsonWithAlg(segment: string): boolean {
  try {
    const b64 = segment.replace(/-/g, "+").replace(/_/g, "/");
    const header = JSON.parse(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)));
    return typeof header === "object" && header !== null && typeof header.alg === "string";
  } catch {
    return false;
  }
}

const NOT_PASSWORDS = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "changeme",
  "username",
  "user",
]);

/** A value made only of letter words joined by `.`, `/` or `:` names something; it is not a secret. */
const REFERENCE = /^[A-Za-z_]+(?:[./:][A-Za-z_]+)+\/?$/;

/** Assignment names that hold passwords: a value of 8 characters is enough. */
const PASSWORD_NAME = /(?:password|passwd|pwd|pass_?phrase)$/i;

/** The bare names prose uses for things that are no secret ("the idempotency key: …"). */
const BARE_NAME = /^(?:key|token)$/i;

/**
 * Values that name something rather than grant anything: a UUID, a hex digest or git SHA, a ULID
 * or memo id, an SSH or GPG fingerprint (`SHA256:…`, `MD5:…`).
 */
const IDENTIFIER =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-f]{7,64}|[0-9A-F]{7,64}|[0-7][0-9A-HJKMNP-TV-Z]{25}|0[0-9a-hjkmnp-tv-z]{19}|(?:SHA256|SHA1|MD5):[A-Za-z0-9+/:=]{16,})$/;

/**
 * Whether an assigned value looks like a secret: not a placeholder, not a reference
 * (`process.env.TOKEN`, `vault/path`), random enough, and at least 16 characters (8 for a
 * password) mixing at least two kinds of characters. After a bare `key` or `token` (as prose
 * writes "the cache key: …", `prose`), an identifier's shape is not enough: a UUID, a digest, an id
 * or a fingerprint stays. An assignment (`TOKEN=`, `"token":`) and a compound name (`API_KEY=`,
 * `HEROKU_API_KEY:`) keep every value: many real keys are hex or UUIDs.
 */
function assignedSecret(value: string, name: string, prose = false): boolean {
  if (isPlaceholder(value) || REFERENCE.test(value)) return false;
  // (A sentence's full stop after the value is no part of it.)
  if (prose && BARE_NAME.test(name) && IDENTIFIER.test(value.replace(/[.:]+$/, ""))) return false;
  const password = PASSWORD_NAME.test(name);
  if (value.length < (password ? 8 : 16) || charClasses(value) < 2) return false;
  return looksRandom(value) && entropy(value) >= (password ? 2.5 : 3);
}

/**
 * memo's own rules, in the order they run.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_RULES } from "./_memo_rules.ts";
 * assert.deepEqual(MEMO_RULES.map((r) => r.id), [
 *   "jwt",
 *   "gcp-api-key",
 *   "gcp-service-account",
 *   "pypi-token",
 *   "twilio-api-key",
 *   "azure-connection-string",
 *   "notion-token",
 *   "sendgrid-api-key",
 *   "private-key",
 *   "url-password",
 *   "secret-assignment",
 * ]);
 * ```
 */
export const MEMO_RULES: readonly MemoSecretRule[] = [
  {
    id: "jwt",
    source: "https://datatracker.ietf.org/doc/html/rfc7519#section-3",
    anchor: "eyJ",
    pattern: new RegExp(
      `(?<![${B64URL}])eyJ[${B64URL}]{8,}\\.eyJ[${B64URL}]{8,}\\.[${B64URL}]*(?![${B64URL}])`,
      "gd",
    ),
    check: (token) => decodesToJsonWithAlg(token.slice(0, token.indexOf("."))),
  },
  {
    id: "gcp-api-key",
    source: "https://cloud.google.com/docs/authentication/api-keys",
    anchor: "AIza",
    pattern: new RegExp(`(?<![${B64URL}])AIza[${B64URL}]{35}(?![${B64URL}])`, "gd"),
    check: (key) => !isPlaceholder(key) && looksRandom(key.slice(4)),
  },
  {
    id: "gcp-service-account",
    source: "https://cloud.google.com/iam/docs/keys-create-delete#creating",
    anchor: "private_key_id",
    pattern: /"private_key_id"\s*:\s*"(?<secret>[0-9a-f]{40})"/gd,
    check: (id) => looksRandom(id),
  },
  {
    id: "pypi-token",
    source: "https://pypi.org/help/#apitoken",
    anchor: "pypi-AgE",
    pattern: new RegExp(`(?<![${B64URL}])pypi-AgE[${B64URL}]{50,}(?![${B64URL}])`, "gd"),
    check: (token) => !isPlaceholder(token),
  },
  {
    id: "twilio-api-key",
    source: "https://www.twilio.com/docs/iam/api-keys",
    anchor: "SK[0-9a-fA-F]{32}",
    pattern: /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/gd,
    check: (sid) => looksRandom(sid.slice(2)),
  },
  {
    id: "azure-connection-string",
    source: "https://learn.microsoft.com/azure/storage/common/storage-configure-connection-string",
    anchor: "AccountKey=|SharedAccessKey=",
    pattern: /(?<![A-Za-z])(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/]{40,}={0,2})/gd,
    check: (key) => !isPlaceholder(key) && looksRandom(key),
  },
  {
    id: "notion-token",
    source:
      "https://developers.notion.com/docs/authorization#internal-integration-auth-flow-set-up",
    anchor: "secret_",
    pattern: /(?<![A-Za-z0-9_])secret_[A-Za-z0-9]{43}(?![A-Za-z0-9])/gd,
    check: (token) => !isPlaceholder(token) && looksRandom(token.slice(7)),
  },
  {
    id: "sendgrid-api-key",
    source: "https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
    anchor: "SG\\.",
    pattern: new RegExp(
      `(?<![.${B64URL}])SG\\.[${B64URL}]{22}\\.[${B64URL}]{43}(?![${B64URL}])`,
      "gd",
    ),
    check: (key) => !isPlaceholder(key) && looksRandom(key.slice(3)),
  },
  {
    id: "private-key",
    source: "https://datatracker.ietf.org/doc/html/rfc7468#section-10",
    anchor: "PRIVATE KEY-----",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----(?<secret>[A-Za-z0-9+/=\s\\:,-]{64,16384}?)-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----/gd,
    check: (body) => {
      // A DER SEQUENCE ("M…") or an OpenSSH key, not an elided example ("MIIE...").
      const b64 = body.replace(/\\n|\s|Proc-Type:[^\n]*|DEK-Info:[^\n]*/g, "");
      return /^(?:M|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]{60,}={0,2}$/.test(b64) && !isElided(b64);
    },
  },
  {
    id: "url-password",
    source: "https://datatracker.ietf.org/doc/html/rfc3986#section-3.2.1",
    anchor: "://[^\\s:@/?#]{0,128}:[^\\s@/?#]{1,256}@",
    pattern:
      /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/(?<user>[^\s:@/?#]{0,128}):(?<secret>[^\s@/?#]{3,256})@[A-Za-z0-9[]/gd,
    check: (password, groups) =>
      password !== groups.user && !NOT_PASSWORDS.has(password.toLowerCase()) &&
      !isPlaceholder(password) && !/^[.:*x-]+$/i.test(password),
  },
  {
    id: "secret-assignment",
    source: "https://github.com/motdotla/dotenv#what-rules-does-the-parsing-engine-follow",
    anchor: "(?:key|token|secret|passw(?:or)?d|pwd|pass_?phrase|credentials?)[\"']?[ \\t]{0,3}[:=]",
    anchorIgnoresCase: true,
    pattern:
      /(?<![A-Za-z0-9_.-])(?<name>(?:[A-Za-z0-9]+[_.-])*(?:api_?key|apikey|key|token|secret|password|passwd|pwd|pass_?phrase|credentials?))(?<quote>["']?)[ \t]{0,3}(?<sep>:=|=>|=|:)[ \t]{0,3}["']?(?<secret>[^\s"'`,;()[\]<>{}]{8,256})/gid,
    // Only an unquoted `key:` reads as a sentence; `KEY=` and `"token":` are assignments.
    check: (value, groups) =>
      assignedSecret(value, groups.name ?? "", groups.sep === ":" && !groups.quote),
  },
];

const ANCHORS = MEMO_RULES.map((r) => new RegExp(r.anchor, r.anchorIgnoresCase ? "i" : ""));

/**
 * Runs memo's own rules over `text`, adding what they find to `into`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runMemoRules } from "./_memo_rules.ts";
 * const found: { rule: string; start: number; end: number }[] = [];
 * runMemoRules("STRIPE_WEBHOOK_SECRET=whsec_Zr8vQ2mW4kT9xN1pLc7Hs3Bd", found);
 * assert.deepEqual(found, [{ rule: "secret-assignment", start: 22, end: 52 }]);
 * ```
 */
export function runMemoRules(text: string, into: SecretMatch[]): void {
  for (const [i, rule] of MEMO_RULES.entries()) {
    // A rule whose anchor is not in the text cannot match: its (costlier) pattern is skipped.
    if (!ANCHORS[i].test(text)) continue;
    rule.pattern.lastIndex = 0;
    for (const m of text.matchAll(rule.pattern)) {
      const groups = m.groups ?? {};
      const secret = groups.secret ?? m[0];
      if (rule.check && !rule.check(secret, groups)) continue;
      const [start, end] = m.indices?.groups?.secret ?? [m.index!, m.index! + m[0].length];
      into.push({ rule: rule.id, start, end });
    }
  }
}
