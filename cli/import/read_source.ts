/**
 * Reading an import source: detect its format, run its reader, and move the
 * drafts memo would refuse or fold together to `skipped`. Pure parsing:
 * nothing is written; bad input is reported, not thrown.
 *
 * @module
 */

import { type NoteDraft, prepareNoteDrafts } from "@memo/memory";
import { basename, join } from "node:path";
import { detect, missingSource } from "./_detect.ts";
import { byFileLine, pathKind, readUtf8Lines, skipHiddenFolder, walkFiles } from "./_files.ts";
import type {
  ImportFormat,
  ImportRead,
  ImportRecord,
  ImportSkip,
  ReaderOptions,
  ReaderResult,
} from "./types.ts";
import { parseMemoJsonl } from "./memo_jsonl.ts";
import { type GraphFile, parseServerMemory } from "./server_memory.ts";
import { readClaude } from "./claude.ts";
import { readMarkdown } from "./markdown.ts";

/**
 * Tells what a source holds, from its content and names: a file whose first non-empty line is
 * JSON with `type` "entity"/"relation" → `server-memory`; JSON with `id`, `hash` and `body`, or
 * an empty `.jsonl` file (an export of an empty project) → `memo-jsonl`; a file named `CLAUDE.md`, `CLAUDE.local.md` or `MEMORY.md` (any case), or a
 * folder holding one of them or a `.claude/` folder (or a `.claude` folder itself) → `claude`;
 * another `.md` file, or a folder with `.md` files → `markdown`. Else `undefined`. Throws
 * `Cannot import <path>: no such file or folder` when nothing is there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { detectImportFormat } from "./read_source.ts";
 *
 * const dir = await mkdtemp(join(tmpdir(), "memo-detect-"));
 * try {
 *   await mkdir(join(dir, "vault"));
 *   await writeFile(join(dir, "vault", "idea.md"), "# Idea\ntext\n");
 *   assert.equal(await detectImportFormat(join(dir, "vault")), "markdown");
 *   await writeFile(join(dir, "vault", "CLAUDE.md"), "# Project\n");
 *   assert.equal(await detectImportFormat(join(dir, "vault")), "claude");
 *   await writeFile(join(dir, "data.txt"), "hello\n");
 *   assert.equal(await detectImportFormat(join(dir, "data.txt")), undefined);
 *   await assert.rejects(detectImportFormat(join(dir, "nope")), /no such file or folder/);
 * } finally {
 *   await rm(dir, { recursive: true });
 * }
 * ```
 */
export function detectImportFormat(path: string): Promise<ImportFormat | undefined> {
  return detect(path);
}

/**
 * Reads an import source (a file or a folder) as notes to write. The format is `options.from`,
 * else detected ({@linkcode detectImportFormat}); when neither gives one it throws
 * `Cannot import <path>: cannot tell what it holds`. Bad input never throws: a malformed record, a
 * file that is not UTF-8 (skipped whole, with the line of its first bad byte) and a draft memo
 * would refuse (empty text, a bad id or time…) come back in `skipped` with the file and line.
 * JSONL files are decoded line by line (a line that is not UTF-8 is skipped, the others read);
 * markdown and Claude Code files whole. A record with the same identity as an earlier one (the
 * same source key; with no source, the same content), which memo would fold into one note, is
 * skipped: `same source key as line 3: memo keeps one note per identity`. For a Claude Code
 * folder, `unread` lists the `.md` files under it that were not read as Claude Code memory.
 * A missing source throws `Cannot import <path>: no such file or folder`. Records and skips come
 * sorted by file path, then line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtemp, rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readImportSource } from "./read_source.ts";
 *
 * const dir = await mkdtemp(join(tmpdir(), "memo-read-"));
 * try {
 *   const file = join(dir, "graph.jsonl");
 *   await writeFile(file, [
 *     '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}',
 *     "not json",
 *     '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}',
 *   ].join("\n"));
 *   const read = await readImportSource(file);
 *   assert.equal(read.format, "server-memory");
 *   assert.equal(read.records[0].draft.text, "- likes tea");
 *   assert.deepEqual(read.skipped, [{ file: "graph.jsonl", line: 2, reason: "not valid JSON" }]);
 *
 *   const exported = join(dir, "notes.jsonl");
 *   await writeFile(exported, ""); // `memo export` of an empty project
 *   assert.deepEqual(await readImportSource(exported), {
 *     format: "memo-jsonl",
 *     records: [],
 *     skipped: [],
 *   });
 * } finally {
 *   await rm(dir, { recursive: true });
 * }
 * ```
 */
export async function readImportSource(
  path: string,
  options: {
    /** The format to read; wins over detection. Default: detected. */
    from?: ImportFormat;
    /** Called as files (or, for one JSONL file, lines) are read, with done and total. */
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<ImportRead> {
  const kind = await pathKind(path);
  if (kind === undefined) throw missingSource(path);
  const format = options.from ?? (await detect(path));
  if (format === undefined) throw new Error(`Cannot import ${path}: cannot tell what it holds`);
  const readerOptions: ReaderOptions = { onProgress: options.onProgress };
  let result: ReaderResult;
  switch (format) {
    case "server-memory":
    case "memo-jsonl":
      result = await readJsonl(path, kind, format, readerOptions);
      break;
    case "claude":
      result = await readClaude(path, kind, readerOptions);
      break;
    case "markdown":
      result = await readMarkdown(path, kind, readerOptions);
      break;
    default:
      throw new Error(`Cannot import ${path}: unknown format ${JSON.stringify(format)}`);
  }
  const read: ImportRead = { format, ...checkDrafts(result) };
  if (result.unread !== undefined) read.unread = result.unread;
  return read;
}

/**
 * Moves the drafts memo would refuse or fold into an earlier one to `skipped` (see
 * {@linkcode readImportSource}); sorts both lists.
 */
function checkDrafts(result: ReaderResult): { records: ImportRecord[]; skipped: ImportSkip[] } {
  const records: ImportRecord[] = [];
  const skipped = [...result.skipped];
  const seen = new Map<string, ImportRecord>();
  const links = new Map<string, readonly string[]>();
  for (const record of [...result.records].sort(byFileLine)) {
    let identity: string;
    let what: string;
    try {
      const [prepared] = prepareNoteDrafts([record.draft]);
      [identity, what] = prepared.source !== undefined
        ? [`source:${prepared.source}`, "source key"]
        : [`hash:${prepared.hash}`, "content"];
    } catch (e) {
      skipped.push({
        file: record.file,
        line: record.line,
        reason: e instanceof Error ? e.message : String(e),
      });
      continue;
    }
    const first = seen.get(identity);
    if (first) {
      const where = first.file === record.file
        ? `line ${first.line}`
        : `${first.file}:${first.line}`;
      skipped.push({
        file: record.file,
        line: record.line,
        reason: `same ${what} as ${where}: memo keeps one note per identity`,
      });
      continue;
    }
    const cycle = closesCycle(record.draft, links);
    if (cycle !== undefined) {
      skipped.push({ file: record.file, line: record.line, reason: cycle });
      continue;
    }
    seen.set(identity, record);
    records.push(record);
  }
  return { records, skipped: skipped.sort(byFileLine) };
}

/**
 * Why `draft` cannot join the records read before it, whose `supersedes` links `links` holds (by
 * id; it is added there when it can): its links would close a cycle, and every note on a cycle
 * counts as superseded, hidden from list and recall. `undefined` when it can. A link to a note
 * outside the source stays (the store's history check names it when it dangles).
 */
function closesCycle(draft: NoteDraft, links: Map<string, readonly string[]>): string | undefined {
  const id = draft.id;
  const targets = draft.supersedes ?? [];
  if (id === undefined) return undefined;
  const seen = new Set<string>();
  const stack = [...targets];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === id) {
      return `superseding ${targets.join(", ")} would make a cycle of supersedes links ` +
        `(each note on it would be hidden as superseded)`;
    }
    if (seen.has(at)) continue;
    seen.add(at);
    stack.push(...links.get(at) ?? []);
  }
  links.set(id, targets);
  return undefined;
}

/** Reads JSONL sources: the file, or every `.jsonl` file under the folder. */
async function readJsonl(
  path: string,
  kind: "file" | "folder",
  format: "server-memory" | "memo-jsonl",
  options: ReaderOptions,
): Promise<ReaderResult> {
  const names = kind === "file"
    ? [basename(path)]
    : await walkFiles(path, { file: (n) => /\.jsonl$/i.test(n), skipFolder: skipHiddenFolder });
  const skipped: ImportSkip[] = [];
  const files: GraphFile[] = [];
  for (const file of names) {
    const read = await readUtf8Lines(kind === "file" ? path : join(path, file));
    for (const line of read.badLines) skipped.push({ file, line, reason: "not UTF-8" });
    files.push({ file, text: read.text });
  }
  const progress = options.onProgress;
  if (format === "server-memory") {
    const result = parseServerMemory(files, progress);
    return { records: result.records, skipped: [...skipped, ...result.skipped] };
  }
  const result: ReaderResult = { records: [], skipped };
  const total = files.length;
  files.forEach(({ file, text }, i) => {
    const one = parseMemoJsonl(text, file, total === 1 ? progress : undefined);
    result.records.push(...one.records);
    result.skipped.push(...one.skipped);
    if (total > 1) progress?.(i + 1, total);
  });
  return result;
}
