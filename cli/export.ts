/**
 * The `memo export` subcommand: every note with all its metadata, oldest first, as JSONL (one note
 * per line, what `memo import` reads back) or in the `notes.md` format.
 *
 * @module
 */

import { resolve } from "node:path";
import { NOTES_PREAMBLE, serializeNote } from "@memo/memory";
import type { MemoMcpRuntime, Note } from "../runtimes/mod.ts";
import { choiceFlag, parseArgs, positionals, stringFlag, UsageError } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";
import { withProjectRuntime } from "./runtime.ts";
import { writeFileAtomically } from "./write_file.ts";

/**
 * One note as `memo export --format md` writes it: its `notes.md` section, with its scope in the
 * marker when it is not the project's (a `notes.md` reader passes over the key; `memo import` puts
 * the note back in that scope).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportSection } from "./export.ts";
 *
 * const note = {
 *   id: "a1", title: "VPN", body: "ask IT", labels: [], hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z", updated: "2025-01-01T00:00:00.000Z",
 * };
 * assert.match(exportSection({ ...note, scope: "local" }), /^<!-- memo:note \{.*,"scope":"local"\} -->\n## VPN\n/);
 * assert.doesNotMatch(exportSection({ ...note, scope: "project" }), /scope/);
 * ```
 */
export function exportSection(note: Note): string {
  const text = serializeNote(note);
  if (note.scope === undefined || note.scope === "project") return text;
  const close = text.indexOf("} -->\n");
  return `${text.slice(0, close)},"scope":${JSON.stringify(note.scope)}${text.slice(close)}`;
}

/** The formats `memo export --format` writes. */
export type ExportFormat = "jsonl" | "md";

const PAGE = 1000;

/**
 * One note as a line of `memo export`'s JSONL: the keys in the order `id, title, body, labels,
 * source` (only when set)`, hash, created, updated`, then `supersedes, validFrom, validUntil` (each
 * only when set; the derived `supersededBy` is not written), and a line break.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportLine } from "./export.ts";
 *
 * const line = exportLine({
 *   id: "01jqz0000000000000000000aa",
 *   title: "Deploys",
 *   body: "Run make deploy.",
 *   labels: ["infra"],
 *   hash: "0123abcd",
 *   created: "2025-01-01T00:00:00.000Z",
 *   updated: "2025-01-01T00:00:00.000Z",
 * });
 * assert.deepEqual(Object.keys(JSON.parse(line)), [
 *   "id", "title", "body", "labels", "hash", "created", "updated",
 * ]);
 * assert.ok(line.endsWith("}\n"));
 * ```
 */
export function exportLine(note: Note): string {
  const record: Record<string, unknown> = {
    id: note.id,
    title: note.title,
    body: note.body,
    labels: note.labels,
  };
  if (note.source !== undefined) record.source = note.source;
  record.hash = note.hash;
  record.created = note.created;
  record.updated = note.updated;
  if (note.supersedes?.length) record.supersedes = note.supersedes;
  if (note.validFrom !== undefined) record.validFrom = note.validFrom;
  if (note.validUntil !== undefined) record.validUntil = note.validUntil;
  // A project note names no scope: it goes to the importing project's default scope.
  if (note.scope !== undefined && note.scope !== "project") record.scope = note.scope;
  return JSON.stringify(record) + "\n";
}

/**
 * Every note of a runtime, oldest first, a page at a time, superseded notes (history) included.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMemoMcpRuntimeFromConfig } from "@memo/mcp-server";
 * import { allNotes } from "./export.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const runtime = createMemoMcpRuntimeFromConfig({ rootDir });
 * await runtime.remember({ text: "first" });
 * await runtime.remember({ text: "second" });
 * const titles: string[] = [];
 * for await (const page of allNotes(runtime)) titles.push(...page.map((n) => n.title));
 * assert.deepEqual(titles, ["first", "second"]);
 * await runtime.close();
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export async function* allNotes(
  runtime: Pick<MemoMcpRuntime, "list">,
  options: { source?: string } = {},
): AsyncGenerator<Note[]> {
  let cursor: string | undefined;
  do {
    const page = await runtime.list({
      cursor,
      limit: PAGE,
      order: "oldest",
      source: options.source,
      includeSuperseded: true,
    });
    if (page.notes.length) yield page.notes;
    cursor = page.notes.length ? page.nextCursor : undefined;
  } while (cursor);
}

/**
 * The `memo export [--format jsonl|md] [--out FILE] [--dir D]` subcommand. Without `--out` the
 * notes go to stdout and nothing else does; with it, the file is written atomically and `Exported N
 * notes to FILE.` goes to stderr.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { runCli } from "./main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const io = recordingIO(rootDir);
 * await runCli(["remember", "Deploys run with make deploy", "--source", "wiki:deploy"], io);
 * io.out.length = 0;
 * assert.equal(await runCli(["export"], io), 0);
 * const [note] = io.out.join("").trimEnd().split("\n").map((line) => JSON.parse(line));
 * assert.equal(note.source, "wiki:deploy");
 * assert.equal(await runCli(["export", "--format", "md", "--out", "notes.md"], io), 0);
 * assert.deepEqual(io.err, ["Exported 1 note to notes.md.\n"]);
 * assert.match(await Deno.readTextFile(`${rootDir}/notes.md`), /^# Memory\n/);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const exportCommand: CliCommand = {
  ...COMMAND_INFO.export,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir", "format", "out"] });
    positionals(p, []);
    const format = choiceFlag(p, "format", ["jsonl", "md"] as const) ?? "jsonl";
    const out = stringFlag(p, "out");
    if (out === "") throw new UsageError("flag --out needs a file name");
    // The derived supersededBy is never written (serializeNote leaves it out too).
    const encode = format === "md" ? exportSection : exportLine;
    const head = format === "md" ? NOTES_PREAMBLE : "";
    if (out === undefined) {
      // Page by page: a large memory is not held in one string.
      let first = true;
      await withProjectRuntime(p, io, async (runtime) => {
        for await (const page of allNotes(runtime)) {
          await io.stdout((first ? head : "") + page.map(encode).join(""));
          first = false;
        }
      });
      if (first && head) await io.stdout(head);
      return 0;
    }
    const parts: string[] = [head];
    let count = 0;
    await withProjectRuntime(p, io, async (runtime) => {
      for await (const page of allNotes(runtime)) {
        parts.push(...page.map(encode));
        count += page.length;
      }
    });
    try {
      await writeFileAtomically(resolve(io.cwd, out), parts.join(""));
    } catch (e) {
      const reason = (e as { code?: string }).code ?? (e as Error).message;
      throw new Error(`Cannot export to ${out}: ${reason}`);
    }
    await io.stderr(`Exported ${count} note${count === 1 ? "" : "s"} to ${out}.\n`);
    return 0;
  },
};
