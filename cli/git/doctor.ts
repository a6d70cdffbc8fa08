/**
 * `memo doctor [--json]`: checks a project and prints one line per problem, with its fix. It
 * checks the git wiring (the notes' merge attribute and driver), an unresolved merge in
 * `notes.md`, damaged notes, dangling `supersedes` links and a `.memo/.gitignore` that lets
 * per-machine state into git. Every fix names the project's root. A project outside git is not a
 * problem. Exit 0 when nothing needs a fix, else 1.
 *
 * @module
 */

import { stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import {
  conflictScanFor,
  memoPaths,
  mergeConflictedNotes,
  parseNotes,
  scopePaths,
  splitConflict,
} from "@memo/memory";
import { boolFlag, parseArgs, positionals } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand } from "../context.ts";
import { memoGitignore, readIfExists } from "../init/init.ts";
import { jsonDocument } from "../output.ts";
import { memoHomeOf } from "../../env.ts";
import { projectRoot } from "../runtime.ts";
import { checkRuntimeConfig, readProjectRuntimeConfig } from "../../runtimes/start/mod.ts";
import { initFix, readGitWiring, type RunProgram, shellWord } from "./wiring.ts";

/**
 * The stable codes of the problems `memo doctor` reports.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DOCTOR_CODES } from "./doctor.ts";
 *
 * assert.ok(DOCTOR_CODES.includes("git-driver-missing"));
 * ```
 */
export const DOCTOR_CODES = [
  "no-project",
  "config-invalid",
  "git-attribute-missing",
  "git-driver-missing",
  "gitignore-leaks",
  "unresolved-merge",
  "damaged-note",
  "duplicate-id",
  "dangling-supersedes",
  "id-in-two-scopes",
] as const;

/**
 * A problem's stable code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { DoctorCode } from "./doctor.ts";
 *
 * const code: DoctorCode = "unresolved-merge";
 * assert.equal(code, "unresolved-merge");
 * ```
 */
export type DoctorCode = typeof DOCTOR_CODES[number];

/**
 * One problem `memo doctor` found: its stable code, what is wrong and the fix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { DoctorProblem } from "./doctor.ts";
 *
 * const problem: DoctorProblem = {
 *   code: "git-driver-missing",
 *   message: "this clone has no merge driver for .memo/memory/notes.md",
 *   fix: "memo init --dir /work/app",
 * };
 * assert.equal(problem.fix, "memo init --dir /work/app");
 * ```
 */
export interface DoctorProblem {
  /** The stable code. */
  code: DoctorCode;
  /** What is wrong, in one line. */
  message: string;
  /** What fixes it, in one line (a command naming the project root, or an edit). */
  fix: string;
}

/** A line that opens or closes a fenced code block (three backticks or tildes, up to 3 spaces in). */

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

/**
 * Checks the project at `root` (`run` runs git; without it, the git checks are skipped) and
 * returns its problems, in a fixed order: the project, the git wiring, the notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir, writeFile } from "node:fs/promises";
 * import { runProgram } from "../../platform/mod.ts";
 * import { diagnose } from "./doctor.ts";
 *
 * const root = await Deno.makeTempDir();
 * assert.deepEqual((await diagnose(root, runProgram)).map((p) => p.code), ["no-project"]);
 * await mkdir(`${root}/.memo/memory`, { recursive: true });
 * assert.deepEqual(await diagnose(root, runProgram), []); // outside git, no notes: all is well
 * await writeFile(`${root}/.memo/memory/notes.md`, "<<<<<<< a\n=======\n>>>>>>> b\n");
 * assert.deepEqual((await diagnose(root, runProgram)).map((p) => p.code), ["unresolved-merge"]);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function diagnose(
  root: string,
  run?: RunProgram,
  memoHome?: string,
): Promise<DoctorProblem[]> {
  const paths = memoPaths(root);
  const init = initFix(root);
  if (!await exists(paths.dir)) {
    return [{ code: "no-project", message: `no memo project (.memo/) in ${root}`, fix: init }];
  }
  const problems: DoctorProblem[] = [];
  // What every other command would refuse at start.
  try {
    const file = await readProjectRuntimeConfig(root);
    checkRuntimeConfig({ mode: file.runtime, recall: file.recall });
  } catch (e) {
    problems.push({
      code: "config-invalid",
      message: e instanceof Error ? e.message : String(e),
      fix: `edit ${shellWord(paths.config)} (see docs/configuration.md)`,
    });
  }
  const wiring = run ? await readGitWiring(run, root) : undefined;
  if (wiring?.inGit) {
    if (!wiring.attribute) {
      problems.push({
        code: "git-attribute-missing",
        message: ".memo/.gitattributes does not give memory/notes.md the memo merge driver " +
          "(merge=memo): git merges notes as text",
        fix: init,
      });
    } else if (wiring.driver === undefined) {
      problems.push({
        code: "git-driver-missing",
        message: "this clone has no merge driver for .memo/memory/notes.md " +
          "(merge.memo.driver is not set): git merges notes as text",
        fix: init,
      });
    }
    if (memoGitignore(root, await readIfExists(join(paths.dir, ".gitignore"))) !== undefined) {
      problems.push({
        code: "gitignore-leaks",
        message: ".memo/.gitignore lets per-machine state into git " +
          "(it must list cache/, replica/, connectors/state.json, memory/notes.md.lock and " +
          "the local scope's memory/notes.local.md and its lock)",
        fix: init,
      });
    }
  }

  const text = await readIfExists(paths.notes);
  if (text === undefined) return problems;
  // The merge `memo resolve` would make; undefined when the file holds no conflict.
  const scan = await conflictScanFor(text, paths.notes);
  const merged = mergeConflictedNotes(text, undefined, scan);
  if (!merged) problems.push(...await twoScopes(root, text, memoHome));
  const notesFile = relative(root, paths.notes).split(sep).join("/");
  if (merged) {
    // `memo resolve` cannot merge a side it cannot read as notes: then the fix is by hand.
    const at = merged.ok ? undefined : fileLine(text, merged, scan);
    problems.push(
      !merged.ok
        ? {
          code: "unresolved-merge",
          message: `${notesFile} holds an unresolved merge (git's conflict markers), and its ` +
            `${merged.side} side cannot be read as notes (${
              at === undefined
                ? merged.reason.replace(/^line (\d+):/, `line $1 of that side:`)
                : merged.reason.replace(/^line \d+:/, `line ${at}:`)
            })`,
          fix: `edit ${notesFile}: mend that note ${
            at === undefined ? `on the ${merged.side} side of the markers` : `(line ${at})`
          }, then memo resolve --dir ${shellWord(root)} and git add ${notesFile}`,
        }
        : {
          code: "unresolved-merge",
          message: `${notesFile} holds an unresolved merge (git's conflict markers)`,
          fix: `memo resolve --dir ${shellWord(root)}, then git add ${notesFile}`,
        },
    );
    return problems; // the notes themselves are checked once the merge is resolved
  }
  const parsed = parseNotes(text);
  for (const issue of parsed.issues) {
    if (issue.kind !== "damaged-note" && issue.kind !== "duplicate-id") continue;
    const at = issue.line === undefined ? notesFile : `${notesFile} line ${issue.line}`;
    problems.push({
      code: issue.kind,
      message: `${at}: ${issue.message}`,
      fix: issue.kind === "damaged-note"
        ? `edit ${at} (memo keeps the section as written and reads no note from it)`
        : `edit ${at}: give one of the two notes another id, or remove it`,
    });
  }
  for (const section of parsed.sections) {
    const note = section.note;
    for (const target of note?.supersedes ?? []) {
      if (parsed.byId.has(target)) continue;
      problems.push({
        code: "dangling-supersedes",
        message: `note ${note!.id} supersedes ${target}, which is not in ${notesFile}`,
        fix: `reads ignore the link; to drop it, remove "${target}" from the supersedes of ` +
          `note ${note!.id} in ${notesFile}`,
      });
    }
  }
  return problems;
}

/** Ids that the project and another scope both hold (a move that git or a replica undid). */
async function twoScopes(
  root: string,
  projectText: string,
  memoHome: string | undefined,
): Promise<DoctorProblem[]> {
  const project = parseNotes(projectText).byId;
  const problems: DoctorProblem[] = [];
  const others: [string, string | undefined][] = [
    ["local", scopePaths("local", { rootDir: root }).notes],
    ["user", memoHome && scopePaths("user", { rootDir: root, memoHome }).notes],
  ];
  for (const [scope, path] of others) {
    const text = path && await readIfExists(path);
    if (!text) continue;
    for (const id of parseNotes(text).byId.keys()) {
      if (!project.has(id)) continue;
      problems.push({
        code: "id-in-two-scopes",
        message: `note ${id} is in the project scope and in the ${scope} scope (${path}); ` +
          "reads show the project's copy",
        fix: `keep one: memo forget ${id} removes the project's copy, then memo get ${id} ` +
          `shows the ${scope} one; or delete its section from ${path}`,
      });
    }
  }
  return problems;
}

/**
 * The human report of `memo doctor`: one line per problem with its fix, or one line saying that
 * nothing needs a fix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatDoctor } from "./doctor.ts";
 *
 * assert.equal(formatDoctor("/work/app", []), "memo doctor: nothing to fix in /work/app\n");
 * assert.equal(
 *   formatDoctor("/work/app", [{ code: "git-driver-missing", message: "no driver", fix: "memo init --dir /work/app" }]),
 *   "git-driver-missing: no driver; fix: memo init --dir /work/app\n",
 * );
 * ```
 */
export function formatDoctor(root: string, problems: readonly DoctorProblem[]): string {
  if (!problems.length) return `memo doctor: nothing to fix in ${root}\n`;
  return problems.map((p) => `${p.code}: ${p.message}; fix: ${p.fix}\n`).join("");
}

/**
 * The `doctor` command.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir } from "node:fs/promises";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { doctorCommand } from "./doctor.ts";
 *
 * const root = await Deno.makeTempDir();
 * await mkdir(`${root}/.memo`);
 * const io = recordingIO(root);
 * assert.equal(await doctorCommand.run(["--json"], io), 0);
 * assert.deepEqual(JSON.parse(io.out.join("")), { problems: [] });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export const doctorCommand: CliCommand = {
  ...COMMAND_INFO.doctor,
  async run(argv, io) {
    const p = parseArgs(argv, { string: ["dir"], boolean: ["json"] });
    positionals(p, []);
    const root = await projectRoot(p, io);
    const problems = await diagnose(root, io.runProgram, memoHomeOf(io.env));
    await io.stdout(
      boolFlag(p, "json") ? jsonDocument({ problems }) : formatDoctor(root, problems),
    );
    return problems.length ? 1 : 0;
  },
};

/**
 * The line of the conflicted `text` that a side's failure (`line N: …`, a line of that side's own
 * text) names, when that line's text occurs once in the file; else `undefined`.
 */
function fileLine(
  text: string,
  failed: { side: "base" | "ours" | "theirs"; reason: string },
  scan: Parameters<typeof splitConflict>[1],
): number | undefined {
  const n = /^line (\d+):/.exec(failed.reason)?.[1];
  const side = n === undefined ? undefined : splitConflict(text, scan)?.[failed.side];
  const line = side?.split("\n")[Number(n) - 1];
  if (line === undefined || line.trim() === "") return undefined;
  const lines = text.split("\n");
  const first = lines.indexOf(line);
  return first < 0 || lines.indexOf(line, first + 1) >= 0 ? undefined : first + 1;
}
