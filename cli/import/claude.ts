/**
 * Reads Claude Code memory (being written).
 *
 * @module
 */
import type { ReaderOptions, ReaderResult } from "./_types.ts";

/** Reads Claude Code memory files under a source. */
export function readClaude(
  _path: string,
  _kind: "file" | "folder",
  _options: ReaderOptions,
): Promise<ReaderResult> {
  return Promise.resolve({ records: [], skipped: [] });
}
