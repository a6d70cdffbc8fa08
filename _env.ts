/**
 * Reading `MEMO_*` variables from a plain environment map, the same way for
 * the runtimes, the server and the CLI: a value is trimmed, an empty one
 * counts as unset, and a malformed one is a "Cannot read NAME: …" error.
 *
 * @module
 */

/**
 * A string-to-string map of environment values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type EnvMap, envString } from "./_env.ts";
 *
 * const env: EnvMap = { MEMO_ROOT_DIR: "/srv/notes", MEMO_RUNTIME: undefined };
 * assert.equal(envString(env, "MEMO_ROOT_DIR"), "/srv/notes");
 * assert.equal(envString(env, "MEMO_RUNTIME"), undefined);
 * ```
 */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/**
 * The trimmed value of `name`, or undefined when it is unset or blank.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envString } from "./_env.ts";
 *
 * assert.equal(envString({ A: " x " }, "A"), "x");
 * assert.equal(envString({ A: "  " }, "A"), undefined);
 * ```
 */
export function envString(env: EnvMap, name: string): string | undefined {
  const value = env[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * `true`/`1`/`yes` or `false`/`0`/`no` (any case); undefined when unset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envBoolean } from "./_env.ts";
 *
 * assert.equal(envBoolean({ RO: "Yes" }, "RO"), true);
 * assert.throws(() => envBoolean({ RO: "maybe" }, "RO"), /Cannot read RO: expected true or false/);
 * ```
 */
export function envBoolean(env: EnvMap, name: string): boolean | undefined {
  const value = envString(env, name)?.toLowerCase();
  if (value === undefined) return undefined;
  if (value === "true" || value === "1" || value === "yes") return true;
  if (value === "false" || value === "0" || value === "no") return false;
  throw new Error(`Cannot read ${name}: expected true or false`);
}

/**
 * A positive integer written in decimal digits; undefined when unset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envPositiveInt } from "./_env.ts";
 *
 * assert.equal(envPositiveInt({ N: "25" }, "N"), 25);
 * assert.throws(() => envPositiveInt({ N: "0" }, "N"), /expected a positive integer, got 0/);
 * ```
 */
export function envPositiveInt(env: EnvMap, name: string): number | undefined {
  const value = envString(env, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`Cannot read ${name}: expected a positive integer, got ${value.slice(0, 40)}`);
  }
  return n;
}

/**
 * One of `choices` (compared in lower case); undefined when unset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { envChoice } from "./_env.ts";
 *
 * assert.equal(envChoice({ M: "Local" }, "M", ["local", "cloud"]), "local");
 * assert.throws(() => envChoice({ M: "mars" }, "M", ["local", "cloud"]), /expected local or cloud, got mars/);
 * ```
 */
export function envChoice<T extends string>(
  env: EnvMap,
  name: string,
  choices: readonly T[],
): T | undefined {
  const value = envString(env, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if ((choices as readonly string[]).includes(lower)) return lower as T;
  const list = choices.length > 1
    ? `${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}`
    : choices.join("");
  throw new Error(`Cannot read ${name}: expected ${list}, got ${value.slice(0, 40)}`);
}

/**
 * Splits a comma-separated list, trimming and dropping empty entries.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitList } from "./_env.ts";
 *
 * assert.deepEqual(splitList(" a, ,b "), ["a", "b"]);
 * ```
 */
export function splitList(value: string): string[] {
  return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
}
