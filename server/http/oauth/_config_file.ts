/**
 * The `oauth` block of `.memo/config.json`: {@linkcode readProjectOAuthConfig} checks it and
 * refuses any secret in it. `config.ts` re-exports it.
 *
 * @module
 */

import type { ProjectOAuthConfig } from "./_config_types.ts";
import { parseScopePair } from "../../../env.ts";

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
 * Reads the `oauth` block of a parsed `.memo/config.json`; undefined when there is none. Refuses a
 * client secret (it comes only from `MEMO_OAUTH_INTROSPECTION_CLIENT_SECRET` or code), an unknown
 * key and a value of the wrong type, without repeating a value.
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
