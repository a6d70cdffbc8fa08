/**
 * Reads folders of markdown notes (Obsidian vaults, basic-memory projects, plain folders): one
 * note per `.md` file, front matter as labels, title and times. A memo `notes.md` (what
 * `memo export --format md` writes) is read note by note, ids and times kept.
 *
 * @module
 */

import { basename, join } from "node:path";
import {
  countLineBreaks,
  NOTE_MARKER_START,
  type NoteDraft,
  NOTES_PREAMBLE,
  parseNotes,
} from "@memo/memory";
import { type FrontMatterValue, readFrontMatter } from "./_front_matter.ts";
import { isMarkdownName, keyPart, readUtf8, walkFiles } from "./_files.ts";
import type { ReaderOptions, ReaderResult } from "./types.ts";

/**
 * Reads every `*.md` file under a folder (recursively; dot-folders such as `.obsidian`, `.git`,
 * `.trash` and `node_modules` skipped), or the one file given, with {@linkcode parseMarkdownFile}.
 * A file that is not UTF-8 is skipped with the line of its first bad byte.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdtemp, rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readMarkdown } from "./markdown.ts";
 *
 * const dir = await mkdtemp(join(tmpdir(), "memo-md-"));
 * try {
 *   await writeFile(join(dir, "b.md"), "# Bee\nbuzz\n");
 *   await writeFile(join(dir, "a.md"), "---\ntags: [x]\n---\nant\n");
 *   const { records } = await readMarkdown(dir, "folder", {});
 *   assert.deepEqual(records.map((r) => [r.file, r.draft.title]), [["a.md", "a"], ["b.md", "Bee"]]);
 * } finally {
 *   await rm(dir, { recursive: true });
 * }
 * ```
 */
export async function readMarkdown(
  path: string,
  kind: "file" | "folder",
  options: ReaderOptions,
): Promise<ReaderResult> {
  const files = kind === "file"
    ? [basename(path)]
    : await walkFiles(path, { file: isMarkdownName });
  const out: ReaderResult = { records: [], skipped: [] };
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    const read = await readUtf8(kind === "file" ? path : join(path, file));
    if ("badLine" in read) {
      out.skipped.push({ file, line: read.badLine, reason: "not UTF-8" });
    } else {
      const one = parseMarkdownFile(read.text, file);
      out.records.push(...one.records);
      out.skipped.push(...one.skipped);
    }
    options.onProgress?.(i + 1, files.length);
  }
  return out;
}

/**
 * Reads one markdown file as one note: front matter `tags`/`tag`/`labels` and basic-memory's
 * `type` become labels (a leading `#` dropped; a string value is split on commas, and for tags
 * also on spaces); `title` is the title, else a `# ` heading on the first line (removed from the
 * body), else the file name without `.md`; `created`/`date` and `updated`/`modified` that parse
 * as dates become `created`/`updated`; the source is `file:<path>` (white space and `%`
 * percent-encoded). Front matter that cannot be read skips the file with its line. A memo
 * `notes.md` (its preamble, or memo note markers) gives one record per note, ids and times kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseMarkdownFile } from "./markdown.ts";
 *
 * const text = "---\ntags: [idea, '#work']\ntype: note\ncreated: 2026-01-05\n---\n# My idea\nBody\n";
 * const { records } = parseMarkdownFile(text, "notes/My idea.md");
 * assert.deepEqual(records[0].draft, {
 *   title: "My idea",
 *   text: "Body",
 *   labels: ["idea", "work", "note"],
 *   source: "file:notes/My%20idea.md",
 *   created: "2026-01-05T00:00:00.000Z",
 * });
 * ```
 */
export function parseMarkdownFile(text: string, file: string): ReaderResult {
  if (isMemoNotes(text)) return parseMemoNotes(text, file);
  const fm = readFrontMatter(text);
  if ("error" in fm) return { records: [], skipped: [{ file, line: fm.line, reason: fm.error }] };
  const data = fm.data;
  const labels: string[] = [];
  for (const key of ["tags", "tag", "labels", "type"]) {
    const split = key === "labels" || key === "type" ? /,/ : /[,\s]+/;
    for (const value of values(data[key], split)) {
      const label = value.replace(/^#/, "").trim();
      if (label !== "") labels.push(label);
    }
  }
  const lines = fm.body.split(/\r?\n/);
  let title = typeof data.title === "string" ? data.title.trim() : "";
  let first = lines.findIndex((l) => l.trim() !== "");
  if (title === "" && first >= 0 && /^#\s+\S/.test(lines[first])) {
    title = lines[first].replace(/^#\s+/, "").replace(/\s+#+\s*$/, "").trim();
    lines.splice(first, 1);
  }
  if (title === "") title = basename(file).replace(/\.md$/i, "");
  first = lines.findIndex((l) => l.trim() !== "");
  const body = first < 0 ? "" : lines.slice(first).join("\n").trimEnd();
  const draft: NoteDraft = { title, text: body, labels, source: `file:${keyPart(file)}` };
  const created = dateOf(data.created) ?? dateOf(data.date);
  const updated = dateOf(data.updated) ?? dateOf(data.modified);
  if (created) draft.created = created;
  if (updated) draft.updated = updated;
  return { records: [{ draft, file, line: 1 }], skipped: [] };
}

/** Whether a text is a memo `notes.md`: memo's preamble, or a memo note marker at a line start. */
function isMemoNotes(text: string): boolean {
  return text.startsWith(NOTES_PREAMBLE) || text.startsWith(NOTE_MARKER_START + " ") ||
    text.includes("\n" + NOTE_MARKER_START + " ");
}

/** Reads a memo `notes.md`: one record per note (id, title, labels, source, times kept). */
function parseMemoNotes(text: string, file: string): ReaderResult {
  const out: ReaderResult = { records: [], skipped: [] };
  const parsed = parseNotes(text);
  let line = 1;
  for (const section of parsed.sections) {
    const note = section.note;
    if (note) {
      const draft: NoteDraft = {
        id: note.id,
        title: note.title,
        text: note.body,
        labels: note.labels,
        created: note.created,
        updated: note.updated,
      };
      if (note.source !== undefined) draft.source = note.source;
      // The facts' history and validity travel with the note, as in a JSONL export.
      if (note.supersedes?.length) draft.supersedes = [...note.supersedes];
      if (note.validFrom !== undefined) draft.validFrom = note.validFrom;
      if (note.validUntil !== undefined) draft.validUntil = note.validUntil;
      if (note.supersedes?.includes(note.id)) {
        out.skipped.push({ file, line, reason: `note ${note.id} cannot supersede itself` });
        line += countLineBreaks(section.raw);
        continue;
      }
      // `memo export --format md` names a note's scope when it is not the project's.
      const scope = markerScope(section.raw);
      if (scope !== undefined) draft.scope = scope;
      out.records.push({ draft, file, line });
    }
    line += countLineBreaks(section.raw);
  }
  for (const issue of parsed.issues) {
    out.skipped.push({ file, line: issue.line ?? 1, reason: issue.message });
  }
  return out;
}

/** The `scope` a section's marker names (a `memo export --format md`), when it is a scope. */
function markerScope(raw: string): NoteDraft["scope"] {
  const end = raw.indexOf(" -->");
  if (!raw.startsWith(NOTE_MARKER_START + " ") || end < 0) return undefined;
  try {
    const scope = JSON.parse(raw.slice(NOTE_MARKER_START.length + 1, end))?.scope;
    return scope === "user" || scope === "project" || scope === "local" ? scope : undefined;
  } catch {
    return undefined;
  }
}

/** A front matter value as a list of strings. */
function values(value: FrontMatterValue | undefined, split: RegExp): string[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return value.split(split);
  return [];
}

/** A front matter date as an ISO time, when it is one. */
function dateOf(value: FrontMatterValue | undefined): string | undefined {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}/.test(value.trim())) return undefined;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
