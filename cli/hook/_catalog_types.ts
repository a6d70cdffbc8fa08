/**
 * Internal: the shapes of the hooks' index (`_catalog.ts` reads it, `_catalog_build.ts` writes
 * it), and where it lives.
 *
 * @module
 */

import { join } from "./_paths.ts";

/** Version of the catalog's layout. */
export const VERSION = 4;

/** One live note of the catalog. */
export interface CatalogNote {
  id: string;
  title: string;
  labels: string[];
  created: string;
  updated: string;
  validFrom?: string;
  validUntil?: string;
  /** Byte range of its section in notes.md, when the file holds it as it is read. */
  start: number;
  end: number;
  /** The text, when the file's bytes do not hold it (an unresolved merge). */
  text?: string;
  /** Set when the secrets scanner's quick test says its text may hold a secret. */
  secret?: boolean;
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
