/**
 * `memo hook --client NAME EVENT [--dry-run]`: what a client's command hook runs. It reads the
 * client's hook input on stdin, finds the project from the input's `cwd` or workspace roots (then
 * as the CLI does, from the working directory), and answers in the client's format: at
 * `session-start` a brief of the memory, at `prompt` the notes the prompt is about, when memo is
 * confident it holds them (see `_recall.ts`). Adding nothing prints nothing.
 *
 * A hook never fails its client: any failure (a usage error, garbage on stdin, a locked or
 * damaged store, a timeout) adds nothing, exits 0 and writes one line to `.memo/logs/hooks.log`;
 * where there is no project it writes nothing at all. memo never stores a prompt: the session's
 * state is the ids of the notes it added.
 *
 * @module
 */

import { dirname, join, resolve } from "./_paths.ts";
import { boolFlag, parseArgs, positionals, stringFlag, UsageError } from "../args.ts";
import { COMMAND_INFO } from "../command_info.ts";
import type { CliCommand, CliFiles, CliIO } from "../context.ts";
import { hookFiles } from "./_files.ts";
import { type CatalogNote, StoreLockedError } from "./_catalog.ts";
import { HOOK_SCOPES, type HookScope } from "./_catalog_types.ts";
import { type CatalogBuilds, type HookScopes, openMemory, rebuildMemory } from "./_memory.ts";
import { memoHomeOf } from "../../env.ts";
import { promptBlock, sessionBrief } from "./_context.ts";
import { recallForPrompt } from "./_recall.ts";
import {
  cleanSessions,
  clientsOn,
  logLine,
  readRuns,
  recordRun,
  recordSeen,
  seenIds,
} from "./_state.ts";
import { promptWords, rankTerms } from "./_words.ts";
import {
  blockAnswer,
  contextAnswer,
  contextEvents,
  HOOK_CLIENTS,
  HOOK_EVENTS,
  type HookClient,
  type HookEvent,
  parseHookInput,
} from "./clients.ts";
import { HOOKS_DEFAULTS, type HooksConfig, hooksConfig } from "./hook_config.ts";

/**
 * The nearest of `folders` (in order), then of `cwd`, or an ancestor, that holds `.memo/`;
 * undefined when none does. The user scope's home (`memoHome`) is never a project, nor is the
 * folder whose `.memo` it is, as for the rest of the CLI.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { hostFiles } from "../../platform/files.ts";
 * import { findHookProject } from "./hook.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(join(root, "app", ".memo"), { recursive: true });
 * assert.equal(await findHookProject([join(root, "app")], root, hostFiles), join(root, "app"));
 * assert.equal(await findHookProject([], root, hostFiles), undefined);
 * // A MEMO_HOME of `app/.memo` makes `app` no project.
 * assert.equal(await findHookProject([join(root, "app")], root, hostFiles, join(root, "app", ".memo")), undefined);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function findHookProject(
  folders: readonly string[],
  cwd: string,
  files?: CliFiles,
  memoHome?: string,
): Promise<string | undefined> {
  const fs = await hookFiles(files);
  const home = memoHome === undefined ? undefined : resolve(cwd, memoHome);
  for (const start of [...folders.map((f) => resolve(cwd, f)), resolve(cwd, ".")]) {
    let current = start;
    for (;;) {
      const memo = join(current, ".memo");
      if (current !== home && memo !== home && (await fs.stat(memo))?.isDirectory) return current;
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  return undefined;
}

/**
 * Replaces the secrets in a note's text before a hook prints it (hand edits of notes.md
 * included): the scanner runs on the notes whose text its quick test flagged when the catalog
 * was built, so that a hook loads it only then.
 */
async function redact(note: CatalogNote, text: string): Promise<string> {
  if (!note.secret && note.text === undefined) return text;
  const { findSecrets, redactMatches } = await import("@memo/memory");
  return redactMatches(text, await findSecrets(text));
}

interface HookRun {
  client: HookClient;
  event: HookEvent;
  dryRun: boolean;
  /** `--dir`: looked at before the input's folders (the entries memo writes carry none). */
  dir?: string;
}

function parseHookArgs(argv: readonly string[]): HookRun {
  const p = parseArgs(argv, { string: ["client", "dir"], boolean: ["dry-run", "json"] });
  const [event] = positionals(p, ["event"]);
  const client = stringFlag(p, "client");
  if (!client || !(HOOK_CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`--client must be one of ${HOOK_CLIENTS.join(", ")}`);
  }
  if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
    throw new UsageError(`the event must be one of ${HOOK_EVENTS.join(", ")}`);
  }
  const run: HookRun = {
    client: client as HookClient,
    event: event as HookEvent,
    dryRun: boolFlag(p, "dry-run"),
  };
  const dir = stringFlag(p, "dir");
  if (dir !== undefined) run.dir = dir;
  return run;
}

async function readConfig(files: CliFiles, root: string): Promise<unknown> {
  try {
    return JSON.parse(await files.readText(join(root, ".memo", "config.json")));
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw new Error("cannot read .memo/config.json");
  }
}

/**
 * The scopes a hook reads, as the rest of memo serves them: every scope by default (`user` where
 * `MEMO_HOME` or a home folder is known), those of the config key `scopes` when it is set, and the
 * project alone for the cloud runtime (hosted). A `scopes` that is not a non-empty list of scope
 * names throws, as it does for the rest of memo.
 */
function hookScopes(
  config: unknown,
  env: Readonly<Record<string, string | undefined>>,
): HookScopes {
  const { scopes, runtime } = (config ?? {}) as { scopes?: unknown; runtime?: unknown };
  let wanted: readonly HookScope[] = HOOK_SCOPES;
  if (scopes !== undefined) {
    if (
      !Array.isArray(scopes) || !scopes.length ||
      !scopes.every((s) => (HOOK_SCOPES as readonly unknown[]).includes(s))
    ) {
      throw new Error(
        "scopes in .memo/config.json must be a non-empty array of user, project and local",
      );
    }
    wanted = scopes;
  }
  if (runtime === "cloud") wanted = ["project"];
  const memoHome = wanted.includes("user") ? memoHomeOf(env) : undefined;
  const serve = HOOK_SCOPES.filter((s) => wanted.includes(s) && (s !== "user" || memoHome));
  return memoHome ? { serve, memoHome } : { serve };
}

/** One run of a hook: the text to print (possibly empty). Throws on failure. */
async function answer(
  run: HookRun,
  root: string,
  inputText: string,
  now: number,
  config: HooksConfig,
  scopes: HookScopes,
  files: CliFiles,
  builds: CatalogBuilds,
) {
  let input;
  try {
    input = parseHookInput(inputText);
  } catch {
    // Never the parser's message: it would quote the input (a prompt) into the log.
    throw new Error("the hook input is not a JSON object");
  }
  const nowIso = new Date(now).toISOString();
  const { event, dryRun } = run;
  let { client } = run;
  /** The answer of a run that stands down for the client's own memo hooks (after the guard). */
  let standDown: string | undefined;
  if (input.host && input.host !== client) {
    // Cursor and VS Code also run the entries of Claude Code's settings files: such a run answers
    // as the client that started it, or not at all where that client's own memo hooks are on,
    // but for the prompt guard where those hooks have no prompt entry to run it.
    if ((await clientsOn(files, root)).has(input.host)) {
      standDown = dryRun ? `adds nothing: ${input.host} runs memo's own ${input.host} hooks\n` : "";
      const guardHere = event === "prompt" && config.guardPrompts &&
        !contextEvents(input.host).includes("prompt");
      if (!guardHere) return standDown;
    }
    client = input.host;
  }
  const out: string[] = [];
  if (event === "prompt") {
    const prompt = input.prompt ?? "";
    if (config.guardPrompts && prompt) {
      const { findSecrets } = await import("@memo/memory");
      const rules = [...new Set((await findSecrets(prompt)).map((m) => m.rule))];
      if (rules.length) {
        const reason = `memo blocked this prompt: it holds a secret (${rules.join(", ")}). ` +
          "Remove it and send the prompt again (hooks.guardPrompts in .memo/config.json).";
        return dryRun ? `would block: ${reason}\n` : blockAnswer(client, reason);
      }
    }
    if (standDown !== undefined) return standDown;
    if (!contextEvents(client).includes(event)) {
      // Cursor's beforeSubmitPrompt and VS Code's UserPromptSubmit cannot add context.
      if (dryRun) return `adds nothing: ${client} cannot add context to a prompt\n`;
      await recordRun(files, root, client, event, nowIso);
      return "";
    }
    const catalog = await openMemory(root, scopes, files, builds);
    if (!catalog) {
      return dryRun ? "adds nothing: no notes yet, or the hooks' index is being built\n" : "";
    }
    await catalog.load([
      ...new Set([...promptWords(prompt).map((w) => w.term), ...rankTerms(prompt)]),
    ]);
    const recall = recallForPrompt(prompt, catalog);
    const session = input.session ?? "";
    const seen = new Set(dryRun || !session ? [] : await seenIds(files, root, client, session));
    const block = await promptBlock(catalog, recall, {
      now,
      seen,
      budgetTokens: config.promptBudgetTokens,
      redact,
    });
    if (dryRun) {
      out.push(`rule: ${recall.rule}`);
      out.push(
        `words: ${
          recall.words.map((w) => `${w.term}${w.name ? " (name)" : ""} in ${w.notes}`).join(", ") ||
          "none"
        }`,
      );
      await catalog.notes(recall.hits.map((h) => h.ordinal));
      for (const h of recall.hits) {
        const note = catalog.note(h.ordinal);
        const scope = note.scope ? ` (${note.scope})` : "";
        out.push(
          `  ${note.id}${scope} share ${h.score.toFixed(2)} holds ${
            h.matched.join(", ")
          }: ${note.title}`,
        );
      }
      out.push(
        block ? `would add ${block.ids.length} note(s):\n${block.text}` : "would add nothing",
      );
      return out.join("\n") + "\n";
    }
    await recordRun(files, root, client, event, nowIso);
    if (!block) return "";
    if (session) await recordSeen(files, root, client, session, [...seen, ...block.ids]);
    return contextAnswer(client, event, block.text) ?? "";
  }
  // session-start
  const runs = await readRuns(files, root);
  const since = runs[client]?.["session-start"];
  const catalog = await openMemory(root, scopes, files, builds);
  const brief = catalog
    ? await sessionBrief(catalog, {
      now,
      since,
      pinnedLabels: config.pinnedLabels,
      budgetTokens: config.sessionBudgetTokens,
      redact,
    })
    : undefined;
  if (dryRun) {
    if (!brief) {
      return catalog
        ? "would add nothing: the project has no notes\n"
        : "would add nothing: the hooks' index holds no notes yet (an empty project, or the " +
          "index is being built apart; memo hook --rebuild builds it now)\n";
    }
    const why = brief.entries.map((e) => `  ${e.id}: ${e.rule}`).join("\n");
    return `would add (${brief.text.length} characters, ~${
      Math.ceil(brief.text.length / 4)
    } tokens):\n${why}\n${brief.text}\n`;
  }
  await recordRun(files, root, client, event, nowIso);
  await cleanSessions(files, root, now);
  if (!brief) return "";
  return contextAnswer(client, event, brief.text) ?? "";
}

/** `memo hook --rebuild [--dir D]`: builds the hooks' index (what a hook starts apart). */
async function rebuild(argv: readonly string[], io: CliIO, files: CliFiles): Promise<number> {
  let root: string | undefined;
  try {
    const p = parseArgs(argv, { string: ["dir"], boolean: ["rebuild"] });
    positionals(p, []);
    const dir = stringFlag(p, "dir");
    root = await findHookProject(dir ? [dir] : [], io.cwd, files, memoHomeOf(io.env));
    if (!root) return 0;
    const project = root;
    const scopes = hookScopes(await readConfig(files, project), io.env);
    await rebuildMemory(project, scopes, files, async (place, e) => {
      const why = e instanceof Error ? e.message : String(e);
      await logLine(
        files,
        project,
        new Date().toISOString(),
        `hook --rebuild (${place.scope}): ${why}`,
      );
    });
  } catch (e) {
    if (root) {
      const why = e instanceof Error ? e.message : String(e);
      await logLine(files, root, new Date().toISOString(), `hook --rebuild: ${why}`);
    }
  }
  return 0;
}

/**
 * `memo hook`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../../testing/cli_io.ts";
 * import { hookCommand } from "./hook.ts";
 *
 * const root = await Deno.makeTempDir(); // no .memo/: nothing is written, nothing printed
 * const io = recordingIO(root, JSON.stringify({ cwd: root, session_id: "s", prompt: "hi" }));
 * assert.equal(await hookCommand.run(["--client", "claude-code", "prompt"], io), 0);
 * assert.deepEqual(io.out, []);
 * assert.equal(await hookCommand.run(["--client", "zed", "prompt"], io), 0); // a usage error
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export const hookCommand: CliCommand = {
  ...COMMAND_INFO.hook,
  async run(argv, io) {
    const now = Date.now();
    const files = await hookFiles(io.files);
    if (argv.includes("--rebuild")) return await rebuild(argv, io, files);
    let root: string | undefined;
    let what = "hook";
    let timeoutMs: number = HOOKS_DEFAULTS.timeoutMs;
    // A catalog being rebuilt is finished past the timeout (nothing is printed then): were it
    // dropped, the next hook would start it over, and none would ever finish.
    let building = false;
    let fire: () => void = () => {};
    const deadline = new Promise<"timeout">((done) => fire = () => done("timeout"));
    let timer = setTimeout(fire, timeoutMs);
    const work = (async () => {
      let run: HookRun;
      try {
        run = parseHookArgs(argv);
      } catch (e) {
        root = await findHookProject([], io.cwd, files, memoHomeOf(io.env));
        throw e;
      }
      what = `${run.client} ${run.event}`;
      const text = await io.readStdin();
      let folders: string[] = [];
      try {
        folders = parseHookInput(text).folders;
      } catch {
        // garbage on stdin: found from the working directory, then logged below
      }
      if (run.dir !== undefined) folders.unshift(run.dir);
      root = await findHookProject(folders, io.cwd, files, memoHomeOf(io.env));
      if (!root) return "";
      const raw = await readConfig(files, root);
      const config = hooksConfig(raw);
      const configured = config.timeoutMs;
      if (configured !== timeoutMs) {
        timeoutMs = configured;
        clearTimeout(timer);
        timer = setTimeout(fire, Math.max(0, configured - (Date.now() - now)));
      }
      const self = io.self;
      const spawn = io.spawnDetached;
      const project = root;
      const builds = {
        onBuild: () => building = true,
        background: self && spawn
          ? () => spawn(self[0], [...self.slice(1), "hook", "--rebuild", "--dir", project], project)
          : undefined,
      };
      return await answer(run, root, text, now, config, hookScopes(raw, io.env), files, builds);
    })();
    try {
      const result = await Promise.race([work, deadline]);
      if (result === "timeout") {
        if (building) await work.catch(() => {});
        root ??= await findHookProject([], io.cwd, files, memoHomeOf(io.env));
        if (root) {
          await logLine(
            files,
            root,
            new Date().toISOString(),
            `${what}: timed out after ${timeoutMs} ms${
              building ? " (the hooks' index was being rebuilt: it is ready for the next run)" : ""
            }; nothing added`,
          );
        }
        return 0;
      }
      if (result) await io.stdout(result);
      return 0;
    } catch (e) {
      if (root) {
        const why =
          e instanceof StoreLockedError || e instanceof UsageError || e instanceof SyntaxError
            ? e.message
            : e instanceof Error
            ? `${e.name}: ${e.message}`
            : String(e);
        await logLine(files, root, new Date().toISOString(), `${what}: ${why}; nothing added`);
      }
      return 0;
    } finally {
      clearTimeout(timer);
      work.catch(() => {});
    }
  },
};
