/**
 * Internal: what the hooks keep between runs, all in `.memo/cache/hooks/` (never a prompt or a
 * transcript): each session's notes already added (ids only; a file per session, named by a hash
 * of the client and session ids, at most {@linkcode MAX_SEEN} ids, removed after
 * {@linkcode SESSION_DAYS} days and beyond the {@linkcode MAX_SESSIONS} latest), each client's
 * last runs (`runs.json`), and the one log line per failure in `.memo/logs/hooks.log`, kept
 * under {@linkcode LOG_BYTES}.
 *
 * @module
 */

import { join } from "./_paths.ts";
import type { CliFiles } from "../context.ts";
import { hooksCacheDir } from "./_catalog.ts";

/** Ids kept per session. */
export const MAX_SEEN = 500;
/** Sessions kept. */
export const MAX_SESSIONS = 50;
/** Days a session's state is kept after its last run. */
export const SESSION_DAYS = 7;
/** The log's size bound: past it, its older half is dropped. */
export const LOG_BYTES = 64 * 1024;

function sessionPath(root: string, client: string, session: string): string {
  const name = hash64(`${client}\0${session}`);
  return join(hooksCacheDir(root), "sessions", `${name}.json`);
}

/** A 64-bit FNV-1a digest in hex (a file name; node:crypto costs a hook ~15 ms to load). */
function hash64(text: string): string {
  let a = 0x811c9dc5 | 0, b = 0xcbf29ce4 | 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 13), 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** The ids already added in a session. */
export async function seenIds(
  files: CliFiles,
  root: string,
  client: string,
  session: string,
): Promise<string[]> {
  try {
    const ids = JSON.parse(await files.readText(sessionPath(root, client, session))) as unknown;
    return Array.isArray(ids) ? ids.filter((i) => typeof i === "string") : [];
  } catch {
    return [];
  }
}

/** Records the ids added in a session (the latest {@linkcode MAX_SEEN}). */
export async function recordSeen(
  files: CliFiles,
  root: string,
  client: string,
  session: string,
  ids: readonly string[],
): Promise<void> {
  await files.mkdir(join(hooksCacheDir(root), "sessions"));
  await files.writeAtomically(
    sessionPath(root, client, session),
    JSON.stringify(ids.slice(-MAX_SEEN)),
  );
}

/** Removes the sessions past {@linkcode SESSION_DAYS} days and beyond the latest {@linkcode MAX_SESSIONS}. */
export async function cleanSessions(files: CliFiles, root: string, now: number): Promise<void> {
  const dir = join(hooksCacheDir(root), "sessions");
  let names: string[];
  try {
    names = (await files.readdir(dir)).filter((n) => n.endsWith(".json"));
  } catch {
    return;
  }
  const found = await Promise.all(names.map(async (n) => ({
    n,
    t: (await files.stat(join(dir, n)))?.mtimeMs ?? 0,
  })));
  found.sort((a, b) => b.t - a.t);
  const old = now - SESSION_DAYS * 86_400_000;
  for (const [i, f] of found.entries()) {
    if (i >= MAX_SESSIONS || f.t < old) await files.remove(join(dir, f.n));
  }
}

/**
 * The clients whose memo hooks are on, as `memo init --hooks` and `--no-hooks` last left them
 * (`clients.json`, written by `memo init`).
 */
export async function clientsOn(files: CliFiles, root: string): Promise<Set<string>> {
  try {
    const doc = JSON.parse(await files.readText(join(hooksCacheDir(root), "clients.json")));
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return new Set();
    return new Set(
      Object.entries(doc).filter(([, v]) => (v as { on?: unknown } | null)?.on === true).map((
        [k],
      ) => k),
    );
  } catch {
    return new Set();
  }
}

/** Each client's last run of each event (ISO times). */
export type HookRuns = Record<string, Record<string, string>>;

/** Reads `runs.json`. */
export async function readRuns(files: CliFiles, root: string): Promise<HookRuns> {
  try {
    const runs = JSON.parse(await files.readText(join(hooksCacheDir(root), "runs.json")));
    return typeof runs === "object" && runs !== null && !Array.isArray(runs) ? runs : {};
  } catch {
    return {};
  }
}

/** Records a run of `event` by `client` at `time`. */
export async function recordRun(
  files: CliFiles,
  root: string,
  client: string,
  event: string,
  time: string,
): Promise<void> {
  const runs = await readRuns(files, root);
  const entry = typeof runs[client] === "object" && runs[client] !== null ? runs[client] : {};
  entry[event] = time;
  runs[client] = entry;
  await files.mkdir(hooksCacheDir(root));
  await files.writeAtomically(join(hooksCacheDir(root), "runs.json"), JSON.stringify(runs));
}

/**
 * Appends one line to `.memo/logs/hooks.log` (at most 300 characters, one line), dropping the
 * log's older half past {@linkcode LOG_BYTES}. Never throws.
 */
export async function logLine(
  files: CliFiles,
  root: string,
  time: string,
  text: string,
): Promise<void> {
  try {
    const dir = join(root, ".memo", "logs");
    const path = join(dir, "hooks.log");
    const line = `${time} ${text.replace(/\s+/g, " ").trim()}`.slice(0, 300) + "\n";
    await files.mkdir(dir);
    if (((await files.stat(path))?.size ?? 0) > LOG_BYTES) {
      const old = await files.readText(path);
      await files.writeAtomically(path, old.slice(old.indexOf("\n", old.length >> 1) + 1));
    }
    await files.append(path, line);
  } catch {
    // a hook never fails its client
  }
}
