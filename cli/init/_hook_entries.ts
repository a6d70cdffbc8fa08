/**
 * The hook entries `memo init --client NAME --hooks` merges into a client's hook file, and that
 * `--no-hooks` removes: where each client keeps them (the per-person file where the client has
 * one, the shared one with `--team`), the command each runs, and the merge that keeps every other
 * hook. memo's entries are the ones whose command ends in `hook --client NAME EVENT`.
 *
 * @module
 */

import { posix, win32 } from "node:path";
import { UsageError } from "../args.ts";
import { clientEventName, contextEvents, type HookClient } from "../hook/mod.ts";
import { ClientConfigError, type ClientPlace, type McpClient } from "./_client_config.ts";

/**
 * The client's hook file: Claude Code's `.claude/settings.local.json` (`--team`:
 * `.claude/settings.json`); Cursor's `~/.cursor/hooks.json` (`--team`: the project's
 * `.cursor/hooks.json`); VS Code's user hook folder, `~/.copilot/hooks/memo.json` (`--team`: the
 * project's `.github/hooks/memo.json`, which git shares). Claude Desktop has no hooks: a usage
 * error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookFilePath } from "./_hook_entries.ts";
 * const place = { root: "/work/app", platform: "linux", env: {}, home: "/home/ada" };
 * assert.equal(hookFilePath("claude-code", place, false), "/work/app/.claude/settings.local.json");
 * assert.equal(hookFilePath("cursor", place, false), "/home/ada/.cursor/hooks.json");
 * assert.equal(hookFilePath("cursor", place, true), "/work/app/.cursor/hooks.json");
 * assert.equal(hookFilePath("vscode", place, false), "/home/ada/.copilot/hooks/memo.json");
 * assert.equal(hookFilePath("vscode", place, true), "/work/app/.github/hooks/memo.json");
 * assert.throws(() => hookFilePath("claude-desktop", place, false), { name: "UsageError" });
 * ```
 */
export function hookFilePath(client: McpClient, place: ClientPlace, team: boolean): string {
  const path = place.platform === "win32" ? win32 : posix;
  const home = () => {
    if (place.env.USERPROFILE && place.platform === "win32") return place.env.USERPROFILE;
    return place.env.HOME && path.isAbsolute(place.env.HOME) ? place.env.HOME : place.home;
  };
  switch (client) {
    case "claude-code":
      return path.join(place.root, ".claude", team ? "settings.json" : "settings.local.json");
    case "cursor":
      return team
        ? path.join(place.root, ".cursor", "hooks.json")
        : path.join(home(), ".cursor", "hooks.json");
    case "vscode":
      return team
        ? path.join(place.root, ".github", "hooks", "memo.json")
        : path.join(home(), ".copilot", "hooks", "memo.json");
    case "claude-desktop":
      throw new UsageError(
        "Claude Desktop has no hooks (--hooks works with claude-code, cursor and vscode)",
      );
  }
}

/** A word as a POSIX shell reads it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command line of a hook: the MCP command line (`… mcp [--dir D]`) with `mcp` and any
 * `--dir` replaced by `hook --client NAME EVENT` (hook files do not expand `${workspaceFolder}`;
 * `memo hook` finds the project from its input), quoted for a shell.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookCommandLine } from "./_hook_entries.ts";
 * assert.equal(
 *   hookCommandLine(["deno", "run", "-A", "/opt/memo dir/cli.ts", "mcp"], "cursor", "session-start"),
 *   "deno run -A '/opt/memo dir/cli.ts' hook --client cursor session-start",
 * );
 * assert.equal(
 *   hookCommandLine(["memo", "mcp", "--read-only"], "claude-code", "prompt"),
 *   "memo hook --client claude-code prompt",
 * );
 * ```
 */
export function hookCommandLine(
  command: readonly string[],
  client: HookClient,
  event: string,
): string {
  const words: string[] = [];
  for (let i = 0; i < command.length; i++) {
    if (command[i] === "--dir") i++;
    else if (!command[i].startsWith("--dir=")) words.push(command[i]);
  }
  // `mcp` and the flags after it (`--read-only`, `--secrets`, the limits) are `memo mcp`'s, not
  // `memo hook`'s: `memo mcp --read-only hook …` is a usage error, exit 2, which a client takes as
  // "block the prompt".
  const mcp = words.lastIndexOf("mcp");
  if (mcp > 0) words.length = mcp;
  return [...words, "hook", "--client", client, event].map(shellWord).join(" ");
}

/** Whether a command is one of memo's hooks. */
function isMemoHook(command: unknown): boolean {
  return typeof command === "string" &&
    /(^|\s)hook --client (claude-code|cursor|vscode) (session-start|prompt)$/.test(command);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parseDoc(existing: string | undefined): Json {
  if (existing === undefined || !existing.trim()) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(existing.replace(/^\uFEFF/, ""));
  } catch {
    throw new ClientConfigError("not valid JSON");
  }
  if (!isObject(doc)) throw new ClientConfigError("not a JSON object");
  if (doc.hooks !== undefined && !isObject(doc.hooks)) {
    throw new ClientConfigError(`"hooks" is not an object`);
  }
  return doc;
}

/**
 * The hook timeout written into the entries, in seconds (the unit of all three clients'
 * `timeout`): above memo's own 2 s, below the clients' defaults (Claude Code 600 s, 30 s for
 * `UserPromptSubmit`; VS Code 30 s).
 */
const CLIENT_TIMEOUT_S = 10;

/** One entry of a client's file, in its format. */
function entryOf(client: HookClient, command: string): Json {
  if (client === "cursor") return { command, timeout: CLIENT_TIMEOUT_S };
  if (client === "vscode") return { type: "command", command, timeout: CLIENT_TIMEOUT_S };
  return { hooks: [{ type: "command", command, timeout: CLIENT_TIMEOUT_S }] };
}

/** The commands of an event's entry (Claude Code's groups hold a list). */
function commandsOf(client: HookClient, entry: unknown): unknown[] {
  if (!isObject(entry)) return [];
  if (client === "claude-code") {
    return Array.isArray(entry.hooks)
      ? entry.hooks.map((h) => isObject(h) ? h.command : undefined)
      : [];
  }
  return [entry.command];
}

/** An event's entries without memo's (Claude Code: memo's hooks out of each group). */
function withoutMemo(client: HookClient, entries: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const entry of entries) {
    if (client === "claude-code" && isObject(entry) && Array.isArray(entry.hooks)) {
      const kept = entry.hooks.filter((h) => !(isObject(h) && isMemoHook(h.command)));
      if (kept.length === entry.hooks.length) out.push(entry);
      else if (kept.length) out.push({ ...entry, hooks: kept });
    } else if (!(isObject(entry) && isMemoHook(entry.command))) out.push(entry);
  }
  return out;
}

/**
 * What a merge or a removal decided: the file's new text (`undefined`: delete the file, it held
 * nothing but memo's hooks), and whether anything changed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HookFileChange } from "./_hook_entries.ts";
 * const change: HookFileChange = { status: "unchanged", text: "{}\n" };
 * assert.equal(change.status, "unchanged");
 * ```
 */
export interface HookFileChange {
  status: "created" | "updated" | "unchanged" | "removed";
  text: string | undefined;
}

/**
 * Merges memo's hook entries (one per event at which the client can add context) into a hook
 * file's text, keeping every other hook; memo's old entries (another command line) are
 * replaced. Running it twice changes nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeHookEntries } from "./_hook_entries.ts";
 * const old = JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: "other" }] }] } });
 * const merged = mergeHookEntries("claude-code", old, ["memo", "mcp"]);
 * const doc = JSON.parse(merged.text!);
 * assert.equal(doc.hooks.SessionStart.length, 2);
 * assert.equal(doc.hooks.UserPromptSubmit[0].hooks[0].command, "memo hook --client claude-code prompt");
 * assert.equal(mergeHookEntries("claude-code", merged.text, ["memo", "mcp"]).status, "unchanged");
 * ```
 */
export function mergeHookEntries(
  client: HookClient,
  existing: string | undefined,
  command: readonly string[],
): HookFileChange {
  const doc = parseDoc(existing);
  const hooks: Json = isObject(doc.hooks) ? { ...doc.hooks } : {};
  for (const event of contextEvents(client)) {
    const name = clientEventName(client, event);
    const line = hookCommandLine(command, client, event);
    const list = Array.isArray(hooks[name]) ? hooks[name] as unknown[] : [];
    const present = list.some((e) => commandsOf(client, e).includes(line));
    const others = withoutMemo(client, list);
    const memoCount = list.flatMap((e) => commandsOf(client, e)).filter(isMemoHook).length;
    if (present && memoCount === 1) continue;
    Object.defineProperty(hooks, name, {
      value: [...others, entryOf(client, line)],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const next: Json = client === "cursor" && existing === undefined ? { version: 1 } : {};
  for (const [k, v] of Object.entries(doc)) {
    Object.defineProperty(next, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (client === "cursor" && next.version === undefined) next.version = 1;
  next.hooks = hooks;
  const text = JSON.stringify(next, null, 2) + "\n";
  if (existing !== undefined && JSON.stringify(parseDoc(existing)) === JSON.stringify(next)) {
    return { status: "unchanged", text: existing };
  }
  return { status: existing === undefined ? "created" : "updated", text };
}

/**
 * Removes exactly memo's hook entries from a hook file's text (its MCP entry is elsewhere and
 * stays). An event left with no entry loses its key, and `hooks` too when it is left empty; a
 * file left empty (`{}`, or Cursor's `{"version": 1}`) is deleted (`text` undefined).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeHookEntries, removeHookEntries } from "./_hook_entries.ts";
 * const before = JSON.stringify({ version: 1, hooks: { stop: [{ command: "x" }] } });
 * const merged = mergeHookEntries("cursor", before, ["memo", "mcp"]).text;
 * const removed = removeHookEntries("cursor", merged);
 * assert.deepEqual(JSON.parse(removed.text!), JSON.parse(before));
 * assert.equal(removeHookEntries("cursor", mergeHookEntries("cursor", undefined, ["memo", "mcp"]).text).text, undefined);
 * ```
 */
export function removeHookEntries(
  client: HookClient,
  existing: string | undefined,
): HookFileChange {
  if (existing === undefined) return { status: "unchanged", text: undefined };
  const doc = parseDoc(existing);
  if (!isObject(doc.hooks)) return { status: "unchanged", text: existing };
  let changed = false;
  const hooks: Json = {};
  for (const [name, list] of Object.entries(doc.hooks)) {
    if (!Array.isArray(list)) {
      Object.defineProperty(hooks, name, {
        value: list,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const kept = withoutMemo(client, list);
    if (kept.length !== list.length || JSON.stringify(kept) !== JSON.stringify(list)) {
      changed = true;
    }
    if (kept.length || kept.length === list.length) {
      Object.defineProperty(hooks, name, {
        value: kept,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  if (!changed) return { status: "unchanged", text: existing };
  const next: Json = {};
  for (const [k, v] of Object.entries(doc)) {
    if (k === "hooks") {
      if (Object.keys(hooks).length) next.hooks = hooks;
    } else {Object.defineProperty(next, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });}
  }
  const keys = Object.keys(next);
  if (!keys.length || (client === "cursor" && keys.length === 1 && next.version === 1)) {
    return { status: "removed", text: undefined };
  }
  return { status: "updated", text: JSON.stringify(next, null, 2) + "\n" };
}
