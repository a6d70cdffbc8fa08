/**
 * Notion identifiers and tokens as people paste them.
 *
 * @module
 */

import { ConnectorConfigError } from "../errors.ts";
import { cleanToken } from "../kit/text.ts";

/**
 * Normalises a Notion id given with or without hyphens, or inside a pasted URL
 * (`https://www.notion.so/team/Roadmap-0123…cdef?v=…`), to the hyphenated lower-case form Notion
 * returns. Throws `ConnectorConfigError` when no id is found.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeNotionId } from "@memo/connectors";
 * assert.equal(
 *   normalizeNotionId("https://www.notion.so/acme/Roadmap-0123456789abcdef0123456789abcdef?v=1"),
 *   "01234567-89ab-cdef-0123-456789abcdef",
 * );
 * ```
 */
export function normalizeNotionId(raw: string, what = "database id"): string {
  const text = typeof raw === "string" ? raw.trim() : "";
  let candidate = text;
  if (/^https?:\/\//i.test(text)) {
    let path = "";
    try {
      path = decodeURIComponent(new URL(text).pathname);
    } catch {
      path = "";
    }
    const matches = path.replace(/-/g, "").match(/[0-9a-f]{32}/gi) ?? [];
    const tail = path.match(
      /([0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?$/i,
    );
    candidate = tail ? tail[1] : matches.at(-1) ?? "";
  }
  const hex = candidate.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex) || !/^[0-9a-fA-F-]+$/.test(candidate)) {
    throw new ConnectorConfigError(
      `Cannot use Notion ${what}: give the 32-character id (with or without hyphens) or the page's URL`,
    );
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/**
 * Prefixes of Notion internal integration secrets.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NOTION_TOKEN_PREFIXES } from "@memo/connectors";
 * assert.deepEqual(NOTION_TOKEN_PREFIXES, ["secret_", "ntn_"]);
 * ```
 */
export const NOTION_TOKEN_PREFIXES: readonly string[] = ["secret_", "ntn_"];

/**
 * Checks a Notion token: surrounding white space and a pasted `Bearer ` prefix are dropped; the
 * rest must start with `secret_` or `ntn_`. Throws `ConnectorConfigError` (never quoting the token)
 * otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectorConfigError, normalizeNotionToken } from "@memo/connectors";
 * assert.equal(normalizeNotionToken("  Bearer ntn_abc123  "), "ntn_abc123");
 * assert.throws(() => normalizeNotionToken("ghp_not_notion"), ConnectorConfigError);
 * ```
 */
export function normalizeNotionToken(raw: string | undefined): string {
  const token = cleanToken(raw);
  if (token === undefined) {
    throw new ConnectorConfigError(
      "Cannot read Notion pages: no token is set; set MEMO_NOTION_TOKEN or NOTION_TOKEN to the integration secret",
    );
  }
  if (!NOTION_TOKEN_PREFIXES.some((p) => token.startsWith(p)) || /\s/.test(token)) {
    throw new ConnectorConfigError(
      "Cannot read Notion pages: the token is not an integration secret (it must start with secret_ or ntn_); check MEMO_NOTION_TOKEN or NOTION_TOKEN",
    );
  }
  return token;
}
