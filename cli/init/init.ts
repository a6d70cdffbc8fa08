/**
 * `memo init`: makes a memo project in the current folder (or `--dir`): `.memo/config.json` and
 * `.memo/.gitignore`; in a git work tree `.memo/.gitattributes` and the notes' merge driver in the
 * repository's local config; and with `--client` the `memo` server in the MCP configuration of
 * Claude Code, Cursor, VS Code or Claude Desktop, merged into what is there. Running it again
 * changes nothing.
 *
 * @module
 */

import { chmod, copyFile, mkdir, readFile, stat } from "node:fs/promises";
import { homedir, platform } from "node:os";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { LOCAL_SCOPE_IGNORES, memoPaths } from "@memo/memory";
import { boolFlag, listFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import { memoHomeOf } from "../../env.ts";
import {
  ClientConfigError,
  clientConfigPath,
  type McpClient,
  memoServerEntry,
  mergeClientConfig,
  parseClients,
} from "./_client_config.ts";
import {
  launchCommand,
  type LaunchCommandOptions,
  runningCommand,
  splitCommandLine,
} from "./_launch_command.ts";
import { writeFileAtomically } from "../write_file.ts";
import { updateHookFile } from "./_hook_file.ts";
import {
  excludeInClone,
  type GitWiringResult,
  mergeDriverCommand,
  wireGit,
} from "../git/wiring.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliIO } from "../context.ts";
import { errorLine, jsonDocument } from "../output.ts";

/**
 * What `memo init` did to one file. `path` is relative to the project root when inside it (absolute
 * otherwise: Claude Desktop's file).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { InitFile } from "./init.ts";
 *
 * const file: InitFile = {
 *   path: ".cursor/mcp.json",
 *   client: "cursor",
 *   status: "updated",
 *   backup: ".cursor/mcp.json.memo.bak",
 * };
 * assert.equal(file.status, "updated");
 * ```
 */
export interface InitFile {
  /** The file, relative to the root when inside it. */
  path: string;
  /** The client the file configures (client files only). */
  client?: McpClient;
  /**
   * `created`, `updated`, `unchanged`, `removed` (`--no-hooks` left nothing in it), or `error`
   * (the file was left as is).
   */
  status: "created" | "updated" | "unchanged" | "removed" | "error";
  /** Set on a client's hook file (`--hooks`, `--no-hooks`). */
  hooks?: boolean;
  /** The copy of the old content, when the file changed. */
  backup?: string;
  /** Why the file was left as is. */
  error?: string;
}

/**
 * What `memo init --json` prints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { InitResult } from "./init.ts";
 *
 * const result: InitResult = {
 *   root: "/work/app",
 *   command: ["npx", "-y", "@memo/mcp-server", "mcp"],
 *   files: [{ path: ".memo/config.json", status: "created" }],
 * };
 * assert.equal(result.command[0], "npx");
 * ```
 */
export interface InitResult {
  /** The project root (absolute). */
  root: string;
  /** The command line written for the clients (before each client's `--dir`). */
  command: string[];
  /** Every file, in the order handled. */
  files: InitFile[];
  /**
   * In a git work tree: `.memo/.gitattributes` and the merge driver set in the repository's local
   * config (`merge.memo.driver`). Absent outside git.
   */
  git?: GitWiringResult;
}

/** `memo init --user`: creates `MEMO_HOME` (its `memory/` folder), where the user scope lives. */
async function initUser(io: CliIO, json: boolean): Promise<number> {
  const home = memoHomeOf(io.env);
  if (!home) throw new UsageError("no home folder is known: set MEMO_HOME");
  const memory = `${home}${sep}memory`;
  let created = true;
  try {
    await stat(memory);
    created = false;
  } catch {
    await mkdir(memory, { recursive: true });
  }
  await io.stdout(
    json
      ? jsonDocument({ memoHome: home, status: created ? "created" : "unchanged" })
      : `${created ? "created" : "unchanged"} ${home} (the user scope: notes about you, ` +
        "read in every project; write with --scope user)\n",
  );
  return 0;
}

/** The lines `.memo/.gitignore` holds, relative to `.memo/`. */
function gitignoreLines(root: string): string[] {
  const paths = memoPaths(root);
  const rel = (p: string) => relative(paths.dir, p).split(sep).join("/");
  return [
    `${rel(paths.cache)}/`,
    `${rel(paths.replica)}/`,
    rel(paths.connectorState),
    rel(paths.lock),
    ...LOCAL_SCOPE_IGNORES,
    "logs/",
  ];
}

/**
 * The text of `.memo/.gitignore` given the current one (`undefined`: no file): the lines memo needs
 * (`cache/`, `replica/`, `connectors/state.json`, the notes' lock file, `logs/`: the hooks' log),
 * the missing ones appended,
 * none repeated. Returns `undefined` when nothing is missing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoGitignore } from "./init.ts";
 *
 * const text = memoGitignore("/work/app", undefined)!;
 * assert.equal(
 *   text,
 *   "# memo's local state: caches, replica, connector cursors, the lock, the hooks' log\n" +
 *     "cache/\nreplica/\nconnectors/state.json\nmemory/notes.md.lock\n" +
 *     "memory/notes.local.md\nmemory/notes.local.md.lock\nlogs/\n",
 * );
 * assert.equal(memoGitignore("/work/app", text), undefined);
 * assert.equal(
 *   memoGitignore("/work/app", "mine\n/cache/\nreplica/"),
 *   "mine\n/cache/\nreplica/\nconnectors/state.json\nmemory/notes.md.lock\n" +
 *     "memory/notes.local.md\nmemory/notes.local.md.lock\nlogs/\n",
 * );
 * ```
 */
export function memoGitignore(root: string, existing: string | undefined): string | undefined {
  const wanted = gitignoreLines(root);
  if (existing === undefined) {
    return "# memo's local state: caches, replica, connector cursors, the lock, the hooks' log\n" +
      wanted.join("\n") + "\n";
  }
  const present = new Set(existing.split(/\r?\n/).map((l) => l.trim().replace(/^\//, "")));
  const missing = wanted.filter((l) => !present.has(l));
  if (!missing.length) return undefined;
  const sepLine = existing === "" || existing.endsWith("\n") ? "" : "\n";
  return existing + sepLine + missing.join("\n") + "\n";
}

/** The human text after the actions: what the config keys mean. */
const EXPLAIN = `
.memo/config.json (every key optional):
  runtime     where the notes live: "local" (default, .memo/memory/notes.md), "hybrid" or "cloud"
  cloud.*     the Memo Cloud API: baseUrl, workspaceId, projectId, timeoutMs, retry, pullIntervalMs (the key only from MEMO_CLOUD_API_KEY)
  recall.*    recall settings: engine (auto, lexical, vector, hybrid), embeddingModel, localEmbeddings, includeCloud
  connectors  GitHub Discussions and Notion pages that memo sync brings in (tokens from the environment)
docs/configuration.md lists every key and MEMO_* variable, with its default.
`;

/** The next steps, with the CLI as launched (the MCP command line without its `mcp`). */
function nextSteps(command: readonly string[]): string {
  const memo = command.length > 1 && command.at(-1) === "mcp"
    ? command.slice(0, -1).map(quoteWord).join(" ")
    : "memo";
  return `
Next:
  ${memo} remember "The staging database is db-stage-2" --label infra
  ${memo} recall "staging database"
  ${memo} serve   (the web page and the HTTP endpoint)
`;
}

/**
 * The human report of `memo init`: one line per file, the command written (when there are client
 * files), what the config keys mean and the next steps. Files in error are reported on stderr, not
 * here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatInitResult } from "./init.ts";
 *
 * const text = formatInitResult({
 *   root: "/work/app",
 *   command: ["npx", "-y", "@memo/mcp-server", "mcp"],
 *   files: [
 *     { path: ".memo/config.json", status: "unchanged" },
 *     { path: ".mcp.json", client: "claude-code", status: "updated", backup: ".mcp.json.memo.bak" },
 *   ],
 * });
 * assert.match(
 *   text,
 *   /^unchanged \.memo\/config\.json\nupdated \.mcp\.json \(backup \.mcp\.json\.memo\.bak\)\n/,
 * );
 * assert.match(text, /\nMCP clients start memo with: npx -y @memo\/mcp-server mcp\n/);
 * assert.match(text, /\n {2}runtime {5}where the notes live/);
 * assert.match(text, /\n {2}npx -y @memo\/mcp-server recall "staging database"\n/);
 * ```
 */
export function formatInitResult(result: InitResult): string {
  const lines = result.files.filter((f) => f.status !== "error").map((f) =>
    `${f.status} ${f.path}${f.backup ? ` (backup ${f.backup})` : ""}`
  );
  if (result.git) {
    lines.push(`${result.git.config} git config merge.memo.driver: ${result.git.driver}`);
  }
  if (result.files.some((f) => f.client)) {
    lines.push(`MCP clients start memo with: ${result.command.map(quoteWord).join(" ")}`);
  }
  return lines.join("\n") + "\n" + EXPLAIN + nextSteps(result.command);
}

/**
 * The command of the running program (Deno or Node) for the configuration: plain `deno`/`node` when
 * `PATH` finds this very program, else its full path.
 */
async function runningCommands(
  program: CliIO["program"],
  pathList: string | undefined,
): Promise<LaunchCommandOptions> {
  if (!program) return {};
  return { [program.name]: await runningCommand(program.name, program.path, pathList) };
}

/** A word as a shell would need it (for the display only). */
function quoteWord(word: string): string {
  return /^[\w@%+=:,./${}-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Reads a text file; `undefined` when it does not exist.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readIfExists } from "./init.ts";
 *
 * assert.equal(await readIfExists("/no/such/memo/file"), undefined);
 * ```
 */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * `memo init`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readFile } from "node:fs/promises";
 * import { join } from "node:path";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { initCommand } from "./init.ts";
 *
 * const root = await Deno.makeTempDir();
 * const io = recordingIO(root);
 * assert.equal(await initCommand.run(["--client", "cursor", "--command", "memo mcp", "--json"], io), 0);
 * const result = JSON.parse(io.out.join(""));
 * assert.deepEqual(result.files.map((f: { status: string }) => f.status), ["created", "created", "created"]);
 * const cursor = JSON.parse(await readFile(join(root, ".cursor", "mcp.json"), "utf8"));
 * assert.deepEqual(cursor.mcpServers.memo, {
 *   command: "memo",
 *   args: ["mcp", "--dir", "${workspaceFolder}"],
 * });
 * await assert.rejects(initCommand.run(["--client", "zed"], io), { name: "UsageError" });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export const initCommand: CliCommand = {
  ...COMMAND_INFO.init,
  async run(argv, io) {
    const p = parseArgs(argv, {
      string: ["dir", "command"],
      multiple: ["client"],
      boolean: ["json", "user", "hooks", "no-hooks", "team"],
    });
    positionals(p, []);
    if (boolFlag(p, "user")) return await initUser(io, boolFlag(p, "json"));
    const clients = parseClients(listFlag(p, "client"));
    const hooks = boolFlag(p, "hooks") ? "add" : boolFlag(p, "no-hooks") ? "remove" : undefined;
    if (boolFlag(p, "hooks") && boolFlag(p, "no-hooks")) {
      throw new UsageError("--hooks and --no-hooks cannot go together");
    }
    if ((hooks || boolFlag(p, "team")) && !clients.length) {
      throw new UsageError("--hooks, --no-hooks and --team need --client");
    }
    const team = boolFlag(p, "team");
    if (hooks && clients.includes("claude-desktop")) {
      throw new UsageError(
        "Claude Desktop has no hooks (--hooks works with claude-code, cursor and vscode)",
      );
    }
    const commandLine = stringFlag(p, "command");
    const root = resolve(io.cwd, stringFlag(p, "dir") ?? ".");
    const launched = launchCommand(
      new URL("../main.ts", import.meta.url).href,
      root,
      await runningCommands(io.program, io.env.PATH),
    );
    const command = commandLine === undefined ? launched : splitCommandLine(commandLine);
    const paths = memoPaths(root);
    const show = (path: string) => {
      const rel = relative(root, path);
      return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : path;
    };

    // An existing config.json must be JSON; else nothing is touched.
    const config = await readIfExists(paths.config);
    if (config !== undefined) {
      let problem: string | undefined;
      try {
        const parsed = JSON.parse(config.replace(/^\uFEFF/, ""));
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
          problem = "it is not a JSON object";
        }
      } catch {
        problem = "it is not valid JSON";
      }
      if (problem) {
        await io.stderr(errorLine(
          `Cannot set up ${show(paths.config)}: ${problem}; fix it, then run memo init again ` +
            "(nothing was changed)",
        ));
        return 1;
      }
    }

    const files: InitFile[] = [];
    await mkdir(paths.dir, { recursive: true });
    if (config === undefined) {
      await writeFileAtomically(paths.config, jsonDocument({ connectors: [] }));
      files.push({ path: show(paths.config), status: "created" });
    } else {
      files.push({ path: show(paths.config), status: "unchanged" });
    }

    const gitignorePath = `${paths.dir}${sep}.gitignore`;
    const oldGitignore = await readIfExists(gitignorePath);
    const newGitignore = memoGitignore(root, oldGitignore);
    if (newGitignore !== undefined) await writeFileAtomically(gitignorePath, newGitignore);
    files.push({
      path: show(gitignorePath),
      status: newGitignore === undefined
        ? "unchanged"
        : oldGitignore === undefined
        ? "created"
        : "updated",
    });

    // In a git work tree: the notes' merge driver (memo merge-file), run by this very memo.
    let failed = false;
    let git: GitWiringResult | undefined;
    if (io.runProgram) {
      const driver = mergeDriverCommand(command.at(-1) === "mcp" ? command : launched);
      try {
        git = await wireGit(io.runProgram, root, driver);
      } catch (e) {
        failed = true;
        await io.stderr(errorLine(`Cannot set up git's merge driver: ${errorText(e)}`));
      }
      if (git) {
        files.push({ path: show(`${paths.dir}${sep}.gitattributes`), status: git.attributes });
      }
    }

    const place = { root, platform: platform(), env: io.env, home: homedir() };
    for (const client of clients) {
      const path = clientConfigPath(client, place);
      const shown = client === "claude-desktop" ? path : show(path); // a user file: absolute
      try {
        const old = await readIfExists(path);
        const merged = mergeClientConfig(client, old, memoServerEntry(client, command, root));
        const file: InitFile = { path: shown, client, status: merged.status };
        if (merged.status !== "unchanged") {
          if (old !== undefined) {
            // The backup may hold tokens (an `env` block): readable by its owner only.
            await copyFile(path, `${path}.memo.bak`);
            await chmod(`${path}.memo.bak`, 0o600);
            file.backup = `${shown}.memo.bak`;
          }
          await mkdir(dirname(path), { recursive: true }); // .cursor/, .vscode/, Claude/
          await writeFileAtomically(path, merged.text);
        }
        files.push(file);
      } catch (e) {
        failed = true;
        const why = e instanceof ClientConfigError ? e.message : errorText(e);
        const error = `Cannot update ${shown}: ${why}; left as is`;
        files.push({ path: shown, client, status: "error", error });
        await io.stderr(errorLine(error));
      }
      if (hooks) {
        const result = await updateHookFile(client, place, team, hooks, command, show);
        files.push(result);
        // Claude Code's per-person file, made here: kept out of git in this clone (its paths are
        // this machine's), as Claude Code does for the one it makes.
        if (
          result.status === "created" && client === "claude-code" && !team && io.runProgram
        ) {
          await excludeInClone(io.runProgram, place.root, ".claude/settings.local.json");
        }
        if (result.status === "error") {
          failed = true;
          await io.stderr(errorLine(result.error!));
        }
      }
    }

    const result: InitResult = { root, command, files };
    if (git) result.git = git;
    await io.stdout(boolFlag(p, "json") ? jsonDocument(result) : formatInitResult(result));
    return failed ? 1 : 0;
  },
};
