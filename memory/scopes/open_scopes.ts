/**
 * {@linkcode openScopedStore}: the {@linkcode ScopedMemoryStore} of a project and a person, from
 * where they live.
 *
 * @module
 */

import { join } from "node:path";
import { FileMemoryStore } from "../store/file_store.ts";
import type { MemoryStore } from "../store/store.ts";
import { type Scope, scopePaths, SCOPES } from "./scopes.ts";
import { ScopedMemoryStore } from "./scoped_store.ts";
import { ignoreLocalScope } from "./local_ignore.ts";

/**
 * What a `Memo` needs to serve scopes (`MemoOptions.scopes`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ScopeSettings } from "@memo/memory";
 * const settings: ScopeSettings = { serve: ["project", "local"], defaultScope: "project" };
 * assert.equal(settings.serve?.length, 2);
 * ```
 */
export interface ScopeSettings {
  /**
   * The scopes served (read and written); the others are refused with `refusal`.
   * @default every scope (`user` only when `memoHome` is set)
   */
  serve?: readonly Scope[];
  /**
   * Where a write without `scope` goes.
   * @default "project"
   */
  defaultScope?: Scope;
  /**
   * The user scope's home (`MEMO_HOME`): its notes are `<memoHome>/memory/notes.md`.
   * @default none: the user scope is not served
   */
  memoHome?: string;
  /**
   * Why the scopes left out are not served, for the error that refuses them.
   * @default "it is not configured (the config key scopes)"
   */
  refusal?: string;
}

/**
 * The cache folder of each scope other than `project` that `settings` serve (`local`:
 * `<rootDir>/.memo/cache/local/`, `user`: `<memoHome>/cache/`): a `Memo` keeps each scope's
 * embedding vectors there, as the project's are kept in `<rootDir>/.memo/cache/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scopeCacheDirs } from "@memo/memory";
 * assert.deepEqual(scopeCacheDirs("/p", { memoHome: "/h" }), { local: "/p/.memo/cache/local", user: "/h/cache" });
 * assert.deepEqual(scopeCacheDirs("/p", { serve: ["project"] }), {});
 * ```
 */
export function scopeCacheDirs(
  rootDir: string,
  settings: ScopeSettings = {},
): Partial<Record<"local" | "user", string>> {
  const dirs: Partial<Record<"local" | "user", string>> = {};
  for (const scope of settings.serve ?? SCOPES) {
    if (scope === "project" || (scope === "user" && !settings.memoHome)) continue;
    dirs[scope] = scopePaths(scope, { rootDir, memoHome: settings.memoHome }).cache;
  }
  return dirs;
}

/**
 * A {@linkcode ScopedMemoryStore} over the file stores of the scopes served: `project` and
 * `local` under `rootDir`, `user` under `memoHome`. Nothing is read or created until it loads;
 * a scope's file is created by its first write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { openScopedStore } from "@memo/memory";
 * const dir = await Deno.makeTempDir();
 * const store = openScopedStore(dir, { memoHome: join(dir, "home") });
 * assert.deepEqual(store.scopes, ["project", "local", "user"]);
 * await store.load();
 * await store.commit({ notes: [{ text: "Prefers tabs", scope: "user" }] });
 * assert.ok((await Deno.readTextFile(join(dir, "home/memory/notes.md"))).includes("Prefers tabs"));
 * await store.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function openScopedStore(rootDir: string, settings: ScopeSettings = {}): ScopedMemoryStore {
  const serve = (settings.serve ?? SCOPES).filter((s) => s !== "user" || settings.memoHome);
  const stores: Partial<Record<Scope, MemoryStore>> = {};
  for (const scope of serve) {
    const paths = scopePaths(scope, { rootDir, memoHome: settings.memoHome });
    stores[scope] = scope === "project"
      ? new FileMemoryStore({ rootDir })
      : new FileMemoryStore({ rootDir: paths.root, notesPath: paths.notes });
  }
  const journalRoot = serve.includes("project") || serve.includes("local")
    ? join(rootDir, ".memo", "cache")
    : scopePaths("user", { rootDir, memoHome: settings.memoHome }).cache;
  return new ScopedMemoryStore({
    stores,
    defaultScope: settings.defaultScope,
    refusal: settings.refusal,
    journalPath: join(journalRoot, "scope-move.json"),
    // A project made before scopes has no ignore line for the local notes: the first local write
    // adds it, so that git never sees them.
    beforeFirstWrite: async (scope) => {
      if (scope === "local") await ignoreLocalScope(join(rootDir, ".memo"));
    },
  });
}
