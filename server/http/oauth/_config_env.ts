/**
 * The `MEMO_OAUTH_*` variables: their names, {@linkcode readOAuthEnv}, and
 * {@linkcode parseScopePair}, which reads `read,write` for the variables and
 * the project file alike. `config.ts` re-exports them.
 *
 * @module
 */

import { type EnvMap, envString } from "../../../_env.ts";
import type { MemoMcpOAuthOptions, MemoMcpOAuthScopes } from "./_config_types.ts";

/**
 * The `MEMO_OAUTH_*` variables, in the order the docs list them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OAUTH_ENV_VARIABLES } from "./config.ts";
 *
 * assert.ok(OAUTH_ENV_VARIABLES.includes("MEMO_OAUTH_ISSUER"));
 * ```
 */
export const OAUTH_ENV_VARIABLES: readonly string[] = [
  "MEMO_OAUTH_ISSUER",
  "MEMO_OAUTH_RESOURCE",
  "MEMO_OAUTH_SCOPES",
  "MEMO_OAUTH_JWKS_URI",
  "MEMO_OAUTH_INTROSPECTION_URL",
  "MEMO_OAUTH_INTROSPECTION_CLIENT_ID",
  "MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET",
  "MEMO_OAUTH_PAGE_CLIENT_ID",
];

/**
 * Reads the `MEMO_OAUTH_*` variables; an unset (or empty) one is absent.
 * `MEMO_OAUTH_SCOPES` is `read,write`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readOAuthEnv } from "./config.ts";
 *
 * assert.deepEqual(readOAuthEnv({}), {});
 * assert.deepEqual(readOAuthEnv({ MEMO_OAUTH_SCOPES: "r, w" }), { scopes: { read: "r", write: "w" } });
 * assert.throws(() => readOAuthEnv({ MEMO_OAUTH_SCOPES: "only-one" }), /Cannot read MEMO_OAUTH_SCOPES/);
 * ```
 */
export function readOAuthEnv(env: EnvMap): Partial<MemoMcpOAuthOptions> {
  const out: Partial<MemoMcpOAuthOptions> = {};
  const issuer = envString(env, "MEMO_OAUTH_ISSUER");
  if (issuer !== undefined) out.issuer = issuer;
  const resource = envString(env, "MEMO_OAUTH_RESOURCE");
  if (resource !== undefined) out.resource = resource;
  const scopes = envString(env, "MEMO_OAUTH_SCOPES");
  if (scopes !== undefined) {
    try {
      out.scopes = parseScopePair(scopes);
    } catch (e) {
      throw new Error(`Cannot read MEMO_OAUTH_SCOPES: ${(e as Error).message}`);
    }
  }
  const jwksUri = envString(env, "MEMO_OAUTH_JWKS_URI");
  if (jwksUri !== undefined) out.jwksUri = jwksUri;
  const url = envString(env, "MEMO_OAUTH_INTROSPECTION_URL");
  const clientId = envString(env, "MEMO_OAUTH_INTROSPECTION_CLIENT_ID");
  const clientSecret = envString(env, "MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET");
  if (url !== undefined || clientId !== undefined || clientSecret !== undefined) {
    out.introspection = { url: url!, clientId: clientId!, clientSecret: clientSecret! };
    for (const [k, v] of Object.entries(out.introspection)) {
      if (v === undefined) delete (out.introspection as unknown as Record<string, unknown>)[k];
    }
  }
  const page = envString(env, "MEMO_OAUTH_PAGE_CLIENT_ID");
  if (page !== undefined) out.pageClientId = page;
  return out;
}

/**
 * Parses `read,write` (two scope names, comma-separated).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScopePair } from "./config.ts";
 *
 * assert.deepEqual(parseScopePair("memo:read,memo:write"), { read: "memo:read", write: "memo:write" });
 * assert.throws(() => parseScopePair("a,a"), /two different scopes/);
 * ```
 */
export function parseScopePair(text: string): Required<MemoMcpOAuthScopes> {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length !== 2 || parts.some((p) => p === "")) {
    throw new Error("it needs the read scope and the write scope, comma-separated");
  }
  const [read, write] = parts;
  if (read === write) throw new Error("it needs two different scopes");
  return { read, write };
}
