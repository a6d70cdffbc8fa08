/**
 * Internal: secretlint's recommended rules (`@secretlint/secretlint-rule-preset-recommend`,
 * pinned in `memory/deno.json`), run through a small adapter of secretlint's rule API, with each
 * rule's findings renamed to memo's stable rule ids.
 *
 * - **Loaded on first use.** The preset is imported with a dynamic `import()` the first time a
 *   text passes the prefilter for one of its rules (about 150 ms), never at start.
 * - **No values kept.** The adapter's translator returns the message id alone, so a rule never
 *   formats a message holding the secret; only ranges and rule ids leave this file.
 * - **Not `@secretlint/core`.** Its `lintSource` costs about 1.8 ms per note and pulls `debug` and
 *   a profiler; calling each rule's `file(source)` directly costs about 0.06 ms (see the README).
 *
 * @module
 */

import { isPlaceholder, looksRandom } from "./_plausible.ts";
import type { SecretMatch } from "./_rule.ts";

/** How one secretlint message becomes a memo finding. */
interface Mapping {
  /** memo's rule id; `null` drops the message (not a secret, such as an AWS account id). */
  readonly id: string | null;
  /**
   * What the value holds: `token` (a fixed `prefix`, then random characters, checked for
   * placeholders and randomness), `password` (a URL: only the password is redacted, and
   * placeholders are dropped), or `block` (a private key, checked by the rule itself).
   */
  readonly kind: "token" | "password" | "block";
  /** The fixed start of a token, left out of the randomness check. */
  readonly prefix?: RegExp;
  /** The shortest real value (shorter matches are dropped). */
  readonly minLength?: number;
  /**
   * Where the value really is, for a rule whose reported range starts at the whole match
   * (secretlint's AWS secret key rule reports the key's length from the name's start): group 1
   * of its first match from the reported start is the value.
   */
  readonly value?: RegExp;
}

const token = (id: string, prefix?: RegExp, minLength?: number): Mapping => ({
  id,
  kind: "token",
  prefix,
  minLength,
});

/**
 * secretlint's rules (without the `@secretlint/secretlint-rule-` part of their names), each with
 * the prefilter anchor every finding of it contains, and its messages' memo ids (`*` stands for
 * any message id of the rule).
 */
export const SECRETLINT_RULES: Readonly<
  Record<string, { anchor: string; messages: Readonly<Record<string, Mapping>> }>
> = {
  aws: {
    anchor:
      "A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)",
    messages: {
      AWSAccessKeyID: token("aws-access-key", /^.{4}/),
      AWSSecretAccessKey: {
        ...token("aws-secret-key"),
        value: /^[^\n]{0,60}?(?::|=>|=)\s*["']?([A-Za-z0-9/+=]{40})/,
      },
      AWSAccountID: { id: null, kind: "token" },
    },
  },
  gcp: {
    anchor: "private_key",
    messages: { "*": { id: "gcp-service-account", kind: "block" } },
  },
  npm: {
    anchor: "npm_|_authToken=|x-oauth-basic",
    messages: {
      NPM_ACCESS_TOKEN: token("npm-token", /^npm_/),
      Npmrc_authToken: token("npm-token"),
      PackageJSON_xOauthToken: token("github-token"),
    },
  },
  slack: {
    anchor: "xox[abeoprs]-|xapp-|hooks\\.slack\\.com",
    messages: {
      SLACK_TOKEN: token("slack-token", /^[a-z]+-/),
      IncomingWebhook: token("slack-webhook", /^https:\/\/hooks\.slack\.com\/services\//i),
    },
  },
  basicauth: {
    anchor: "://[^\\s:@/?#]{0,128}:[^\\s@/?#]{1,256}@",
    messages: { "*": { id: "url-password", kind: "password" } },
  },
  openai: { anchor: "T3BlbkFJ", messages: { "*": token("openai-api-key", /^sk-(?:[a-z]+-)?/) } },
  anthropic: {
    anchor: "sk-ant-",
    messages: { "*": token("anthropic-api-key", /^sk-ant-[a-z0-9]+-/) },
  },
  groq: { anchor: "gsk_", messages: { "*": token("groq-api-key", /^gsk_/) } },
  huggingface: { anchor: "hf_", messages: { "*": token("huggingface-token", /^hf_/) } },
  linear: { anchor: "lin_api_", messages: { "*": token("linear-api-key", /^lin_api_/) } },
  notion: { anchor: "ntn_", messages: { "*": token("notion-token", /^ntn_/) } },
  privatekey: { anchor: "PRIVATE KEY", messages: { "*": { id: "private-key", kind: "block" } } },
  sendgrid: { anchor: "SG\\.", messages: { "*": token("sendgrid-api-key", /^SG\./, 60) } },
  shopify: { anchor: "shp(?:pa|ca|at|ss)_", messages: { "*": token("shopify-token", /^[a-z]+_/) } },
  stripe: {
    anchor: "[rs]k_(?:live|test)_",
    messages: { "*": token("stripe-key", /^[a-z]+_[a-z]+_/) },
  },
  github: {
    anchor: "gh[opsur]_|github_pat_",
    messages: { "*": token("github-token", /^(?:github_pat|gh[a-z])_(?:[0-9]+_)?/) },
  },
  gitlab: { anchor: "glpat-", messages: { "*": token("gitlab-token", /^glpat-/) } },
  grafana: { anchor: "glc_|glsa_", messages: { "*": token("grafana-token", /^gl[a-z]+_/) } },
  "1password": { anchor: "ops_ey", messages: { "*": { id: "1password-token", kind: "block" } } },
  "database-connection-string": {
    anchor: "://[^\\s:@/?#]{0,128}:[^\\s@/?#]{1,256}@",
    messages: { "*": { id: "url-password", kind: "password" } },
  },
  "hashicorp-vault": {
    anchor: "hv[bsr]\\.",
    messages: { "*": token("vault-token", /^hv[a-z]\./) },
  },
  vercel: { anchor: "vc[acikpr]_", messages: { "*": token("vercel-token", /^[a-z]+_/) } },
  databricks: { anchor: "dapi", messages: { "*": token("databricks-token", /^dapi/) } },
  docker: { anchor: "dckr_pat_", messages: { "*": token("docker-token", /^dckr_pat_/) } },
  figma: { anchor: "figd_", messages: { "*": token("figma-token", /^figd_/) } },
  cloudflare: {
    anchor: "cf(?:k|ut|at)_",
    messages: { "*": token("cloudflare-token", /^[a-z]+_/) },
  },
  tailscale: { anchor: "tskey-", messages: { "*": token("tailscale-key", /^tskey-[a-z]+-/) } },
};

/** secretlint's rule API, as far as memo uses it (see `@secretlint/types`). */
interface RuleCreator {
  meta: { id: string; type?: string };
  create(
    context: unknown,
    options: Record<string, unknown>,
  ): { file?(source: unknown): void | Promise<void> };
}

/** Rules whose options memo sets: AWS key ids are found on their own too. */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {
  aws: { enableIDScanRule: true },
};

/** secretlint's rule name without its package scope. */
function shortName(id: string): string {
  return id.replace(/^@secretlint\/secretlint-rule-/, "");
}

/**
 * Runs every rule over one text, synchronously, adding what they find to `into`. (Only the GCP
 * rule's `.p12` check is asynchronous, and it never runs: notes are scanned as `.md` text.)
 */
export type SecretlintScan = (text: string, into: SecretMatch[]) => void;

let loading: Promise<SecretlintScan> | undefined;

/**
 * The scanner: loads the preset on its first call (once per process; a failed load is tried
 * again at the next call) and returns the function that runs its rules.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { secretlintScanner } from "./_secretlint.ts";
 * const scan = await secretlintScanner();
 * const found: { rule: string; start: number; end: number }[] = [];
 * scan("token glpat-Zr8vQ2mW4kT9xN1pLc7H in a note", found);
 * assert.deepEqual(found, [{ rule: "gitlab-token", start: 6, end: 32 }]);
 * ```
 */
export function secretlintScanner(): Promise<SecretlintScan> {
  if (!loading) {
    const attempt = load();
    loading = attempt;
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

async function load(): Promise<SecretlintScan> {
  const preset = await import("@secretlint/secretlint-rule-preset-recommend");
  const rules = (preset as unknown as { rules: RuleCreator[] }).rules;
  let sink: { text: string; into: SecretMatch[] } | undefined;
  const handlers: { anchor: RegExp; file?(source: unknown): void | Promise<void> }[] = [];
  for (const rule of rules) {
    const name = shortName(rule.meta.id);
    const mapping = SECRETLINT_RULES[name];
    if (!mapping) continue; // filter-comments: memo does not honour secretlint-disable comments
    const context = {
      sharedOptions: {},
      // The message id only: no message ever holds the value.
      createTranslator: () => (messageId: string) => ({ message: messageId, messageId }),
      ignore: () => {},
      report: (d: { message: { messageId: string }; range: [number, number] }) => {
        if (!sink) return;
        const m = mapping.messages[d.message.messageId] ?? mapping.messages["*"];
        const found = m ? accept(m, sink.text, d.range) : undefined;
        if (found) sink.into.push(found);
      },
    };
    const handler = rule.create(context, RULE_OPTIONS[name] ?? {});
    handlers.push({ anchor: new RegExp(mapping.anchor), file: handler.file?.bind(handler) });
  }
  return (text, into) => {
    const source = { content: text, ext: ".md", contentType: "text" };
    sink = { text, into };
    try {
      // A rule whose anchor is not in the text cannot report: it is not run.
      for (const handler of handlers) if (handler.anchor.test(text)) handler.file?.(source);
    } finally {
      sink = undefined;
    }
  };
}

/** The finding for one report, or undefined when it is not a secret. */
function accept(m: Mapping, text: string, range: [number, number]): SecretMatch | undefined {
  if (m.id === null) return undefined;
  let [start, end] = range;
  if (m.value) {
    const found = m.value.exec(text.slice(start, start + 160));
    if (!found) return undefined;
    start += found[0].length - found[1].length;
    end = start + found[1].length;
  }
  const value = text.slice(start, end);
  if (m.kind === "block") return { rule: m.id, start, end };
  if (m.kind === "password") {
    // Only the password of `scheme://user:password@host` is redacted.
    const at = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^\s:@/?#]*):([^\s@/?#]+)@/.exec(value);
    if (!at) return undefined;
    const password = at[2];
    if (password === at[1] || isPlaceholder(password)) return undefined;
    const from = start + at[0].length - 1 - password.length;
    return { rule: m.id, start: from, end: from + password.length };
  }
  if (m.minLength !== undefined && value.length < m.minLength) return undefined;
  if (isPlaceholder(value)) return undefined;
  const random = m.prefix ? value.replace(m.prefix, "") : value;
  return looksRandom(random) ? { rule: m.id, start, end } : undefined;
}
