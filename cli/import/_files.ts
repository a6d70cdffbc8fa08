/**
 * Files for the import readers: strict UTF-8 reading (with the line of the first bad byte),
 * walking a folder in a stable order, and the path and source-key helpers.
 *
 * @module
 */

import { open, readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** The text of a file, or the 1-based line of its first byte that is not UTF-8. */
export type TextRead = { text: string } | { badLine: number };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The bytes as strict UTF-8 (a leading BOM dropped), or `undefined` when they are not. */
function strictText(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The lines of `bytes`, split at each `\n` byte. A newline byte never occurs inside a UTF-8
 * sequence, so a line decodes on its own exactly when its bytes are valid where they stand.
 */
function* byteLines(bytes: Uint8Array): Generator<Uint8Array> {
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(10, start);
    if (end < 0) end = bytes.length;
    yield bytes.subarray(start, end);
    start = end + 1;
  }
}

/**
 * Decodes bytes as strict UTF-8 (a leading BOM dropped); on a bad sequence, returns the 1-based
 * line where it starts: the first line that does not decode on its own.
 */
export function decodeUtf8(bytes: Uint8Array): TextRead {
  const text = strictText(bytes);
  if (text !== undefined) return { text };
  let line = 0;
  for (const one of byteLines(bytes)) {
    line++;
    if (strictText(one) === undefined) break;
  }
  return { badLine: line };
}

export async function readUtf8(path: string): Promise<TextRead> {
  return decodeUtf8(await readFile(path));
}

/**
 * Reads a line-based file (JSONL) as strict UTF-8 line by line: a line that is not UTF-8 becomes an
 * empty line in `text` (so line numbers hold) and its 1-based number is listed in `badLines`.
 */
export async function readUtf8Lines(path: string): Promise<{ text: string; badLines: number[] }> {
  const bytes = await readFile(path);
  const whole = strictText(bytes);
  if (whole !== undefined) return { text: whole, badLines: [] };
  const lines: string[] = [];
  const badLines: number[] = [];
  for (const one of byteLines(bytes)) {
    const text = strictText(one);
    lines.push(text ?? "");
    if (text === undefined) badLines.push(lines.length);
  }
  return { text: lines.join("\n"), badLines };
}

/** Reads the first non-empty line of a file (at most the first 4 MiB), or undefined. */
export async function firstNonEmptyLine(path: string): Promise<string | undefined> {
  const handle = await open(path, "r");
  try {
    const chunk = new Uint8Array(64 * 1024);
    const text = new TextDecoder("utf-8");
    let rest = "";
    for (let read = 0; read < 4 * 1024 * 1024;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, read);
      if (bytesRead === 0) break;
      read += bytesRead;
      rest += text.decode(chunk.subarray(0, bytesRead), { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      const found = lines.find((l) => l.trim() !== "");
      if (found !== undefined) return found.trim();
    }
    rest += text.decode();
    return rest.trim() === "" ? undefined : rest.trim();
  } finally {
    await handle.close();
  }
}

/** What a path is: a file, a folder, or nothing (missing, or something else). */
export async function pathKind(path: string): Promise<"file" | "folder" | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? "file" : info.isDirectory() ? "folder" : undefined;
  } catch {
    return undefined;
  }
}

export interface WalkOptions {
  /** Which files to keep, by name. */
  file: (name: string) => boolean;
  /** Which folders to skip, by name and path relative to the root. Default: dot-folders and node_modules. */
  skipFolder?: (name: string, rel: string) => boolean;
}

/** Skips dot-folders (`.git`, `.obsidian`, `.trash`…) and `node_modules`. */
export function skipHiddenFolder(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * Lists the files under `root` recursively as `/`-separated paths relative to it, sorted.
 * Symbolic links to files are followed; links to folders are not (no loops).
 */
export async function walkFiles(root: string, options: WalkOptions): Promise<string[]> {
  const out: string[] = [];
  const skip = options.skipFolder ?? skipHiddenFolder;
  async function walk(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const rel = toPosix(relative(root, full));
      let isFile = entry.isFile();
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        const kind = await pathKind(full);
        isFile = kind === "file";
        isDir = false;
      }
      if (isDir && !skip(entry.name, rel)) await walk(full);
      else if (isFile && options.file(entry.name)) out.push(rel);
    }
  }
  await walk(root);
  return out.sort(comparePaths);
}

export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** Orders paths by UTF-16 code units (stable across platforms and locales). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function byFileLine(a: { file: string; line: number }, b: { file: string; line: number }) {
  return comparePaths(a.file, b.file) || a.line - b.line;
}

/**
 * Makes text safe inside a source key (one word, no white space): each white-space character
 * and `%` is written percent-encoded (`John Smith` → `John%20Smith`).
 */
export function keyPart(text: string): string {
  return text.replace(/[\s%]/gu, (c) => encodeURIComponent(c));
}

export function isMarkdownName(name: string): boolean {
  return /\.md$/i.test(name);
}

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}
