/**
 * The scopes a local or hybrid runtime serves, from `.memo/config.json` (`scopes`,
 * `defaultScope`), `MEMO_HOME` and whether the endpoint is hosted.
 *
 * @module
 */

import type { Scope, ScopeSettings } from "@memo/memory";
import { memoHomeOf } from "../env.ts";
import type { RuntimeScopes } from "./_read_types.ts";

/**
 * What serves which scopes: the configured ones (every one by default; `user` only where a home
 * folder is known), or the project alone when `hosted` says why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scopeSettingsOf } from "./scopes.ts";
 * const mine = scopeSettingsOf({}, { HOME: "/home/ada" });
 * assert.deepEqual(mine.profile.served, ["project", "local", "user"]);
 * assert.equal(mine.settings.memoHome, "/home/ada/.local/share/memo");
 * const hosted = scopeSettingsOf({}, { HOME: "/home/ada" }, "this endpoint is hosted");
 * assert.deepEqual(hosted.profile.served, ["project"]);
 * assert.equal(hosted.settings.memoHome, undefined);
 * ```
 */
export function scopeSettingsOf(
  file: { scopes?: Scope[]; defaultScope?: Scope },
  env: Readonly<Record<string, string | undefined>>,
  hosted?: string,
): { settings: ScopeSettings; profile: RuntimeScopes } {
  const memoHome = hosted ? undefined : memoHomeOf(env);
  const wanted: Scope[] = hosted ? ["project"] : file.scopes ?? ["project", "local", "user"];
  const served = (["project", "local", "user"] as const).filter((s) =>
    wanted.includes(s) && (s !== "user" || memoHome !== undefined)
  );
  const defaultScope = file.defaultScope && served.includes(file.defaultScope)
    ? file.defaultScope
    : served.includes("project")
    ? "project"
    : served[0];
  const refusal = hosted ??
    (memoHome === undefined && wanted.includes("user")
      ? "no home folder is known (set MEMO_HOME)"
      : "the project's .memo/config.json leaves it out of scopes");
  return {
    settings: { serve: served, defaultScope, memoHome, refusal },
    profile: { served, defaultScope, refusal },
  };
}
