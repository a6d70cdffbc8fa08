/**
 * The `memo import` subcommand: reads a source with `cli/import/` (the server-memory
 * `memory.jsonl`, Claude Code memory files, a folder of markdown, memo's own JSONL export) and
 * writes every good record in one all-or-nothing `rememberMany`.
 *
 * @module
 */

import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { maskSecrets } from "@memo/memory";
import { detectImportFormat, readImportSource } from "./read_source.ts";
import { IMPORT_FORMATS, type ImportFormat, type ImportRead, type ImportSkip } from "./types.ts";
import { boolFlag, choiceFlag, parseArgs, positionals, UsageError } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { jsonDocument } from "../output.ts";
import { progressBar, progressLine } from "../progress.ts";
import { withProjectRuntime } from "../runtime.ts";

/**
 * What `memo import --json` prints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { ImportSummary } from "./command.ts";
 *
 * const summary: ImportSummary = {
 *   source: "memory.jsonl",
 *   format: "server-memory",
 *   written: 3,
 *   updated: 0,
 *   unchanged: 0,
 *   skipped: [{ file: "memory.jsonl", line: 4, reason: "not JSON" }],
 *   unread: 0,
 * };
 * assert.equal(summary.skipped.length, 1);
 * ```
 */
export interface ImportSummary {
  /** SOURCE as given on the command line. */
  source: string;
  /** The format read (given with `--from`, else detected). */
  format: ImportFormat;
  written: number;
  /** Notes that existed (same source key) with other content, changed in place. */
  updated: number;
  /** Records already stored as they are. */
  unchanged: number;
  /** Bad records, each with its file (relative to SOURCE) and line. */
  skipped: ImportSkip[];
  /**
   * How many `.md` files under a Claude Code SOURCE folder were not read as Claude Code memory (0
   * for the other formats); `--from markdown` reads them.
   */
  unread: number;
  /**
   * The secrets the guard replaced with `[redacted:<rule-id>]`, each with its record's file and
   * line (never the value); absent when there were none.
   */
  redacted?: { file: string; line: number; rule: string; field: string }[];
}

/**
 * The summary line of `memo import`. `records` is the number of good records read (records that
 * name the same note count once in the written/updated/unchanged figures).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatImportSummary } from "./command.ts";
 *
 * assert.equal(
 *   formatImportSummary({
 *     source: "notes/",
 *     format: "markdown",
 *     written: 2,
 *     updated: 1,
 *     unchanged: 4,
 *     skipped: [],
 *     unread: 0,
 *   }),
 *   "Imported 7 records from notes/ (markdown): 2 written, 1 updated, 4 unchanged, 0 skipped.\n",
 * );
 * ```
 */
export function formatImportSummary(
  summary: ImportSummary,
  records: number = summary.written + summary.updated + summary.unchanged,
): string {
  const { source, format, written, updated, unchanged, skipped } = summary;
  return `Imported ${records} record${records === 1 ? "" : "s"} from ${source} (${format}): ` +
    `${written} written, ${updated} updated, ${unchanged} unchanged, ${skipped.length} skipped.\n`;
}

/** Reads SOURCE, with a progress bar on a terminal. */
async function readSource(
  io: CliIO,
  path: string,
  from: ImportFormat,
): Promise<ImportRead> {
  if (!io.stderrIsTerminal) return await readImportSource(path, { from });
  const line = progressLine(io);
  try {
    return await readImportSource(path, {
      from,
      onProgress: (done, total) => line.show(`memo: reading ${progressBar(done, total)}`),
    });
  } finally {
    line.end();
    await line.flush();
  }
}

/**
 * The `memo import SOURCE [--from F] [--strict] [--json] [--dir D]` subcommand. Bad records are
 * reported on stderr as `memo: skipped
 * <file>:<line>: <reason>` and left out (exit 0); with `--strict` any bad
 * record refuses the whole import (exit 1, nothing written).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { runCli } from "../main.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * await Deno.writeTextFile(
 *   `${rootDir}/memory.jsonl`,
 *   JSON.stringify({ type: "entity", name: "Ada", entityType: "person", observations: ["Writes Rust"] }) +
 *     "\n{not json\n",
 * );
 * const io = recordingIO(rootDir);
 * assert.equal(await runCli(["import", "memory.jsonl"], io), 0);
 * assert.match(io.err[0], /^memo: skipped memory\.jsonl:2: /);
 * assert.equal(
 *   io.out.at(-1),
 *   "Imported 1 record from memory.jsonl (server-memory): 1 written, 0 updated, 0 unchanged, 1 skipped.\n",
 * );
 * assert.equal(await runCli(["import", "memory.jsonl", "--strict"], io), 1);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const importCommand: CliCommand = {
  ...COMMAND_INFO.import,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "from", "secrets", "scope"],
      boolean: ["json", "strict"],
    });
    const scopeFlag = choiceFlag(p, "scope", ["user", "project", "local"] as const);
    const [source] = positionals(p, ["source"]);
    if (source === "") throw new UsageError("SOURCE is empty");
    let from = choiceFlag(p, "from", IMPORT_FORMATS);
    const path = resolve(io.cwd, source);
    try {
      await stat(path);
    } catch (e) {
      const code = (e as { code?: string }).code;
      const reason = code === "ENOENT" ? "no such file or folder" : code ?? (e as Error).message;
      throw new Error(`Cannot import ${source}: ${reason}`);
    }
    from ??= await detectImportFormat(path);
    if (from === undefined) {
      throw new UsageError(
        `Cannot tell what ${source} holds: pass --from ${IMPORT_FORMATS.join("|")}`,
      );
    }
    const read = await readSource(io, path, from);
    // A reason may quote the record (a front matter line, an entity's name): no secret in it.
    read.skipped = await Promise.all(
      read.skipped.map(async (s) => ({ ...s, reason: await maskSecrets(s.reason) })),
    );
    for (const skip of read.skipped) {
      await io.stderr(`memo: skipped ${skip.file}:${skip.line}: ${skip.reason}\n`);
    }
    const unread = read.unread?.length ?? 0;
    if (unread > 0) {
      await io.stderr(
        unread === 1
          ? `memo: 1 other markdown file under ${source} was not read as Claude Code memory; ` +
            `import it with --from markdown\n`
          : `memo: ${unread} other markdown files under ${source} were not read as Claude Code ` +
            `memory; import them with --from markdown\n`,
      );
    }
    const strict = boolFlag(p, "strict");
    if (strict && read.skipped.length) {
      const n = read.skipped.length;
      throw new Error(
        `Cannot import ${source}: ${n} record${n === 1 ? " is" : "s are"} bad (--strict)`,
      );
    }
    const summary: ImportSummary = {
      source,
      format: read.format,
      written: 0,
      updated: 0,
      unchanged: 0,
      skipped: read.skipped,
      unread,
    };
    if (read.records.length) {
      const line = io.stderrIsTerminal ? progressLine(io) : undefined;
      const n = read.records.length;
      line?.show(`memo: writing ${n} note${n === 1 ? "" : "s"}…`);
      try {
        const result = await withProjectRuntime(p, io, (runtime) => {
          if (!runtime.rememberMany) {
            throw new Error(`Cannot import ${source}: this runtime cannot write in one batch`);
          }
          // --scope wins; Claude Code's user memory (~/.claude) goes to the user scope; an
          // export keeps each note's scope; the rest goes to the default scope.
          const scope = scopeFlag ??
            (from === "claude" && isClaudeUserMemory(path, io.env) ? "user" : undefined);
          return runtime.rememberMany(
            read.records.map((r) => scope ? { ...r.draft, scope } : r.draft),
          );
        });
        summary.written = result.written.length;
        summary.updated = result.updated.length;
        summary.unchanged = result.unchanged.length;
        if (result.redacted?.length) {
          summary.redacted = result.redacted.map((r) => {
            const record = read.records[r.index ?? 0];
            return { file: record.file, line: record.line, rule: r.rule, field: r.field };
          });
        }
      } finally {
        line?.end();
        await line?.flush();
      }
    }
    if (!boolFlag(p, "json")) {
      for (const r of summary.redacted ?? []) {
        await io.stderr(`memo: redacted ${r.file}:${r.line}: ${r.rule} in ${r.field}\n`);
      }
    }
    await io.stdout(
      boolFlag(p, "json")
        ? jsonDocument(summary)
        : formatImportSummary(summary, read.records.length),
    );
    return 0;
  },
};

/** Whether `path` is Claude Code's user memory (`~/.claude/CLAUDE.md`, or the `~/.claude` folder). */
function isClaudeUserMemory(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  const home = env.HOME ?? env.USERPROFILE;
  if (!home) return false;
  const dir = resolve(home, ".claude");
  return path === dir || (dirname(path) === dir && /^claude\.md$/i.test(basename(path)));
}
