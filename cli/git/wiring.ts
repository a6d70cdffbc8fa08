/**
 * memo's git wiring: `.memo/.gitattributes` names the merge driver of `notes.md` (`merge=memo`),
 * and each clone's own git config says what runs it (`merge.memo.driver`). The attribute travels
 * with the repository; the driver does not, so a fresh clone has the one without the other and
 * git falls back to its text merge. This module writes both (`memo init`), reads them (`memo
 * doctor`) and tells, in `warning.ts`, when a
 * project's clone lacks the driver.
 *
 * @module
 */

import { mkdir, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { memoPaths } from "@memo/memory";
import type { CliIO } from "../context.ts";
import { writeFileAtomically } from "../write_file.ts";

/** Runs a program to its end (`CliIO.runProgram`). */
export type RunProgram = NonNullable<CliIO["runProgram"]>;

/**
 * The line of `.memo/.gitattributes` that names memo's merge driver for the notes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MEMO_GITATTRIBUTES_LINE } from "./wiring.ts";
 *
 * assert.equal(MEMO_GITATTRIBUTES_LINE, "memory/notes.md merge=memo");
 * ```
 */
export const MEMO_GITATTRIBUTES_LINE = "memory/notes.md merge=memo";

/**
 * The value of `merge.memo.name`: git shows it when it runs the driver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MERGE_DRIVER_NAME } from "./wiring.ts";
 *
 * assert.equal(MERGE_DRIVER_NAME, "memo notes merge");
 * ```
 */
export const MERGE_DRIVER_NAME = "memo notes merge";

/** `memory/notes.md … merge=memo` (a leading `/` or other attributes allowed). */
const ATTRIBUTE = /^[ \t]*\/?memory\/notes\.md[ \t](?:[^\n]*[ \t])?merge=memo(?:[ \t]|$)/m;

/**
 * Whether the text of `.memo/.gitattributes` gives `memory/notes.md` the `merge=memo` attribute.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasMergeAttribute } from "./wiring.ts";
 *
 * assert.equal(hasMergeAttribute("memory/notes.md merge=memo\n"), true);
 * assert.equal(hasMergeAttribute("/memory/notes.md text merge=memo"), true);
 * assert.equal(hasMergeAttribute("memory/notes.md merge=union\n"), false);
 * assert.equal(hasMergeAttribute(undefined), false);
 * ```
 */
export function hasMergeAttribute(text: string | undefined): boolean {
  return text !== undefined && ATTRIBUTE.test(text);
}

/**
 * The text of `.memo/.gitattributes` given the current one (`undefined`: no file): the
 * `merge=memo` line appended when missing. Returns `undefined` when nothing is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoGitattributes } from "./wiring.ts";
 *
 * const text = memoGitattributes(undefined)!;
 * assert.equal(text, "# memo merges its notes note by note (memo merge-file)\nmemory/notes.md merge=memo\n");
 * assert.equal(memoGitattributes(text), undefined);
 * assert.equal(memoGitattributes("*.md text"), "*.md text\nmemory/notes.md merge=memo\n");
 * ```
 */
export function memoGitattributes(existing: string | undefined): string | undefined {
  if (existing === undefined) {
    return "# memo merges its notes note by note (memo merge-file)\n" +
      MEMO_GITATTRIBUTES_LINE + "\n";
  }
  if (hasMergeAttribute(existing)) return undefined;
  const sepLine = existing === "" || existing.endsWith("\n") ? "" : "\n";
  return existing + sepLine + MEMO_GITATTRIBUTES_LINE + "\n";
}

/**
 * A word as `sh` reads it: as is when plain, else single-quoted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shellWord } from "./wiring.ts";
 *
 * assert.equal(shellWord("/opt/memo/cli.ts"), "/opt/memo/cli.ts");
 * assert.equal(shellWord("it's"), "'it'\\''s'");
 * ```
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `merge.memo.driver` value for a command line that starts `memo mcp` (what `memo init`
 * writes into MCP clients): the same command with `merge-file %O %A %B` instead of `mcp`, as one
 * shell line (git runs it through `sh`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeDriverCommand } from "./wiring.ts";
 *
 * assert.equal(
 *   mergeDriverCommand(["deno", "run", "-A", "/home/ada/my memo/cli.ts", "mcp"]),
 *   "deno run -A '/home/ada/my memo/cli.ts' merge-file %O %A %B",
 * );
 * assert.equal(
 *   mergeDriverCommand(["npx", "-y", "@memo/mcp-server", "mcp"]),
 *   "npx -y @memo/mcp-server merge-file %O %A %B",
 * );
 * ```
 */
export function mergeDriverCommand(command: readonly string[]): string {
  const base = command.at(-1) === "mcp" ? command.slice(0, -1) : command;
  return [...base.map(shellWord), "merge-file", "%O", "%A", "%B"].join(" ");
}

/**
 * The state of a project's git wiring.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { GitWiring } from "./wiring.ts";
 *
 * const wiring: GitWiring = { inGit: true, attribute: true, driver: undefined };
 * assert.equal(wiring.driver, undefined); // a fresh clone: git merges notes.md as text
 * ```
 */
export interface GitWiring {
  /** Whether the project is inside a git work tree (false too when git cannot run). */
  inGit: boolean;
  /** Whether `.memo/.gitattributes` gives `notes.md` the `merge=memo` attribute. */
  attribute: boolean;
  /** The `merge.memo.driver` git finds (any config level), if any. */
  driver?: string;
}

/** Reads a text file; `undefined` when it cannot be read. */
async function readText(path: string): Promise<string | undefined> {
  return await readFile(path, "utf8").catch(() => undefined);
}

/**
 * The path of `.memo/.gitattributes` in the project at `root`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { gitattributesPath } from "./wiring.ts";
 *
 * assert.equal(gitattributesPath("/p"), join("/p", ".memo", ".gitattributes"));
 * ```
 */
export function gitattributesPath(root: string): string {
  return join(memoPaths(root).dir, ".gitattributes");
}

/**
 * `git config [SCOPE] --get NAME` in `root`: its value, or `undefined` when unset or git fails.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { gitConfigValue } from "./wiring.ts";
 *
 * const dir = await Deno.makeTempDir();
 * await runProgram("git", ["init", "-q"], dir);
 * await runProgram("git", ["config", "--local", "memo.test", "yes"], dir);
 * assert.equal(await gitConfigValue(runProgram, dir, "memo.test", ["--local"]), "yes");
 * assert.equal(await gitConfigValue(runProgram, dir, "memo.none"), undefined);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function gitConfigValue(
  run: RunProgram,
  root: string,
  name: string,
  scope: string[] = [],
): Promise<string | undefined> {
  const got = await run("git", ["config", ...scope, "--get", name], root).catch(() => undefined);
  return got?.code === 0 ? got.stdout.replace(/\r?\n$/, "") : undefined;
}

/**
 * Whether `root` is inside a git work tree (false when git cannot run there).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { inGitWorkTree } from "./wiring.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.equal(await inGitWorkTree(runProgram, dir), false);
 * await runProgram("git", ["init", "-q"], dir);
 * assert.equal(await inGitWorkTree(runProgram, dir), true);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function inGitWorkTree(run: RunProgram, root: string): Promise<boolean> {
  const got = await run("git", ["rev-parse", "--is-inside-work-tree"], root).catch(() => undefined);
  return got?.code === 0 && got.stdout.trim() === "true";
}

/**
 * Reads the git wiring of the project at `root`: whether it is in git, the attribute and the
 * driver.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { readGitWiring } from "./wiring.ts";
 *
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await readGitWiring(runProgram, dir), { inGit: false, attribute: false });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readGitWiring(run: RunProgram, root: string): Promise<GitWiring> {
  const [inGit, attributes] = await Promise.all([
    inGitWorkTree(run, root),
    readText(gitattributesPath(root)),
  ]);
  const wiring: GitWiring = { inGit, attribute: hasMergeAttribute(attributes) };
  if (!inGit) return wiring;
  const driver = await gitConfigValue(run, root, "merge.memo.driver");
  if (driver !== undefined) wiring.driver = driver;
  return wiring;
}

/**
 * The command that fixes the wiring of the project at `root`: `memo init --dir <root>` (the root
 * named, so that running it in a subfolder never makes a nested project).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initFix } from "./wiring.ts";
 *
 * assert.equal(initFix("/work/app"), "memo init --dir /work/app");
 * assert.equal(initFix("/work/my app"), "memo init --dir '/work/my app'");
 * ```
 */
export function initFix(root: string): string {
  return `memo init --dir ${shellWord(root)}`;
}

/**
 * What {@linkcode wireGit} did: `.memo/.gitattributes`, and the local git config's
 * `merge.memo.name` and `merge.memo.driver`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { GitWiringResult } from "./wiring.ts";
 *
 * const result: GitWiringResult = {
 *   attributes: "created",
 *   config: "created",
 *   driver: "npx -y @memo/mcp-server merge-file %O %A %B",
 * };
 * assert.equal(result.config, "created");
 * ```
 */
export interface GitWiringResult {
  /** What happened to `.memo/.gitattributes`. */
  attributes: "created" | "updated" | "unchanged";
  /** What happened to `merge.memo.*` in the repository's local config. */
  config: "created" | "updated" | "unchanged";
  /** The driver command set. */
  driver: string;
}

/**
 * Wires the project at `root` into git when it is in a git work tree (else does nothing and
 * returns `undefined`): writes the `merge=memo` line into `.memo/.gitattributes` and sets
 * `merge.memo.name` and `merge.memo.driver` (`driver`) in the repository's local config. What is
 * already right is left as it is, so running it twice changes nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mkdir } from "node:fs/promises";
 * import { runProgram } from "../../platform/mod.ts";
 * import { readGitWiring, wireGit } from "./wiring.ts";
 *
 * const dir = await Deno.makeTempDir();
 * const driver = "memo merge-file %O %A %B";
 * assert.equal(await wireGit(runProgram, dir, driver), undefined); // not in git
 * await runProgram("git", ["init", "-q"], dir);
 * await mkdir(`${dir}/.memo`);
 * assert.deepEqual(await wireGit(runProgram, dir, driver), {
 *   attributes: "created", config: "created", driver,
 * });
 * assert.deepEqual(await wireGit(runProgram, dir, driver), {
 *   attributes: "unchanged", config: "unchanged", driver,
 * });
 * assert.deepEqual(await readGitWiring(runProgram, dir), { inGit: true, attribute: true, driver });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function wireGit(
  run: RunProgram,
  root: string,
  driver: string,
): Promise<GitWiringResult | undefined> {
  if (!await inGitWorkTree(run, root)) return undefined;
  const path = gitattributesPath(root);
  const old = await readText(path);
  const text = memoGitattributes(old);
  if (text !== undefined) await writeFileAtomically(path, text);
  const wanted: [string, string][] = [
    ["merge.memo.name", MERGE_DRIVER_NAME],
    ["merge.memo.driver", driver],
  ];
  let config = "unchanged" as GitWiringResult["config"];
  for (const [name, value] of wanted) {
    const current = await gitConfigValue(run, root, name, ["--local"]);
    if (current === value) continue;
    const set = await run("git", ["config", "--local", name, value], root);
    if (set.code !== 0) throw new Error(`git config ${name} failed: ${set.stderr.trim()}`);
    // `created` while every value set was new; one replaced makes it `updated`.
    config = current === undefined && config !== "updated" ? "created" : "updated";
  }
  return {
    attributes: text === undefined ? "unchanged" : old === undefined ? "created" : "updated",
    config,
    driver,
  };
}

/**
 * Keeps a per-person file out of git in this clone alone: when `file` (a path under `root`) is
 * not ignored yet, a line for it (and its `.memo.bak` copy) goes to the clone's own
 * `.git/info/exclude`, which is never committed. Tells whether it added one; outside a work tree,
 * or when git fails, nothing happens.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runProgram } from "../../platform/mod.ts";
 * import { excludeInClone } from "./wiring.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await runProgram("git", ["init", "-q"], dir);
 * assert.equal(await excludeInClone(runProgram, dir, ".claude/settings.local.json"), true);
 * assert.equal((await runProgram("git", ["check-ignore", "-q", ".claude/settings.local.json"], dir)).code, 0);
 * assert.equal(await excludeInClone(runProgram, dir, ".claude/settings.local.json"), false); // once
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function excludeInClone(
  run: RunProgram,
  root: string,
  file: string,
): Promise<boolean> {
  try {
    // 0: ignored already; 1: not ignored; anything else: not a work tree, or no git.
    if ((await run("git", ["check-ignore", "-q", "--", file], root)).code !== 1) return false;
    const prefix = await run("git", ["rev-parse", "--show-prefix"], root);
    const path = await run("git", ["rev-parse", "--git-path", "info/exclude"], root);
    if (prefix.code !== 0 || path.code !== 0) return false;
    const exclude = path.stdout.trim();
    const at = isAbsolute(exclude) ? exclude : join(root, exclude);
    const old = await readFile(at, "utf8").catch(() => "");
    const line = `/${prefix.stdout.trim()}${file}*`;
    await mkdir(dirname(at), { recursive: true });
    await writeFileAtomically(
      at,
      `${old}${old === "" || old.endsWith("\n") ? "" : "\n"}# memo: yours alone\n${line}\n`,
    );
    return true;
  } catch {
    return false;
  }
}
