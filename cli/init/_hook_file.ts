/**
 * Internal: `memo init --hooks` and `--no-hooks` on one client's hook file: read it, merge or
 * remove memo's entries (`_hook_entries.ts`), back up the old content and write (or delete) it.
 *
 * @module
 */

import { chmod, copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { HookClient } from "../hook/mod.ts";
import { writeFileAtomically } from "../write_file.ts";
import { ClientConfigError, type ClientPlace, type McpClient } from "./_client_config.ts";
import { hookFilePath, mergeHookEntries, removeHookEntries } from "./_hook_entries.ts";

/**
 * Records in `.memo/cache/hooks/clients.json` whether a client's hooks are on, and in which file
 * (what `memory_stats` and the page's Status view show).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordHookClient } from "./_hook_file.ts";
 * const root = await Deno.makeTempDir();
 * await recordHookClient(root, "cursor", true, "/home/ada/.cursor/hooks.json");
 * const doc = JSON.parse(await Deno.readTextFile(`${root}/.memo/cache/hooks/clients.json`));
 * assert.deepEqual(doc.cursor, { on: true, file: "/home/ada/.cursor/hooks.json" });
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function recordHookClient(
  root: string,
  client: McpClient,
  on: boolean,
  file: string,
): Promise<void> {
  const dir = join(root, ".memo", "cache", "hooks");
  const path = join(dir, "clients.json");
  let doc: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(await readFile(path, "utf8"));
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) doc = parsed;
  } catch {
    // none yet
  }
  doc[client] = { on, file };
  await mkdir(dir, { recursive: true });
  await writeFileAtomically(path, JSON.stringify(doc, null, 2) + "\n");
}

/** What was done to a hook file, as `memo init` reports it (an `InitFile`). */
export interface HookFileResult {
  path: string;
  client: McpClient;
  status: "created" | "updated" | "unchanged" | "removed" | "error";
  hooks: true;
  backup?: string;
  error?: string;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

/**
 * Adds (`add`) or removes (`remove`) memo's hook entries in a client's hook file; what was done,
 * as `memo init` reports it (never throws: a failure is an `error` entry).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { updateHookFile } from "./_hook_file.ts";
 * const root = await Deno.makeTempDir();
 * const place = { root, platform: "linux", env: {}, home: root };
 * const file = await updateHookFile("claude-code", place, false, "add", ["memo", "mcp"], (p) => p);
 * assert.equal(file.status, "created");
 * assert.equal((await updateHookFile("claude-code", place, false, "remove", ["memo", "mcp"], (p) => p)).status, "removed");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function updateHookFile(
  client: McpClient,
  place: ClientPlace,
  team: boolean,
  action: "add" | "remove",
  command: readonly string[],
  show: (path: string) => string,
): Promise<HookFileResult> {
  const path = hookFilePath(client, place, team);
  const shown = path.startsWith(place.root) ? show(path) : path;
  try {
    const old = await readIfExists(path);
    const change = action === "add"
      ? mergeHookEntries(client as HookClient, old, command)
      : removeHookEntries(client as HookClient, old);
    const file: HookFileResult = { path: shown, client, status: change.status, hooks: true };
    await recordHookClient(place.root, client, action === "add", shown);
    if (change.status === "unchanged") return file;
    if (old !== undefined) {
      await copyFile(path, `${path}.memo.bak`);
      await chmod(`${path}.memo.bak`, 0o600);
      file.backup = `${shown}.memo.bak`;
    }
    if (change.text === undefined) await rm(path, { force: true });
    else {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomically(path, change.text);
    }
    return file;
  } catch (e) {
    const why = e instanceof ClientConfigError || e instanceof Error ? e.message : String(e);
    return {
      path: shown,
      client,
      status: "error",
      hooks: true,
      error: `Cannot update ${shown}: ${why}; left as is`,
    };
  }
}
