/**
 * The clients' hooks in a project's stats: what `memo init --hooks` and `--no-hooks` last did
 * (`.memo/cache/hooks/clients.json`) and when each hook last ran (`.memo/cache/hooks/runs.json`),
 * both written by the `memo` command.
 *
 * @module
 */

import type { HookClientStatus } from "@memo/memory";

async function readObject(path: string): Promise<Record<string, unknown>> {
  try {
    // node:fs loads when stats are asked for, not with every process that imports the runtime.
    const { readFile } = await import("node:fs/promises");
    const doc = JSON.parse(await readFile(path, "utf8"));
    return typeof doc === "object" && doc !== null && !Array.isArray(doc) ? doc : {};
  } catch {
    return {};
  }
}

/**
 * Each client's hooks in the project at `rootDir`; undefined when none was ever turned on or ran.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hooksStatus } from "./hooks_status.ts";
 * const dir = await Deno.makeTempDir();
 * assert.equal(await hooksStatus(dir), undefined);
 * await Deno.mkdir(`${dir}/.memo/cache/hooks`, { recursive: true });
 * await Deno.writeTextFile(`${dir}/.memo/cache/hooks/runs.json`, '{"cursor":{"session-start":"2026-03-02T10:00:00.000Z"}}');
 * assert.deepEqual(await hooksStatus(dir), {
 *   cursor: { on: false, lastRun: { "session-start": "2026-03-02T10:00:00.000Z" } },
 * });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function hooksStatus(
  rootDir: string,
): Promise<Record<string, HookClientStatus> | undefined> {
  const { join } = await import("node:path");
  const dir = join(rootDir, ".memo", "cache", "hooks");
  const [clients, runs] = await Promise.all([
    readObject(join(dir, "clients.json")),
    readObject(join(dir, "runs.json")),
  ]);
  const names = [...new Set([...Object.keys(clients), ...Object.keys(runs)])].sort();
  if (!names.length) return undefined;
  const out: Record<string, HookClientStatus> = {};
  for (const name of names) {
    const c = clients[name] as { on?: unknown; file?: unknown } | undefined;
    const status: HookClientStatus = { on: c?.on === true };
    if (typeof c?.file === "string") status.file = c.file;
    const r = runs[name];
    if (typeof r === "object" && r !== null) {
      const lastRun = Object.fromEntries(
        Object.entries(r).filter(([, v]) => typeof v === "string"),
      ) as Record<string, string>;
      if (Object.keys(lastRun).length) status.lastRun = lastRun;
    }
    Object.defineProperty(out, name, {
      value: status,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
