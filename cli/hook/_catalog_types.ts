/**
 * Internal: the shapes of the hooks' index (`_catalog.ts` reads it, `_catalog_build.ts` writes
 * it), and where each scope's part of it lives.
 *
 * @module
 */

import { join } from "./_paths.ts";

/** Version of the catalog's layout. */
export const VERSION = 5;

/** A scope of memory (`@memo/memory`'s `Scope`), in the order reads hold them. */
export type HookScope = "project" | "local" | "user";

/** Every scope, in read order: a note held by two shows the first's copy. */
export const HOOK_SCOPES: readonly HookScope[] = ["project", "local", "user"];

/** One live note of the catalog. */
export interface CatalogNote {
  id: string;
  title: string;
  labels: string[];
  created: string;
  updated: string;
  validFrom?: string;
  validUntil?: string;
  /** Byte range of its section in its scope's notes file, when the file holds it as read. */
  start: number;
  end: number;
  /** The text, when the file's bytes do not hold it (an unresolved merge). */
  text?: string;
  /** Set when the secrets scanner's quick test says its text may hold a secret. */
  secret?: boolean;
  /** Its scope: set when it is read (a part's lines do not hold it), absent for `project`. */
  scope?: HookScope;
}

export interface CatalogHead {
  v: number;
  key: string;
  /** The build: its files are `index-<id>.bin` and `notes-<id>.jsonl`. */
  id: string;
  count: number;
  average: number;
  /** term → [offset in ints within index.bin, count]. */
  terms: Record<string, [number, number]>;
}

/** Where the hooks keep their state: `.memo/cache/hooks/`. */
export function hooksCacheDir(root: string): string {
  return join(root, ".memo", "cache", "hooks");
}

/** The project's notes file. */
export function notesPathOf(root: string): string {
  return join(root, ".memo", "memory", "notes.md");
}

/** Where one scope's notes are, and where its part of the hooks' index lives. */
export interface PartPlace {
  scope: HookScope;
  /** The scope's notes file. */
  notes: string;
  /** The folder of its store (`rootDir` of its `FileMemoryStore`). */
  storeRoot: string;
  /** The folder of its part of the index. */
  dir: string;
}

/**
 * Where each scope's part lives: `project` in `.memo/cache/hooks/`, `local` in
 * `.memo/cache/local/hooks/`, `user` in `$MEMO_HOME/cache/hooks/` (the caches of each scope, so
 * that the person's notes never enter a project's cache).
 */
export function partPlace(scope: HookScope, root: string, memoHome?: string): PartPlace {
  if (scope === "project") {
    return { scope, notes: notesPathOf(root), storeRoot: root, dir: hooksCacheDir(root) };
  }
  if (scope === "local") {
    return {
      scope,
      notes: join(root, ".memo", "memory", "notes.local.md"),
      storeRoot: root,
      dir: join(root, ".memo", "cache", "local", "hooks"),
    };
  }
  if (!memoHome) throw new Error("the user scope needs MEMO_HOME");
  return {
    scope,
    notes: join(memoHome, "memory", "notes.md"),
    storeRoot: memoHome,
    dir: join(memoHome, "cache", "hooks"),
  };
}

/** A 32-bit hash of a note's id (FNV-1a over its UTF-16 units), for the parts' id tables. */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}
