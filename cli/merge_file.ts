/**
 * `memo merge-file BASE OURS THEIRS`: the git merge driver of `notes.md` (`%O %A %B`). It merges
 * the three versions note by note (`mergeNotesFileParts`, the hybrid runtime's conflict rule) and
 * writes the result over OURS, exit 0. When a side cannot be read as notes, it falls back to git's
 * own text merge (`git merge-file`, which writes over OURS too) and exits 1, so that nothing is
 * lost and git reports the conflict as usual. It never writes to stdout.
 *
 * @module
 */

import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { mergeNotesFileParts } from "@memo/memory";
import { parseArgs, positionals } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand, CliIO } from "./context.ts";
import { errorLine } from "./output.ts";
import { writeFileAtomically } from "./write_file.ts";

/**
 * The files' texts, each undefined when it is not UTF-8 (a binary side cannot be notes). The
 * files are read one after the other into one buffer (three 100 MB buffers cost time to map).
 */
async function readTexts(paths: readonly string[]): Promise<(string | undefined)[]> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let buffer = new Uint8Array(0);
  const texts: (string | undefined)[] = [];
  for (const path of paths) {
    const file = await open(path, "r");
    try {
      let size = 0;
      for (;;) {
        if (size === buffer.length) {
          const next = new Uint8Array(Math.max((await file.stat()).size + 1, size * 2, 1 << 16));
          next.set(buffer.subarray(0, size));
          buffer = next;
        }
        const { bytesRead } = await file.read(buffer, size, buffer.length - size, null);
        if (bytesRead === 0) break;
        size += bytesRead;
      }
      try {
        texts.push(decoder.decode(buffer.subarray(0, size)));
      } catch {
        texts.push(undefined);
      }
    } finally {
      await file.close();
    }
  }
  return texts;
}

/** `git merge-file OURS BASE THEIRS`: git's text merge, written over OURS. */
async function textMerge(io: CliIO, base: string, ours: string, theirs: string): Promise<void> {
  if (!io.runProgram) {
    await io.stderr(errorLine("merge-file: cannot run git merge-file here; OURS is left as it is"));
    return;
  }
  const result = await io.runProgram("git", ["merge-file", ours, base, theirs], io.cwd);
  if (result.code < 0) {
    await io.stderr(errorLine(`merge-file: git merge-file failed: ${result.stderr}`));
  }
}

/**
 * The `merge-file` command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readFile, writeFile } from "node:fs/promises";
 * import { NOTES_PREAMBLE, serializeNote } from "@memo/memory";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { mergeFileCommand } from "./merge_file.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const note = (id: string, body: string) => serializeNote({
 *   id, title: body, body, labels: [], hash: "0123abcd",
 *   created: "2026-01-01T00:00:00.000Z", updated: "2026-01-01T00:00:00.000Z",
 * });
 * await writeFile(`${dir}/base`, NOTES_PREAMBLE);
 * await writeFile(`${dir}/ours`, NOTES_PREAMBLE + note("n1", "a"));
 * await writeFile(`${dir}/theirs`, NOTES_PREAMBLE + note("n2", "b"));
 * const io = recordingIO(dir);
 * assert.equal(await mergeFileCommand.run(["base", "ours", "theirs"], io), 0);
 * assert.equal(await readFile(`${dir}/ours`, "utf8"), NOTES_PREAMBLE + note("n1", "a") + note("n2", "b"));
 * assert.deepEqual(io.out, []); // nothing on stdout
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const mergeFileCommand: CliCommand = {
  ...COMMAND_INFO["merge-file"],
  run: async (argv, io) => {
    const [base, ours, theirs] = positionals(parseArgs(argv, {}), ["BASE", "OURS", "THEIRS"])
      .map((p) => resolve(io.cwd, p));
    const texts = await readTexts([base, ours, theirs]);
    const [b, o, t] = texts;
    const names = ["base", "ours", "theirs"];
    const merged = b === undefined || o === undefined || t === undefined
      ? {
        ok: false as const,
        side: names[texts.indexOf(undefined)],
        reason: "it is not UTF-8 text",
      }
      : mergeNotesFileParts({ base: b, ours: o, theirs: t });
    if (merged.ok) {
      await writeFileAtomically(ours, merged.parts);
      return 0;
    }
    await io.stderr(
      errorLine(
        `merge-file: ${merged.side} cannot be read as notes (${merged.reason}); ` +
          "falling back to git merge-file",
      ),
    );
    await textMerge(io, base, ours, theirs);
    return 1;
  },
};
