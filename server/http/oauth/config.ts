/**
 * The configuration of the hosted endpoint as an OAuth 2.1 resource server: the `auth.oauth` option
 * ({@linkcode MemoMcpOAuthOptions}), the `MEMO_OAUTH_*` variables, the `oauth` block of
 * `.memo/config.json`, and {@linkcode resolveOAuthConfig}, which lays them over each other (code >
 * variables > file > defaults) and refuses a configuration that cannot work. The introspection
 * client secret comes only from code or the environment.
 *
 * @module
 */

import { type EnvMap, MEMO_ENV_VARIABLES, readEnv } from "../../../env.ts";
import type {
  MemoMcpOAuthIntrospection,
  MemoMcpOAuthOptions,
  ProjectOAuthConfig,
  ResolvedOAuthConfig,
} from "./_config_types.ts";

export type {
  MemoMcpOAuthIntrospection,
  MemoMcpOAuthOptions,
  MemoMcpOAuthScopes,
  ProjectOAuthConfig,
  ResolvedOAuthConfig,
} from "./_config_types.ts";
export { parseScopePair } from "../../../env.ts";

/**
 * The `MEMO_OAUTH_*` variables, in the order docs/oauth.md lists them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OAUTH_ENV_VARIABLES } from "./config.ts";
 *
 * assert.equal(OAUTH_ENV_VARIABLES[0], "MEMO_OAUTH_ISSUER");
 * assert.equal(OAUTH_ENV_VARIABLES.length, 8);
 * ```
 */
export const OAUTH_ENV_VARIABLES: readonly string[] = MEMO_ENV_VARIABLES
  .filter((variable) => variable.section === "oauth").map((variable) => variable.name);
export { readProjectOAuthConfig } from "./_config_file.ts";

const DEFAULT_SCOPES = { read: "memo:read", write: "memo:write" } as const;
const DEFAULT_LEEWAY_SECONDS = 30;
const MAX_LEEWAY_SECONDS = 300;

/**
 * The well-known path of Protected Resource Metadata (RFC 9728).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PROTECTED_RESOURCE_WELL_KNOWN } from "./config.ts";
 *
 * assert.equal(PROTECTED_RESOURCE_WELL_KNOWN, "/.well-known/oauth-protected-resource");
 * ```
 */
export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

function fail(reason: string): Error {
  return new Error(`Cannot configure OAuth: ${reason}`);
}
/**
 * Lays the code options over the variables over the project file, applies the defaults and checks
 * the result. Returns undefined when none of them configures OAuth; throws a "Cannot configure
 * OAuth: …" error for a configuration that cannot work (a missing issuer or resource, a URL that is
 * neither https nor http on loopback, a resource with a query or a fragment, half an introspection
 * client, a bad leeway).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveOAuthConfig } from "./config.ts";
 *
 * assert.equal(resolveOAuthConfig(undefined, {}), undefined);
 * const env = { MEMO_OAUTH_ISSUER: "https://id.example.com", MEMO_OAUTH_RESOURCE: "https://memo.example.com/mcp" };
 * const fromCode = resolveOAuthConfig({ issuer: "https://other.example.com", resource: env.MEMO_OAUTH_RESOURCE }, env)!;
 * assert.equal(fromCode.issuer, "https://other.example.com"); // code wins over the variable
 * const fromFile = resolveOAuthConfig(undefined, env, { issuer: "https://file.example.com", leewaySeconds: 5 })!;
 * assert.equal(fromFile.issuer, "https://id.example.com"); // the variable wins over the file
 * assert.equal(fromFile.leewaySeconds, 5);
 * assert.throws(
 *   () => resolveOAuthConfig(undefined, { MEMO_OAUTH_ISSUER: "https://id.example.com" }),
 *   /Cannot configure OAuth: the resource is missing \(MEMO_OAUTH_RESOURCE\)/,
 * );
 * assert.throws(
 *   () => resolveOAuthConfig(undefined, { ...env, MEMO_OAUTH_ISSUER: "http://id.example.com" }),
 *   /the issuer must be an https URL/,
 * );
 * ```
 */
export function resolveOAuthConfig(
  code: Partial<MemoMcpOAuthOptions> | undefined,
  env: EnvMap,
  file?: ProjectOAuthConfig,
): ResolvedOAuthConfig | undefined {
  const fromEnv = readEnv(env, "oauth") as Partial<MemoMcpOAuthOptions>;
  if (code === undefined && Object.keys(fromEnv).length === 0 && file === undefined) {
    return undefined;
  }
  const pick = <K extends keyof ProjectOAuthConfig & keyof MemoMcpOAuthOptions>(key: K) =>
    code?.[key] ?? fromEnv[key] ?? file?.[key];
  const issuer = pick("issuer");
  const resource = pick("resource");
  if (issuer === undefined) throw fail("the issuer is missing (MEMO_OAUTH_ISSUER)");
  if (resource === undefined) throw fail("the resource is missing (MEMO_OAUTH_RESOURCE)");
  const issuerUrl = checkUrl("issuer", issuer);
  if (issuerUrl.search !== "" || issuerUrl.hash !== "") {
    throw fail("the issuer must have no query and no fragment");
  }
  const resourceUrl = checkUrl("resource", resource);
  if (resourceUrl.search !== "" || resourceUrl.hash !== "") {
    throw fail("the resource must have no query and no fragment");
  }
  const canonical = canonicalResource(resourceUrl);
  const resourcePath = resourceUrl.pathname === "/"
    ? "/"
    : canonical.slice(resourceUrl.origin.length);
  const scopes = {
    read: code?.scopes?.read ?? fromEnv.scopes?.read ?? file?.scopes?.read ?? DEFAULT_SCOPES.read,
    write: code?.scopes?.write ?? fromEnv.scopes?.write ?? file?.scopes?.write ??
      DEFAULT_SCOPES.write,
  };
  for (const scope of [scopes.read, scopes.write]) {
    if (scope === "" || /[\s"\\]/.test(scope)) {
      throw fail(`the scope ${JSON.stringify(scope)} is not a valid scope name`);
    }
  }
  if (scopes.read === scopes.write) throw fail("the read and write scopes must differ");
  const jwksUri = pick("jwksUri");
  if (jwksUri !== undefined) checkUrl("JWKS URI", jwksUri);
  const introspection = {
    url: code?.introspection?.url ?? fromEnv.introspection?.url ?? file?.introspection?.url,
    clientId: code?.introspection?.clientId ?? fromEnv.introspection?.clientId ??
      file?.introspection?.clientId,
    clientSecret: code?.introspection?.clientSecret ?? fromEnv.introspection?.clientSecret,
  };
  const introspectionSet = Object.values(introspection).some((v) => v !== undefined);
  if (introspectionSet) {
    if (introspection.url === undefined) {
      throw fail("introspection needs its URL (MEMO_OAUTH_INTROSPECTION_URL)");
    }
    if (introspection.clientId === undefined) {
      throw fail("introspection needs a client id (MEMO_OAUTH_INTROSPECTION_CLIENT_ID)");
    }
    if (introspection.clientSecret === undefined) {
      throw fail("introspection needs a client secret (MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET)");
    }
    checkUrl("introspection URL", introspection.url);
  }
  const leewaySeconds = pick("leewaySeconds") ?? DEFAULT_LEEWAY_SECONDS;
  if (!Number.isInteger(leewaySeconds) || leewaySeconds < 0 || leewaySeconds > MAX_LEEWAY_SECONDS) {
    throw fail(`leewaySeconds must be an integer from 0 to ${MAX_LEEWAY_SECONDS}`);
  }
  const pageClientId = pick("pageClientId");
  const out: ResolvedOAuthConfig = {
    issuer,
    resource: canonical,
    resourcePath,
    metadataUrl: resourceUrl.origin + PROTECTED_RESOURCE_WELL_KNOWN +
      (resourcePath === "/" ? "" : resourcePath),
    scopes,
    leewaySeconds,
    fetch: code?.fetch ?? ((input, init) => fetch(input, init)),
  };
  if (jwksUri !== undefined) out.jwksUri = jwksUri;
  if (introspectionSet) out.introspection = introspection as MemoMcpOAuthIntrospection;
  if (pageClientId !== undefined && pageClientId !== "") out.pageClientId = pageClientId;
  return out;
}

/**
 * The canonical form of a resource URL (RFC 8707, MCP): lower-case scheme and host (as `URL` writes
 * them), no default port, no trailing slash unless the path is `/` alone, which is dropped too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { canonicalResource } from "./config.ts";
 *
 * assert.equal(canonicalResource(new URL("HTTPS://Memo.Example.com:443/mcp/")), "https://memo.example.com/mcp");
 * assert.equal(canonicalResource(new URL("https://memo.example.com/")), "https://memo.example.com");
 * ```
 */
export function canonicalResource(url: URL): string {
  const path = url.pathname.replace(/\/+$/, "");
  return url.origin + path;
}

function checkUrl(what: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail(`the ${what} must be an absolute URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw fail(`the ${what} must not hold credentials`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHostname(url.hostname)) return url;
  throw fail(`the ${what} must be an https URL (http only on loopback)`);
}

function isLoopbackHostname(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
