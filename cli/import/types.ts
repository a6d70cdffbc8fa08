/**
 * The shapes every import reader returns (re-exported by `mod.ts`).
 *
 * @module
 */

import type { NoteDraft } from "@memo/memory";

/**
 * What an import source holds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type ImportFormat, IMPORT_FORMATS } from "./mod.ts";
 * const format: ImportFormat = "server-memory";
 * assert.ok(IMPORT_FORMATS.includes(format));
 * ```
 */
export type ImportFormat = "server-memory" | "claude" | "markdown" | "memo-jsonl";

/**
 * Every import format, in the order `memo import --help` lists them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IMPORT_FORMATS } from "./mod.ts";
 * assert.deepEqual(IMPORT_FORMATS, ["server-memory", "claude", "markdown", "memo-jsonl"]);
 * ```
 */
export const IMPORT_FORMATS: readonly ImportFormat[] = Object.freeze(
  [
    "server-memory",
    "claude",
    "markdown",
    "memo-jsonl",
  ] as const,
);

/**
 * One note read from an import source, with where it was found.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ImportRecord } from "./mod.ts";
 * const record: ImportRecord = {
 *   draft: { text: "- likes tea", title: "Alice", labels: ["person"], source: "server-memory:Alice" },
 *   file: "memory.jsonl",
 *   line: 1,
 * };
 * assert.equal(record.draft.title, "Alice");
 * ```
 */
export interface ImportRecord {
  /** The note to write; memo-jsonl and memo `notes.md` sources also set `id`, `created`, `updated`. */
  draft: NoteDraft;
  /** Path of the file it came from, relative to the source (`/`-separated); a file source's basename. */
  file: string;
  /** 1-based line where the record starts. */
  line: number;
}

/**
 * A record (or a whole file) that could not be read, and why.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ImportSkip } from "./mod.ts";
 * const skip: ImportSkip = { file: "memory.jsonl", line: 3, reason: "not valid JSON" };
 * assert.equal(`${skip.file}:${skip.line}: ${skip.reason}`, "memory.jsonl:3: not valid JSON");
 * ```
 */
export interface ImportSkip {
  /** Path of the file, relative to the source (`/`-separated); a file source's basename. */
  file: string;
  /** 1-based line of the bad record (for a file that is not UTF-8: the line of the first bad byte). */
  line: number;
  reason: string;
}

/**
 * What {@linkcode readImportSource} returns: the format read, the good records and the skipped
 * ones, each in file order (files sorted by path, then by line).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ImportRead } from "./mod.ts";
 * const read: ImportRead = { format: "markdown", records: [], skipped: [] };
 * assert.equal(read.records.length + read.skipped.length, 0);
 * ```
 */
export interface ImportRead {
  /** The format read (the one given, else the one detected). */
  format: ImportFormat;
  /** Good records, sorted by file then line. */
  records: ImportRecord[];
  /** Bad records and unreadable files, sorted by file then line. */
  skipped: ImportSkip[];
  /**
   * Claude Code folders only: the `.md` files under the source (dot-folders and `node_modules`
   * skipped, as the markdown reader walks) that were not read as Claude Code memory, relative to
   * the source and sorted. Import them with the `markdown` format.
   */
  unread?: string[];
}

/** What one reader returns before the records are checked and sorted. */
export interface ReaderResult {
  records: ImportRecord[];
  skipped: ImportSkip[];
  /** The `.md` files left unread (claude reader). */
  unread?: string[];
}

export interface ReaderOptions {
  /** Called as files (or lines) are read. */
  onProgress?: (done: number, total: number) => void;
}
