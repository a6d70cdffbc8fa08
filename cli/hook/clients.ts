/**
 * The clients `memo hook` answers, in each one's own hook format: what it reads from the input
 * (the project's folder, the session, the prompt), how it adds context, and how it blocks a prompt.
 *
 * | client        | events                                            | adds context with                      | blocks a prompt with                                                                              |
 * | ------------- | ------------------------------------------------- | -------------------------------------- | ------------------------------------------------------------------------------------------------- |
 * | `claude-code` | `SessionStart`, `UserPromptSubmit`                | `hookSpecificOutput.additionalContext` | `{"decision":"block","reason":…,"hookSpecificOutput":{…,"suppressOriginalPrompt":true}}` |
 * | `cursor`      | `sessionStart` (`beforeSubmitPrompt`: no context) | `additional_context`                   | `{"continue":false,"user_message":…}`                                                             |
 * | `vscode`      | `SessionStart` (`UserPromptSubmit`: no context)   | `hookSpecificOutput.additionalContext` | `{"continue":false,"stopReason":…}`                                                               |
 *
 * Cursor and VS Code also run the hooks of Claude Code's settings files (`.claude/settings.json`,
 * `.claude/settings.local.json`), with their own input: {@linkcode parseHookInput} tells which
 * client sent an input (`host`), so that a Claude Code entry run by another client answers in
 * that client's format, or not at all where that client's own memo hooks are on.
 *
 * @module
 */

/**
 * A client with command hooks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOK_CLIENTS, type HookClient } from "./clients.ts";
 * const client: HookClient = "cursor";
 * assert.ok(HOOK_CLIENTS.includes(client));
 * ```
 */
export type HookClient = "claude-code" | "cursor" | "vscode";

/**
 * The clients with hooks, in `memo init`'s order (Claude Desktop has none).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOK_CLIENTS } from "./clients.ts";
 * assert.deepEqual(HOOK_CLIENTS, ["claude-code", "cursor", "vscode"]);
 * ```
 */
export const HOOK_CLIENTS: readonly HookClient[] = ["claude-code", "cursor", "vscode"];

/**
 * A hook event of `memo hook`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOK_EVENTS, type HookEvent } from "./clients.ts";
 * const event: HookEvent = "prompt";
 * assert.ok(HOOK_EVENTS.includes(event));
 * ```
 */
export type HookEvent = "session-start" | "prompt";

/**
 * The events, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HOOK_EVENTS } from "./clients.ts";
 * assert.deepEqual(HOOK_EVENTS, ["session-start", "prompt"]);
 * ```
 */
export const HOOK_EVENTS: readonly HookEvent[] = ["session-start", "prompt"];

/**
 * The events at which a client's hooks can add context to the model: the ones `memo init
 * --hooks` writes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextEvents } from "./clients.ts";
 * assert.deepEqual(contextEvents("claude-code"), ["session-start", "prompt"]);
 * assert.deepEqual(contextEvents("cursor"), ["session-start"]);
 * ```
 */
export function contextEvents(client: HookClient): HookEvent[] {
  return client === "claude-code" ? ["session-start", "prompt"] : ["session-start"];
}

/**
 * Each client's name for an event, as its hook file spells it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientEventName } from "./clients.ts";
 * assert.equal(clientEventName("cursor", "prompt"), "beforeSubmitPrompt");
 * assert.equal(clientEventName("claude-code", "session-start"), "SessionStart");
 * ```
 */
export function clientEventName(client: HookClient, event: HookEvent): string {
  if (client === "cursor") return event === "session-start" ? "sessionStart" : "beforeSubmitPrompt";
  return event === "session-start" ? "SessionStart" : "UserPromptSubmit";
}

/**
 * What `memo hook` reads of a client's input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { HookInput } from "./clients.ts";
 * const input: HookInput = { folders: ["/work/app"], session: "abc", prompt: "hello" };
 * assert.equal(input.folders[0], "/work/app");
 * ```
 */
export interface HookInput {
  /** Where to look for the project: the input's `cwd`, then its workspace roots. */
  folders: string[];
  /** The client's session (or conversation) id, when it sends one. */
  session?: string;
  /** The prompt's text (prompt events). */
  prompt?: string;
  /**
   * The client that sent the input, where its fields tell: `cursor_version` is Cursor's,
   * `hookEventName` (without `hook_event_name`) VS Code's, `hook_event_name` alone Claude Code's.
   */
  host?: HookClient;
}

/**
 * Reads a client's hook input (JSON on stdin). Throws on anything but a JSON object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseHookInput } from "./clients.ts";
 * const claude = parseHookInput(JSON.stringify({
 *   session_id: "s1", cwd: "/work/app", prompt: "hi",
 * }));
 * assert.deepEqual(claude, { folders: ["/work/app"], session: "s1", prompt: "hi" });
 * assert.equal(parseHookInput('{"hook_event_name":"SessionStart"}').host, "claude-code");
 * const cursor = parseHookInput(JSON.stringify({
 *   conversation_id: "c1", workspace_roots: ["/work/app"], hook_event_name: "sessionStart",
 *   cursor_version: "1.7.2",
 * }));
 * assert.deepEqual(cursor, { folders: ["/work/app"], session: "c1", host: "cursor" });
 * const vscode = parseHookInput(JSON.stringify({
 *   cwd: "/work/app", sessionId: "v1", hookEventName: "SessionStart", source: "new",
 * }));
 * assert.equal(vscode.host, "vscode");
 * assert.throws(() => parseHookInput("not json"));
 * ```
 */
export function parseHookInput(text: string): HookInput {
  const doc = JSON.parse(text) as unknown;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw new Error("the hook input is not a JSON object");
  }
  const o = doc as Record<string, unknown>;
  const str = (v: unknown) => typeof v === "string" && v ? v : undefined;
  const folders: string[] = [];
  const cwd = str(o.cwd);
  if (cwd) folders.push(cwd);
  for (const key of ["workspace_roots", "workspaceRoots", "workspaceFolders"]) {
    const list = o[key];
    if (Array.isArray(list)) { for (const r of list) if (str(r)) folders.push(r as string); }
  }
  const input: HookInput = { folders };
  const session = str(o.session_id) ?? str(o.sessionId) ?? str(o.conversation_id);
  if (session) input.session = session;
  const prompt = typeof o.prompt === "string" ? o.prompt : undefined;
  if (prompt !== undefined) input.prompt = prompt;
  if (str(o.cursor_version)) input.host = "cursor";
  else if (str(o.hookEventName) && o.hook_event_name === undefined) input.host = "vscode";
  else if (str(o.hook_event_name)) input.host = "claude-code";
  return input;
}

/**
 * The answer that adds `context` at `event`, in the client's format; undefined where the client
 * cannot add context at that event.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contextAnswer } from "./clients.ts";
 * assert.deepEqual(JSON.parse(contextAnswer("claude-code", "prompt", "x")!), {
 *   hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "x" },
 * });
 * assert.deepEqual(JSON.parse(contextAnswer("cursor", "session-start", "x")!), {
 *   additional_context: "x",
 * });
 * assert.equal(contextAnswer("cursor", "prompt", "x"), undefined);
 * ```
 */
export function contextAnswer(
  client: HookClient,
  event: HookEvent,
  context: string,
): string | undefined {
  if (!contextEvents(client).includes(event)) return undefined;
  if (client === "cursor") return JSON.stringify({ additional_context: context }) + "\n";
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: clientEventName(client, event),
      additionalContext: context,
    },
  }) + "\n";
}

/**
 * The answer that blocks a prompt, in the client's format. Claude Code's also asks it to leave
 * the prompt's text out of the block message it shows (`suppressOriginalPrompt`), so that the
 * secret the guard found is not shown again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blockAnswer } from "./clients.ts";
 * assert.deepEqual(JSON.parse(blockAnswer("claude-code", "why")), {
 *   decision: "block",
 *   reason: "why",
 *   hookSpecificOutput: { hookEventName: "UserPromptSubmit", suppressOriginalPrompt: true },
 * });
 * assert.deepEqual(JSON.parse(blockAnswer("cursor", "why")), { continue: false, user_message: "why" });
 * assert.deepEqual(JSON.parse(blockAnswer("vscode", "why")), { continue: false, stopReason: "why" });
 * ```
 */
export function blockAnswer(client: HookClient, reason: string): string {
  if (client === "claude-code") {
    return JSON.stringify({
      decision: "block",
      reason,
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", suppressOriginalPrompt: true },
    }) + "\n";
  }
  if (client === "cursor") return JSON.stringify({ continue: false, user_message: reason }) + "\n";
  return JSON.stringify({ continue: false, stopReason: reason }) + "\n";
}
