/**
 * The npm `exports` map of a package, derived from its `deno.json` `exports`
 * (the JSR one), and the check that the two have not drifted apart
 * (`scripts/build_npm.ts`).
 *
 * @module
 */

/** One npm export: the declarations and the ES module. */
export interface NpmExport {
  /** The `.d.ts` file, relative to the package (`./mod.d.ts`). */
  types: string;
  /** The `.js` file, relative to the package (`./mod.js`). */
  import: string;
}

/**
 * The `exports` of a `deno.json` as a map of subpath → source file (a string is
 * the `"."` export).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsrExports } from "./_npm_exports.ts";
 *
 * assert.deepEqual(jsrExports("./mod.ts"), { ".": "./mod.ts" });
 * assert.deepEqual(jsrExports({ ".": "./mod.ts", "./http": "./http.ts" }), {
 *   ".": "./mod.ts",
 *   "./http": "./http.ts",
 * });
 * ```
 */
export function jsrExports(exports: unknown): Record<string, string> {
  if (typeof exports === "string") return { ".": exports };
  if (!exports || typeof exports !== "object" || Array.isArray(exports)) {
    throw new Error("Cannot build: deno.json has no exports map");
  }
  const map: Record<string, string> = {};
  for (const [key, value] of Object.entries(exports)) {
    if (typeof value !== "string" || !value.endsWith(".ts")) {
      throw new Error(`Cannot build: deno.json export ${key} is not a .ts file`);
    }
    map[key] = value;
  }
  return map;
}

/**
 * The npm `exports` for JSR exports: the same keys, each pointing at the
 * emitted `.d.ts` and `.js` of its source file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { npmExports } from "./_npm_exports.ts";
 *
 * assert.deepEqual(npmExports({ ".": "./mod.ts", "./http": "http.ts" }), {
 *   ".": { types: "./mod.d.ts", import: "./mod.js" },
 *   "./http": { types: "./http.d.ts", import: "./http.js" },
 * });
 * ```
 */
export function npmExports(jsr: Record<string, string>): Record<string, NpmExport> {
  const base = (file: string) => "./" + file.replace(/^\.\//, "").replace(/\.ts$/, "");
  return Object.fromEntries(
    Object.entries(jsr).map(([key, file]) => [
      key,
      { types: `${base(file)}.d.ts`, import: `${base(file)}.js` },
    ]),
  );
}

/**
 * Throws when the npm `exports` of package `name` drift from its JSR ones: a
 * JSR export with no npm entry, an npm entry JSR does not have, or an entry
 * that points at another module than the JSR one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkExportMaps, npmExports } from "./_npm_exports.ts";
 *
 * const jsr = { ".": "./mod.ts", "./http": "./http.ts" };
 * checkExportMaps("@memo/mcp-server", jsr, npmExports(jsr)); // no drift
 * assert.throws(
 *   () => checkExportMaps("@memo/mcp-server", jsr, npmExports({ ".": "./mod.ts" })),
 *   /Cannot build @memo\/mcp-server: npm exports drift from deno\.json: \.\/http has no npm entry/,
 * );
 * ```
 */
export function checkExportMaps(
  name: string,
  jsr: Record<string, string>,
  npm: Record<string, NpmExport>,
): void {
  const problems: string[] = [];
  const expected = npmExports(jsr);
  for (const key of Object.keys(jsr)) {
    if (!(key in npm)) problems.push(`${key} has no npm entry`);
    else if (JSON.stringify(npm[key]) !== JSON.stringify(expected[key])) {
      problems.push(`${key} is ${JSON.stringify(npm[key])}, not ${JSON.stringify(expected[key])}`);
    }
  }
  for (const key of Object.keys(npm)) {
    if (!(key in jsr)) problems.push(`${key} is not a JSR export`);
  }
  if (problems.length) {
    throw new Error(
      `Cannot build ${name}: npm exports drift from deno.json: ${problems.join("; ")}`,
    );
  }
}
