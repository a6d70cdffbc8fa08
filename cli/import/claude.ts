/**
 * Reads Claude Code memory: `CLAUDE.md`, `CLAUDE.local.md`, `MEMORY.md`, the markdown under
 * `.claude/`, and the topic files they link or `@`-import. One note per `##` section.
 *
 * @module
 */

import { basename, dirname, join, posix } from "node:path";
import { readdir } from "node:fs/promises";
import type { ImportRecord, ReaderOptions, ReaderResult } from "./types.ts";
import { CLAUDE_FILE_NAMES } from "./_detect.ts";
import {
  comparePaths,
  isMarkdownName,
  keyPart,
  pathKind,
  readUtf8,
  skipHiddenFolder,
  walkFiles,
} from "./_files.ts";

/** Folders under `.claude/` that hold no memory (commands, agents, skills, plugins, plans…). */
const NOT_MEMORY = new Set([
  "commands",
  "agents",
  "skills",
  "output-styles",
  "plugins",
  "hooks",
  "plans",
  "todos",
]);

/**
 * Reads Claude Code memory under a folder (or one memory file): `CLAUDE.md`, `CLAUDE.local.md`
 * and `MEMORY.md` at the top (any case), every `.md` under `.claude/` (or under the folder itself
 * when it is a `.claude` folder; `commands/`, `agents/`, `skills/`, `output-styles/`, `plugins/`,
 * `hooks/`, `plans/`, `todos/` and dot-folders skipped), every `.md` beside a `MEMORY.md` (Claude
 * Code's auto-memory folder: its topic files, which MEMORY.md often names without a link), and
 * the `.md` files they link (`[x](topic.md)`) or import (`@path/topic.md`), relative to the
 * linking file and inside the source, followed transitively, each once. Each file is split with
 * {@linkcode parseClaudeFile}. For a folder, `unread` lists the other `.md` files under it (walked
 * as the markdown reader walks: dot-folders and `node_modules` skipped), sorted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readClaude } from "./claude.ts";
 *
 * const dir = await mkdtemp(join(tmpdir(), "memo-claude-"));
 * try {
 *   await writeFile(join(dir, "MEMORY.md"), "# Memory\n## Build\nSee `debugging.md`.\n");
 *   await writeFile(join(dir, "debugging.md"), "## Flaky tests\nRun them twice.\n");
 *   await mkdir(join(dir, "vault"));
 *   await writeFile(join(dir, "vault", "idea.md"), "An idea.\n");
 *   const { records, unread } = await readClaude(dir, "folder", {});
 *   assert.deepEqual(records.map((r) => r.draft.source), [
 *     "claude:MEMORY.md#build",
 *     "claude:debugging.md#flaky-tests",
 *   ]);
 *   assert.deepEqual(unread, ["vault/idea.md"]);
 * } finally {
 *   await rm(dir, { recursive: true });
 * }
 * ```
 */
export async function readClaude(
  path: string,
  kind: "file" | "folder",
  options: ReaderOptions,
): Promise<ReaderResult> {
  const root = kind === "file" ? dirname(path) : path;
  const start: string[] = [];
  if (kind === "file") start.push(basename(path));
  else {
    const entries = await readdir(path, { withFileTypes: true });
    for (const entry of entries) {
      if (CLAUDE_FILE_NAMES.includes(entry.name.toLowerCase())) {
        if ((await pathKind(join(path, entry.name))) === "file") start.push(entry.name);
      }
    }
    const skipFolder = (name: string, rel: string) =>
      skipHiddenFolder(name) || (!rel.includes("/") && NOT_MEMORY.has(name));
    if (basename(path) === ".claude") {
      start.push(...await walkFiles(path, { file: isMarkdownName, skipFolder }));
    } else if ((await pathKind(join(path, ".claude"))) === "folder") {
      const inner = await walkFiles(join(path, ".claude"), { file: isMarkdownName, skipFolder });
      start.push(...inner.map((rel) => `.claude/${rel}`));
    }
  }
  const seen = new Set<string>();
  const queue: string[] = [];
  const enqueue = async (targets: string[]) => {
    for (const target of targets) {
      if (seen.has(target)) continue;
      seen.add(target);
      if ((await pathKind(join(root, target))) === "file") queue.push(target);
    }
  };
  await enqueue([...new Set(start)].sort(comparePaths));
  const out: ReaderResult = { records: [], skipped: [] };
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i];
    if (posix.basename(file).toLowerCase() === "memory.md") {
      await enqueue(await siblingMarkdown(root, file));
    }
    const read = await readUtf8(join(root, file));
    if ("badLine" in read) {
      out.skipped.push({ file, line: read.badLine, reason: "not UTF-8" });
    } else {
      out.records.push(...parseClaudeFile(read.text, file));
      await enqueue(linkedFiles(read.text, file));
    }
    options.onProgress?.(i + 1, queue.length);
  }
  if (kind === "folder") {
    const read = new Set(queue);
    const all = await walkFiles(path, { file: isMarkdownName });
    out.unread = all.filter((f) => !read.has(f));
  }
  return out;
}

/**
 * The `.md` files directly in the folder of a `MEMORY.md` (Claude Code's auto-memory folder: its
 * topic files), relative to the source, sorted.
 */
async function siblingMarkdown(root: string, file: string): Promise<string[]> {
  const dir = posix.dirname(file);
  const entries = await readdir(join(root, dir), { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries) {
    if (!isMarkdownName(entry.name) || entry.isDirectory()) continue;
    out.push(dir === "." ? entry.name : `${dir}/${entry.name}`);
  }
  return out.sort(comparePaths);
}

/**
 * Splits one Claude Code memory file into notes, one per `##` section: title = the heading, text
 * = the section (headings below `##` stay in it), source `claude:<file>#<slug>` (GitHub-style
 * slug; a repeated one gets `-1`, `-2`…). The text before the first `##`, without a leading `# `
 * line, is a note too when not empty: title = that `# ` heading or the file name, source
 * `claude:<file>`. Sections with no text are not notes. Headings inside code fences do not count.
 * Labels: `["claude"]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseClaudeFile } from "./claude.ts";
 *
 * const text = "# Project\nUse pnpm.\n## Style: tabs!\nTabs.\n## Empty\n## Style: tabs!\nReally.\n";
 * const records = parseClaudeFile(text, "CLAUDE.md");
 * assert.deepEqual(records.map((r) => [r.line, r.draft.title, r.draft.source]), [
 *   [1, "Project", "claude:CLAUDE.md"],
 *   [3, "Style: tabs!", "claude:CLAUDE.md#style-tabs"],
 *   [6, "Style: tabs!", "claude:CLAUDE.md#style-tabs-1"],
 * ]);
 * assert.equal(records[0].draft.text, "Use pnpm.");
 * ```
 */
export function parseClaudeFile(text: string, file: string): ImportRecord[] {
  const lines = text.split(/\r?\n/);
  const key = `claude:${keyPart(file)}`;
  const sections: { title: string; line: number; body: string[] }[] = [];
  const preamble: string[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(l);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1];
      else if (fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
    } else if (fence === null && /^ {0,3}##(\s|$)/.test(l)) {
      const title = l.trim().replace(/^##\s*/, "").replace(/\s+#+\s*$/, "").trim();
      sections.push({ title, line: i + 1, body: [] });
      continue;
    }
    (sections.at(-1)?.body ?? preamble).push(l);
  }
  const records: ImportRecord[] = [];
  const draft = (title: string, body: string[], source: string) => ({
    title,
    text: trimBlank(body),
    labels: ["claude"],
    source,
  });
  let first = preamble.findIndex((l) => l.trim() !== "");
  if (first >= 0) {
    const line = first + 1;
    let title = basename(file);
    if (/^ {0,3}#\s+\S/.test(preamble[first])) {
      title = preamble[first].trim().replace(/^#\s+/, "").replace(/\s+#+\s*$/, "");
      preamble.splice(first, 1);
    }
    first = preamble.findIndex((l) => l.trim() !== "");
    if (first >= 0) records.push({ draft: draft(title, preamble, key), file, line });
  }
  const slugs = new Map<string, number>();
  for (const s of sections) {
    const base = slugOf(s.title);
    const n = slugs.get(base);
    slugs.set(base, (n ?? -1) + 1);
    const slug = n === undefined ? base : `${base}-${n + 1}`;
    if (s.body.some((l) => l.trim() !== "")) {
      records.push({
        draft: draft(s.title, s.body, `${key}#${keyPart(slug)}`),
        file,
        line: s.line,
      });
    }
  }
  return records;
}

/** A GitHub-style heading slug: lower case, punctuation dropped, spaces as `-`. */
export function slugOf(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Lines without leading and trailing blank lines, joined with `\n`. */
function trimBlank(lines: string[]): string {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === "") a++;
  while (b > a && lines[b - 1].trim() === "") b--;
  return lines.slice(a, b).join("\n").trimEnd();
}

/**
 * The `.md` files a memory file links (`[x](rel.md)`) or imports (`@rel/path.md`), as paths
 * relative to the source; links leaving the source, absolute paths, `~` paths and URLs are left
 * out. Code fences and code spans are not searched.
 */
export function linkedFiles(text: string, file: string): string[] {
  const plain = text.replace(
    /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(^ {0,3}\1[^\n]*$|(?![\s\S]))/gm,
    "",
  )
    .replace(/`[^`\n]*`/g, "");
  const targets: string[] = [];
  const link = /\[[^\]\n]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+["'][^"'\n]*["'])?\s*\)/g;
  for (const m of plain.matchAll(link)) targets.push(m[1] ?? m[2]);
  for (const m of plain.matchAll(/(?:^|\s)@([^\s`]+)/g)) {
    targets.push(m[1].replace(/[.,;:!?)\]]+$/, ""));
  }
  const out: string[] = [];
  const dir = posix.dirname(file);
  for (let target of targets) {
    target = target.replace(/[#?].*$/, "");
    try {
      target = decodeURIComponent(target);
    } catch {
      // kept as written
    }
    if (target === "" || /^[a-z][a-z0-9+.-]*:/i.test(target) || /^[/~\\]/.test(target)) continue;
    if (!isMarkdownName(target)) continue;
    const rel = posix.normalize(posix.join(dir, target.replace(/\\/g, "/")));
    if (rel === ".." || rel.startsWith("../") || posix.isAbsolute(rel)) continue;
    if (!out.includes(rel)) out.push(rel);
  }
  return out;
}
