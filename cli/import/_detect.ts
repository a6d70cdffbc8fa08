/**
 * Telling what an import source holds from its content and names.
 *
 * @module
 */

import { basename, join } from "node:path";
import { readdir } from "node:fs/promises";
import type { ImportFormat } from "./types.ts";
import { firstNonEmptyLine, isMarkdownName, pathKind, walkFiles } from "./_files.ts";

/** File names that make a source Claude Code memory (compared in lower case). */
export const CLAUDE_FILE_NAMES: readonly string[] = ["claude.md", "claude.local.md", "memory.md"];

/**
 * Detects the format of a source (see `detectImportFormat` in `mod.ts`). Throws when the source
 * does not exist.
 */
export async function detect(path: string): Promise<ImportFormat | undefined> {
  const kind = await pathKind(path);
  if (kind === undefined) throw missingSource(path);
  if (kind === "file") {
    const name = basename(path).toLowerCase();
    if (CLAUDE_FILE_NAMES.includes(name)) return "claude";
    if (isMarkdownName(name)) return "markdown";
    let first: string | undefined;
    try {
      first = await firstNonEmptyLine(path);
    } catch {
      return undefined;
    }
    // An empty `.jsonl` file is what `memo export` writes for an empty project.
    if (first === undefined) return /\.jsonl$/i.test(name) ? "memo-jsonl" : undefined;
    if (!first.startsWith("{")) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(first);
    } catch {
      return formatOfPrefix(first);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const o = value as Record<string, unknown>;
    if (o.type === "entity" || o.type === "relation") return "server-memory";
    if ("id" in o && "hash" in o && "body" in o) return "memo-jsonl";
    return undefined;
  }
  const entries = await readdir(path, { withFileTypes: true });
  for (const entry of entries) {
    const lower = entry.name.toLowerCase();
    if (CLAUDE_FILE_NAMES.includes(lower) && !entry.isDirectory()) return "claude";
    if (entry.name === ".claude" && (await pathKind(join(path, entry.name))) === "folder") {
      return "claude";
    }
  }
  if (basename(path) === ".claude") return "claude";
  const markdown = await walkFiles(path, { file: isMarkdownName });
  return markdown.length > 0 ? "markdown" : undefined;
}

/**
 * The format a JSON line that does not parse begins like: a line cut short at 4 MiB (a first note
 * that long) is still told by its first keys, in the order `memo export` and the server-memory
 * file write them. A broken line of either is then skipped by the import, with its line.
 */
function formatOfPrefix(line: string): ImportFormat | undefined {
  if (/^\{"type":"(?:entity|relation)"/.test(line)) return "server-memory";
  if (/^\{"id":"[^"\\]*","title":"(?:[^"\\]|\\.)*","body":"/.test(line)) return "memo-jsonl";
  return undefined;
}

/** The error for a source that does not exist. */
export function missingSource(path: string): Error {
  return new Error(`Cannot import ${path}: no such file or folder`);
}
