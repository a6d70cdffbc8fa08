/**
 * The user scope's own configuration, `$MEMO_HOME/config.json`: it configures the user store
 * alone, for example a hybrid runtime of its own, so that a person's memory follows them across
 * machines (a cloud project of its own, separate from any team's). It is parsed by the parser of
 * the project's `.memo/config.json`; it may hold `runtime` (`local` or `hybrid`) and `cloud`, and
 * never the API key, which comes from `MEMO_USER_CLOUD_API_KEY`.
 *
 * @module
 */

import { MemoRuntimeError } from "../errors.ts";
import { parseProjectRuntimeConfig, type ProjectRuntimeConfig } from "../cloud/config.ts";

/** The file named in errors. */
const FILE = "$MEMO_HOME/config.json";
/** The variable that holds the API key of the user scope's cloud. */
export const USER_CLOUD_API_KEY_VARIABLE = "MEMO_USER_CLOUD_API_KEY";
/** Keys of the project's file that mean nothing for the user store alone. */
const PROJECT_ONLY = ["scopes", "defaultScope", "recall", "secrets"] as const;

/**
 * What `$MEMO_HOME/config.json` says: the user store's `runtime` (`local`, the default, or
 * `hybrid`) and the `cloud` block of its hybrid runtime (`baseUrl`, `workspaceId`, `projectId`,
 * `timeoutMs`, `retry`, `pullIntervalMs`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { UserRuntimeConfig } from "./user_config.ts";
 * const config: UserRuntimeConfig = {
 *   runtime: "hybrid",
 *   cloud: { baseUrl: "https://cloud.example", workspaceId: "ada", projectId: "me" },
 * };
 * assert.equal(config.cloud.projectId, "me");
 * ```
 */
export interface UserRuntimeConfig {
  /** `runtime`: `local` (a plain local store) or `hybrid`; absent: local. */
  runtime?: "local" | "hybrid";
  /** `cloud`: the user scope's own cloud project. */
  cloud: ProjectRuntimeConfig["cloud"];
}

/**
 * Checks a parsed `$MEMO_HOME/config.json`, with the project file's parser. Refused, with a
 * `MemoRuntimeError` (`CONFIG`) that names the file and never repeats a value: the `cloud`
 * runtime (the user scope is a store on this machine, replicated or not), an API key in `cloud`,
 * and the keys that only a project means (`scopes`, `defaultScope`, `recall`, `secrets`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseUserRuntimeConfig } from "./user_config.ts";
 * const cloud = { baseUrl: "https://cloud.example", projectId: "ada" };
 * assert.deepEqual(parseUserRuntimeConfig({ runtime: "hybrid", cloud }), { runtime: "hybrid", cloud });
 * assert.throws(() => parseUserRuntimeConfig({ runtime: "cloud" }), {
 *   code: "CONFIG",
 *   message: /^Cannot read \$MEMO_HOME\/config.json: runtime must be local or hybrid/,
 * });
 * assert.throws(() => parseUserRuntimeConfig({ cloud: { apiKey: "mk_secret" } }), {
 *   message: /comes only from MEMO_USER_CLOUD_API_KEY/,
 * });
 * assert.throws(() => parseUserRuntimeConfig({ scopes: ["user"] }), { message: /scopes/ });
 * ```
 */
export function parseUserRuntimeConfig(parsed: unknown): UserRuntimeConfig {
  const config = parseProjectRuntimeConfig(parsed, {
    file: FILE,
    apiKeyVariable: USER_CLOUD_API_KEY_VARIABLE,
  });
  const fail = (reason: string) => new MemoRuntimeError("CONFIG", `Cannot read ${FILE}: ${reason}`);
  if (config.runtime === "cloud") {
    throw fail("runtime must be local or hybrid (the user scope is a store on this machine)");
  }
  for (const key of PROJECT_ONLY) {
    if (config[key] !== undefined) {
      throw fail(`${key} is a project's setting: this file configures the user store alone`);
    }
  }
  return config.runtime
    ? { runtime: config.runtime, cloud: config.cloud }
    : { cloud: config.cloud };
}

/**
 * Reads `<memoHome>/config.json`. A missing file (or a platform without a file system) reads as
 * a plain local user store; a file that cannot be read, is not JSON or holds a bad value throws a
 * `MemoRuntimeError` (`CONFIG`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readUserRuntimeConfig } from "./user_config.ts";
 * const home = await Deno.makeTempDir();
 * assert.deepEqual(await readUserRuntimeConfig(home), { cloud: {} });
 * const cloud = { baseUrl: "http://127.0.0.1:8788", workspaceId: "ada", projectId: "me" };
 * await Deno.writeTextFile(`${home}/config.json`, JSON.stringify({ runtime: "hybrid", cloud }));
 * assert.deepEqual(await readUserRuntimeConfig(home), { runtime: "hybrid", cloud });
 * await Deno.writeTextFile(`${home}/config.json`, "{");
 * await assert.rejects(readUserRuntimeConfig(home), { message: /is not valid JSON/ });
 * await Deno.remove(home, { recursive: true });
 * ```
 */
export async function readUserRuntimeConfig(memoHome: string): Promise<UserRuntimeConfig> {
  let readFile: (path: string, encoding: "utf8") => Promise<string>;
  try {
    ({ readFile } = await import("node:fs/promises"));
  } catch {
    return { cloud: {} }; // no file system (an edge worker): no user file
  }
  let text: string;
  try {
    text = await readFile(`${memoHome.replace(/[\\/]+$/, "") || "/"}/config.json`, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { cloud: {} };
    throw new MemoRuntimeError("CONFIG", `Cannot read ${FILE}: ${code ?? "it cannot be opened"}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MemoRuntimeError("CONFIG", `Cannot read ${FILE}: it is not valid JSON`);
  }
  return parseUserRuntimeConfig(parsed);
}
