/**
 * The configuration of the hosted endpoint as an OAuth 2.1 resource server:
 * the `auth.oauth` option ({@linkcode MemoMcpOAuthOptions}), the
 * `MEMO_OAUTH_*` variables, the `oauth` block of `.memo/config.json`, and
 * {@linkcode resolveOAuthConfig}, which lays them over each other (code >
 * variables > file > defaults) and refuses a configuration that cannot work.
 * The introspection client secret comes only from code or the environment.
 *
 * @module
 */

import { type EnvMap, envString } from "../../../_env.ts";

/**
 * The two scopes memo knows: one to read, one to read and write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoMcpOAuthScopes, resolveOAuthConfig } from "./config.ts";
 *
 * const scopes: MemoMcpOAuthScopes = { read: "notes.read", write: "notes.write" };
 * const config = resolveOAuthConfig(
 *   { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", scopes },
 *   {},
 * )!;
 * assert.deepEqual(config.scopes, scopes);
 * ```
 */
export interface MemoMcpOAuthScopes {
  /**
   * The scope that lets a caller read.
   * @default "memo:read"
   */
  read?: string;
  /**
   * The scope that lets a caller write (and read: it implies the read scope).
   * @default "memo:write"
   */
  write?: string;
}

/**
 * How memo asks the authorization server about an opaque token (RFC 7662),
 * authenticating as a confidential client with HTTP Basic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MemoMcpOAuthIntrospection, resolveOAuthConfig } from "./config.ts";
 *
 * const introspection: MemoMcpOAuthIntrospection = {
 *   url: "https://id.example.com/introspect",
 *   clientId: "memo",
 *   clientSecret: "s3cret",
 * };
 * const config = resolveOAuthConfig(
 *   { issuer: "https://id.example.com", resource: "https://memo.example.com/mcp", introspection },
 *   {},
 * )!;
 * assert.equal(config.introspection?.url, "https://id.example.com/introspect");
 * ```
 */
export interface MemoMcpOAuthIntrospection {
  /** The introspection endpoint (`MEMO_OAUTH_INTROSPECTION_URL`). */
  url: string;
  /** memo's client id at the authorization server (`MEMO_OAUTH_INTROSPECTION_CLIENT_ID`). */
  clientId: string;
  /** Its secret (`MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET`); never from `.memo/config.json`. */
  clientSecret: string;
}

/**
 * `auth.oauth`: the endpoint is an OAuth 2.1 protected resource. memo never
 * issues tokens: it trusts the authorization server `issuer` names, checks
 * each access token (a JWT against the issuer's keys, or an opaque token by
 * introspection), publishes its Protected Resource Metadata (RFC 9728) and
 * answers 401 and 403 with the challenges MCP clients follow. Each field
 * wins over its `MEMO_OAUTH_*` variable.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { MemoMcpOAuthOptions } from "@memo/mcp-server/http";
 * import { resolveOAuthConfig } from "./config.ts";
 *
 * const oauth: MemoMcpOAuthOptions = {
 *   issuer: "https://id.example.com/realms/team",
 *   resource: "https://memo.example.com/mcp",
 * };
 * const config = resolveOAuthConfig(oauth, { MEMO_OAUTH_PAGE_CLIENT_ID: "memo-page" })!;
 * assert.equal(config.pageClientId, "memo-page");
 * assert.equal(
 *   config.metadataUrl,
 *   "https://memo.example.com/.well-known/oauth-protected-resource/mcp",
 * );
 * ```
 */
export interface MemoMcpOAuthOptions {
  /** The authorization server's issuer identifier (`MEMO_OAUTH_ISSUER`): https, or http on loopback. */
  issuer: string;
  /**
   * The endpoint's canonical URL (`MEMO_OAUTH_RESOURCE`), the audience every
   * token must carry (RFC 8707): https, or http on loopback; its path is the
   * MCP path.
   */
  resource: string;
  /**
   * The read and write scopes (`MEMO_OAUTH_SCOPES`, `read,write`).
   * @default {{ read: "memo:read", write: "memo:write" }}
   */
  scopes?: MemoMcpOAuthScopes;
  /**
   * Where the issuer's signing keys are (`MEMO_OAUTH_JWKS_URI`).
   * @default {the `jwks_uri` of the issuer's metadata}
   */
  jwksUri?: string;
  /**
   * Introspection of opaque tokens (RFC 7662).
   * @default {undefined: only JWT access tokens are accepted}
   */
  introspection?: MemoMcpOAuthIntrospection;
  /**
   * The client id of memo's web page (`MEMO_OAUTH_PAGE_CLIENT_ID`), a public
   * client whose redirect URI is the page's own URL.
   * @default {undefined: the page asks for an access token to paste}
   */
  pageClientId?: string;
  /**
   * Clock skew allowed on `exp` and `nbf`, in seconds (0–300).
   * @default 30
   */
  leewaySeconds?: number;
  /**
   * The fetch memo calls the authorization server with (metadata, keys,
   * introspection). It never carries a client's token anywhere else.
   * @default {globalThis.fetch}
   */
  fetch?: typeof fetch;
}

/**
 * The `oauth` block of `.memo/config.json`: every field of
 * {@linkcode MemoMcpOAuthOptions} but `fetch`, with no client secret.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ProjectOAuthConfig, readProjectOAuthConfig } from "./config.ts";
 *
 * const block: ProjectOAuthConfig = readProjectOAuthConfig({
 *   oauth: { issuer: "https://id.example.com", scopes: "notes.read,notes.write" },
 * })!;
 * assert.deepEqual(block.scopes, { read: "notes.read", write: "notes.write" });
 * ```
 */
export interface ProjectOAuthConfig {
  /** `oauth.issuer`. */
  issuer?: string;
  /** `oauth.resource`. */
  resource?: string;
  /** `oauth.scopes` (`"read,write"` or `{read, write}`). */
  scopes?: MemoMcpOAuthScopes;
  /** `oauth.jwksUri`. */
  jwksUri?: string;
  /** `oauth.introspection` (`url`, `clientId`). */
  introspection?: { url?: string; clientId?: string };
  /** `oauth.pageClientId`. */
  pageClientId?: string;
  /** `oauth.leewaySeconds`. */
  leewaySeconds?: number;
}

/**
 * An OAuth configuration with every default applied and every URL checked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ResolvedOAuthConfig, resolveOAuthConfig } from "./config.ts";
 *
 * const config: ResolvedOAuthConfig = resolveOAuthConfig(undefined, {
 *   MEMO_OAUTH_ISSUER: "http://127.0.0.1:9000",
 *   MEMO_OAUTH_RESOURCE: "http://127.0.0.1:8787/mcp",
 * })!;
 * assert.deepEqual(config.scopes, { read: "memo:read", write: "memo:write" });
 * assert.equal(config.leewaySeconds, 30);
 * assert.equal(config.resourcePath, "/mcp");
 * ```
 */
export interface ResolvedOAuthConfig {
  /** The issuer, exactly as configured (it is compared as a string). */
  issuer: string;
  /** The canonical resource URL (no trailing slash unless it is the origin's `/`). */
  resource: string;
  /** The path of {@linkcode resource} (`/` for an origin). */
  resourcePath: string;
  /** The Protected Resource Metadata URL (path-suffixed when the resource has a path). */
  metadataUrl: string;
  /** The read and write scopes. */
  scopes: Required<MemoMcpOAuthScopes>;
  /** Configured JWKS URL, if any. */
  jwksUri?: string;
  /** Introspection, if configured. */
  introspection?: MemoMcpOAuthIntrospection;
  /** The web page's client id, if any. */
  pageClientId?: string;
  /** Allowed clock skew in seconds. */
  leewaySeconds: number;
  /** The fetch for the authorization server. */
  fetch: typeof fetch;
}

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

const DEFAULT_SCOPES = { read: "memo:read", write: "memo:write" } as const;
const DEFAULT_LEEWAY_SECONDS = 30;
const MAX_LEEWAY_SECONDS = 300;
const PROJECT_KEYS = [
  "issuer",
  "resource",
  "scopes",
  "jwksUri",
  "introspection",
  "pageClientId",
  "leewaySeconds",
] as const;

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

/**
 * Reads the `oauth` block of a parsed `.memo/config.json`; undefined when
 * there is none. Refuses a client secret (it comes only from
 * `MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET` or code), an unknown key and a
 * value of the wrong type, without repeating a value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readProjectOAuthConfig } from "./config.ts";
 *
 * assert.equal(readProjectOAuthConfig({ runtime: "local" }), undefined);
 * assert.throws(
 *   () => readProjectOAuthConfig({ oauth: { introspection: { clientSecret: "hunter2" } } }),
 *   (e: Error) => /comes only from MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET/.test(e.message) &&
 *     !e.message.includes("hunter2"),
 * );
 * assert.throws(() => readProjectOAuthConfig({ oauth: { issuers: "x" } }), /unknown key oauth.issuers/);
 * ```
 */
export function readProjectOAuthConfig(file: unknown): ProjectOAuthConfig | undefined {
  if (file === null || typeof file !== "object") return undefined;
  const block = (file as Record<string, unknown>).oauth;
  if (block === undefined) return undefined;
  const bad = (reason: string) => new Error(`Cannot read .memo/config.json: ${reason}`);
  if (block === null || typeof block !== "object" || Array.isArray(block)) {
    throw bad("oauth must be an object");
  }
  const out: ProjectOAuthConfig = {};
  for (const [key, value] of Object.entries(block)) {
    if (/secret|password|token/i.test(key)) {
      throw bad(`oauth.${key} is a secret: it comes only from the environment or code`);
    }
    switch (key) {
      case "issuer":
      case "resource":
      case "jwksUri":
      case "pageClientId":
        if (typeof value !== "string") throw bad(`oauth.${key} must be a string`);
        out[key] = value;
        break;
      case "leewaySeconds":
        if (typeof value !== "number") throw bad("oauth.leewaySeconds must be a number");
        out.leewaySeconds = value;
        break;
      case "scopes":
        if (typeof value === "string") {
          try {
            out.scopes = parseScopePair(value);
          } catch (e) {
            throw bad(`oauth.scopes: ${(e as Error).message}`);
          }
        } else if (value !== null && typeof value === "object") {
          const { read, write, ...rest } = value as Record<string, unknown>;
          if (Object.keys(rest).length || [read, write].some((v) => typeof v !== "string")) {
            throw bad('oauth.scopes must be "read,write" or {"read", "write"}');
          }
          out.scopes = { read: read as string, write: write as string };
        } else throw bad('oauth.scopes must be "read,write" or {"read", "write"}');
        break;
      case "introspection": {
        if (value === null || typeof value !== "object" || Array.isArray(value)) {
          throw bad("oauth.introspection must be an object");
        }
        const intro: { url?: string; clientId?: string } = {};
        for (const [k, v] of Object.entries(value)) {
          if (k === "clientSecret" || /secret|password|token/i.test(k)) {
            throw bad(
              "the introspection client secret comes only from " +
                "MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET (or code), never from this file",
            );
          }
          if (k !== "url" && k !== "clientId") {
            throw bad(`unknown key oauth.introspection.${k} (known: url, clientId)`);
          }
          if (typeof v !== "string") throw bad(`oauth.introspection.${k} must be a string`);
          intro[k] = v;
        }
        out.introspection = intro;
        break;
      }
      default:
        throw bad(`unknown key oauth.${key} (known: ${PROJECT_KEYS.join(", ")})`);
    }
  }
  return out;
}

/**
 * Lays the code options over the variables over the project file, applies
 * the defaults and checks the result. Returns undefined when none of them
 * configures OAuth; throws a "Cannot configure OAuth: …" error for a
 * configuration that cannot work (a missing issuer or resource, a URL that
 * is neither https nor http on loopback, a resource with a query or a
 * fragment, half an introspection client, a bad leeway).
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
  const fromEnv = readOAuthEnv(env);
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
 * The canonical form of a resource URL (RFC 8707, MCP): lower-case scheme
 * and host (as `URL` writes them), no default port, no trailing slash unless
 * the path is `/` alone, which is dropped too.
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
