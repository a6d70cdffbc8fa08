/**
 * Reads folders of markdown notes (being written).
 *
 * @module
 */
import type { ReaderOptions, ReaderResult } from "./_types.ts";

/** Reads markdown files under a source. */
export function readMarkdown(
  _path: string,
  _kind: "file" | "folder",
  _options: ReaderOptions,
): Promise<ReaderResult> {
  return Promise.resolve({ records: [], skipped: [] });
}
