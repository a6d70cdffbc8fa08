/**
 * The local scope stays out of git: the lines `.memo/.gitignore` needs for it, and the check the
 * first local write runs in a project made before scopes.
 *
 * @module
 */

import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The `.memo/.gitignore` lines (relative to `.memo/`) of the local scope: its notes and their lock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LOCAL_SCOPE_IGNORES } from "@memo/memory";
 * assert.deepEqual(LOCAL_SCOPE_IGNORES, ["memory/notes.local.md", "memory/notes.local.md.lock"]);
 * ```
 */
export const LOCAL_SCOPE_IGNORES: readonly string[] = Object.freeze([
  "memory/notes.local.md",
  "memory/notes.local.md.lock",
]);

/**
 * Appends to `<memoDir>/.gitignore` the lines of {@linkcode LOCAL_SCOPE_IGNORES} it lacks (the
 * file is created when missing); returns the lines added. A line counts with or without a leading
 * `/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { ignoreLocalScope } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(join(dir, ".gitignore"), "cache/\n/memory/notes.local.md");
 * assert.deepEqual(await ignoreLocalScope(dir), ["memory/notes.local.md.lock"]);
 * assert.deepEqual(await ignoreLocalScope(dir), []);
 * assert.equal(await Deno.readTextFile(join(dir, ".gitignore")), "cache/\n/memory/notes.local.md\nmemory/notes.local.md.lock\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function ignoreLocalScope(memoDir: string): Promise<string[]> {
  const path = join(memoDir, ".gitignore");
  let text = "";
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code !== "ENOENT") throw e;
  }
  const present = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, "")));
  const missing = LOCAL_SCOPE_IGNORES.filter((l) => !present.has(l));
  if (!missing.length) return [];
  const sep = text === "" || text.endsWith("\n") ? "" : "\n";
  // The first write of a fresh folder may be a local one: `.memo/` does not exist yet.
  await mkdir(memoDir, { recursive: true });
  await writeFile(path, text + sep + missing.join("\n") + "\n");
  return missing;
}
