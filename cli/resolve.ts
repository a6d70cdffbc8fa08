/**
 * `memo resolve`: ends an unresolved git merge of `notes.md`. When git's text merge left the file
 * with conflict markers (a clone without the merge driver), it writes the merge that reads
 * already return: the file's two sides merged note by note, with the base from the file's
 * `|||||||` parts or from git's index (stage 1) during a merge, else without a base. One atomic
 * rewrite; the result equals the driver's (`memo merge-file`) on the same three versions. It
 * prints what it did, and then you `git add` the file.
 *
 * @module
 */

import { relative } from "node:path";
import { FileMemoryStore, type UnresolvedMerge } from "@memo/memory";
import { boolFlag, parseArgs, positionals } from "./args.ts";
import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";
import { jsonDocument } from "./output.ts";
import { projectRoot } from "./runtime.ts";

/**
 * What `memo resolve` prints after writing the merge.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatResolved } from "./resolve.ts";
 *
 * const merge = { path: "/p/.memo/memory/notes.md", hunks: 2, base: "given" as const, conflicts: 1, twins: 0 };
 * assert.equal(
 *   formatResolved(merge, 5, ".memo/memory/notes.md"),
 *   "Resolved .memo/memory/notes.md: 2 conflict hunks merged note by note (base: git's index), " +
 *     "5 notes kept, 1 conflict copy (memo list --label conflict)\n" +
 *     "Now run: git add .memo/memory/notes.md\n",
 * );
 * ```
 */
export function formatResolved(merge: UnresolvedMerge, notes: number, shown: string): string {
  const base = merge.base === "file"
    ? "the file's diff3 parts"
    : merge.base === "given"
    ? "git's index"
    : "none, two-sided";
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  let text = `Resolved ${shown}: ${
    plural(merge.hunks, "conflict hunk", "conflict hunks")
  } merged note by note (base: ${base}), ${plural(notes, "note", "notes")} kept`;
  if (merge.twins) {
    text += `, ${plural(merge.twins, "note", "notes")} added on both sides kept once`;
  }
  text += merge.conflicts
    ? `, ${
      plural(merge.conflicts, "conflict copy", "conflict copies")
    } (memo list --label conflict)\n`
    : ", no conflict copies\n";
  return text + `Now run: git add ${shown}\n`;
}

/**
 * The `resolve` command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { resolveCommand } from "./resolve.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const io = recordingIO(dir);
 * assert.equal(await resolveCommand.run(["--dir", dir], io), 0);
 * assert.match(io.out.join(""), /no conflict markers/); // nothing to resolve
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export const resolveCommand: CliCommand = {
  ...COMMAND_INFO.resolve,
  run: async (argv, io) => {
    const p = parseArgs(argv, { string: ["dir"], boolean: ["json"] });
    positionals(p, []);
    const root = await projectRoot(p, io);
    const store = new FileMemoryStore({ rootDir: root });
    try {
      const merge = await store.resolveMerge();
      const shown = relative(io.cwd, store.paths.notes) || store.paths.notes;
      const notes = merge ? (await store.snapshot()).notes.length : undefined;
      if (boolFlag(p, "json")) {
        await io.stdout(jsonDocument({
          resolved: merge !== undefined,
          path: store.paths.notes,
          ...(merge
            ? {
              hunks: merge.hunks,
              base: merge.base,
              notes,
              conflicts: merge.conflicts,
              twins: merge.twins,
            }
            : {}),
        }));
      } else {
        await io.stdout(
          merge
            ? formatResolved(merge, notes!, shown)
            : `Nothing to resolve: ${shown} holds no conflict markers\n`,
        );
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
