/**
 * MCP client configurations for `memo init --client`: where each client keeps its file, the `memo`
 * server entry it gets, and the merge into an existing file. Pure functions: the platform, the
 * environment and the home folder are passed in, and the caller reads and writes the files.
 *
 * @module
 */

import { posix, win32 } from "node:path";
import { UsageError } from "../args.ts";

/**
 * An MCP client `memo init` can configure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MCP_CLIENTS, type McpClient } from "./_client_config.ts";
 *
 * const client: McpClient = "cursor";
 * assert.ok(MCP_CLIENTS.includes(client));
 * ```
 */
export type McpClient = "claude-code" | "cursor" | "vscode" | "claude-desktop";

/**
 * The clients, in the order `memo init` handles them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MCP_CLIENTS } from "./_client_config.ts";
 *
 * assert.deepEqual(MCP_CLIENTS, ["claude-code", "cursor", "vscode", "claude-desktop"]);
 * ```
 */
export const MCP_CLIENTS: readonly McpClient[] = [
  "claude-code",
  "cursor",
  "vscode",
  "claude-desktop",
];

/**
 * Checks `--client` values: each must be one of {@linkcode MCP_CLIENTS} (else a usage error naming
 * the four); repeats are dropped, the order kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseClients } from "./_client_config.ts";
 *
 * assert.deepEqual(parseClients(["vscode", "cursor", "vscode"]), ["vscode", "cursor"]);
 * assert.throws(() => parseClients(["zed"]), {
 *   name: "UsageError",
 *   message: "unknown client zed (use claude-code, cursor, vscode or claude-desktop)",
 * });
 * ```
 */
export function parseClients(names: readonly string[]): McpClient[] {
  const out: McpClient[] = [];
  for (const name of names) {
    if (!(MCP_CLIENTS as readonly string[]).includes(name)) {
      throw new UsageError(
        `unknown client ${name.slice(0, 60)} (use claude-code, cursor, vscode or claude-desktop)`,
      );
    }
    if (!out.includes(name as McpClient)) out.push(name as McpClient);
  }
  return out;
}

/**
 * Where the client files are: the project root, the platform (`process.platform` values: `linux`,
 * `darwin`, `win32`…), the environment and the home folder to fall back on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientConfigPath, type ClientPlace } from "./_client_config.ts";
 *
 * const place: ClientPlace = { root: "/work/app", platform: "linux", env: {}, home: "/home/ada" };
 * assert.equal(clientConfigPath("cursor", place), "/work/app/.cursor/mcp.json");
 * ```
 */
export interface ClientPlace {
  /** The project root (absolute). */
  root: string;
  /** The platform, as `process.platform` says it. */
  platform: string;
  /** Environment variables (`HOME`, `XDG_CONFIG_HOME`, `APPDATA`, `USERPROFILE`). */
  env: Record<string, string | undefined>;
  /** The home folder, when the environment does not say (`os.homedir()`). */
  home: string;
}

/**
 * The configuration file of a client: `.mcp.json`, `.cursor/mcp.json` and `.vscode/mcp.json` in the
 * project; Claude Desktop's `claude_desktop_config.json` in `$XDG_CONFIG_HOME/Claude` (default
 * `$HOME/.config`) on Linux and other Unix systems, `~/Library/Application Support/Claude` on macOS
 * and `%APPDATA%\Claude` on Windows.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientConfigPath } from "./_client_config.ts";
 *
 * const root = "/work/app";
 * assert.equal(
 *   clientConfigPath("claude-code", { root, platform: "linux", env: {}, home: "/home/ada" }),
 *   "/work/app/.mcp.json",
 * );
 * assert.equal(
 *   clientConfigPath("claude-desktop", { root, platform: "linux", env: {}, home: "/home/ada" }),
 *   "/home/ada/.config/Claude/claude_desktop_config.json",
 * );
 * assert.equal(
 *   clientConfigPath("claude-desktop", {
 *     root: "C:\\app",
 *     platform: "win32",
 *     env: { APPDATA: "C:\\Users\\ada\\AppData\\Roaming" },
 *     home: "C:\\Users\\ada",
 *   }),
 *   "C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
 * );
 * ```
 */
export function clientConfigPath(client: McpClient, place: ClientPlace): string {
  const windows = place.platform === "win32";
  const path = windows ? win32 : posix;
  const env = (name: string) => {
    const v = place.env[name];
    return v && path.isAbsolute(v) ? v : undefined;
  };
  switch (client) {
    case "claude-code":
      return path.join(place.root, ".mcp.json");
    case "cursor":
      return path.join(place.root, ".cursor", "mcp.json");
    case "vscode":
      return path.join(place.root, ".vscode", "mcp.json");
    case "claude-desktop": {
      const file = "claude_desktop_config.json";
      if (windows) {
        const appData = env("APPDATA") ??
          path.join(env("USERPROFILE") ?? place.home, "AppData", "Roaming");
        return path.join(appData, "Claude", file);
      }
      const home = env("HOME") ?? place.home;
      if (place.platform === "darwin") {
        return path.join(home, "Library", "Application Support", "Claude", file);
      }
      return path.join(env("XDG_CONFIG_HOME") ?? path.join(home, ".config"), "Claude", file);
    }
  }
}

/**
 * The `memo` server entry of a client. `command` is the command line that starts `memo mcp`
 * (command, then arguments). Cursor and VS Code get `--dir ${workspaceFolder}` (they may start
 * servers elsewhere), Claude Desktop `--dir <root>` (it starts them anywhere), Claude Code nothing
 * (it starts them in the project folder); a line that already has `--dir` keeps its own. VS Code's
 * entry also says `"type": "stdio"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { memoServerEntry } from "./_client_config.ts";
 *
 * const command = ["npx", "-y", "@memo/mcp-server", "mcp"];
 * assert.deepEqual(memoServerEntry("claude-code", command, "/app"), {
 *   command: "npx",
 *   args: ["-y", "@memo/mcp-server", "mcp"],
 * });
 * assert.deepEqual(memoServerEntry("vscode", command, "/app"), {
 *   type: "stdio",
 *   command: "npx",
 *   args: ["-y", "@memo/mcp-server", "mcp", "--dir", "${workspaceFolder}"],
 * });
 * assert.deepEqual(memoServerEntry("claude-desktop", command, "/app").args.slice(-2), ["--dir", "/app"]);
 * ```
 */
export function memoServerEntry(
  client: McpClient,
  command: readonly string[],
  root: string,
): { type?: "stdio"; command: string; args: string[] } {
  const [cmd, ...args] = command;
  const hasDir = args.some((a) => a === "--dir" || a.startsWith("--dir="));
  if (!hasDir && client !== "claude-code") {
    args.push("--dir", client === "claude-desktop" ? root : "${workspaceFolder}");
  }
  return client === "vscode" ? { type: "stdio", command: cmd, args } : { command: cmd, args };
}

/**
 * A client file `memo init` cannot merge: not valid JSON, not a JSON object, or its servers key not
 * an object. The message says why, without quoting the file (it may hold tokens).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientConfigError, mergeClientConfig } from "./_client_config.ts";
 *
 * const entry = { command: "memo", args: ["mcp"] };
 * assert.throws(() => mergeClientConfig("cursor", "[1]", entry), ClientConfigError);
 * ```
 */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ClientConfigError";
  }
}

/**
 * What {@linkcode mergeClientConfig} decided: the file's new text, and whether it is new, changed
 * or the same (then `text` is the old text, byte for byte, and nothing needs writing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { type MergedClientConfig, mergeClientConfig } from "./_client_config.ts";
 *
 * const merged: MergedClientConfig = mergeClientConfig("claude-code", undefined, {
 *   command: "memo",
 *   args: ["mcp"],
 * });
 * assert.equal(merged.status, "created");
 * ```
 */
export interface MergedClientConfig {
  /** `created` (no file), `updated` (the file changes) or `unchanged`. */
  status: "created" | "updated" | "unchanged";
  /** The text to write (2-space JSON and a newline), or the old text when unchanged. */
  text: string;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a JSON.parse error is, as "line L, column C", without quoting the text. */
function parseErrorPlace(message: string, text: string): string {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return ` (line ${lc[1]}, column ${lc[2]})`;
  const pos = /position (\d+)/.exec(message);
  if (!pos) return "";
  const before = text.slice(0, Number(pos[1]));
  const line = before.split("\n").length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf("\n")})`;
}

/**
 * Merges the `memo` entry into a client file's text (`undefined`: no file). Every other key and
 * server is kept. An existing `memo` entry gets its `command` and `args` replaced (and `type` set
 * to `stdio` when VS Code's, or when it has a `type`); its `env` and other keys are kept. When the
 * entry is already what it would become, the file is `unchanged` and keeps its bytes; otherwise the
 * whole file is written as 2-space JSON and a newline. An empty file counts as `{}`. Throws
 * {@linkcode ClientConfigError} for a file that is not valid JSON (comments included), not an
 * object, or whose `mcpServers` (`servers` for VS Code) is not an object.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeClientConfig } from "./_client_config.ts";
 *
 * const old = JSON.stringify({
 *   mcpServers: {
 *     other: { command: "other-server" },
 *     memo: { command: "old", args: [], env: { MEMO_CLOUD_API_KEY: "k" } },
 *   },
 * });
 * const merged = mergeClientConfig("cursor", old, { command: "memo", args: ["mcp"] });
 * assert.equal(merged.status, "updated");
 * assert.deepEqual(JSON.parse(merged.text).mcpServers, {
 *   other: { command: "other-server" },
 *   memo: { command: "memo", args: ["mcp"], env: { MEMO_CLOUD_API_KEY: "k" } },
 * });
 * assert.equal(
 *   mergeClientConfig("cursor", merged.text, { command: "memo", args: ["mcp"] }).status,
 *   "unchanged",
 * );
 * ```
 */
export function mergeClientConfig(
  client: McpClient,
  existing: string | undefined,
  entry: { type?: string; command: string; args: readonly string[] },
): MergedClientConfig {
  const key = client === "vscode" ? "servers" : "mcpServers";
  let doc: unknown = {};
  if (existing !== undefined) {
    const text = existing.replace(/^\uFEFF/, "");
    if (text.trim()) {
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw new ClientConfigError(
          `not valid JSON${parseErrorPlace(e instanceof Error ? e.message : "", text)}`,
        );
      }
    }
  }
  if (!isObject(doc)) throw new ClientConfigError("not a JSON object");
  const servers = doc[key] ?? {};
  if (!isObject(servers)) throw new ClientConfigError(`"${key}" is not an object`);
  const old = servers.memo;
  let next: JsonObject;
  if (isObject(old)) {
    next = {};
    for (const [k, v] of Object.entries(old)) {
      // An HTTP entry becoming a stdio one loses what only HTTP used (its address and
      // headers, which may hold a token): a client may refuse an entry with both.
      if (HTTP_ONLY_KEYS.includes(k)) continue;
      Object.defineProperty(next, k, field(v));
    }
    if (entry.type !== undefined || "type" in old) next.type = entry.type ?? "stdio";
    next.command = entry.command;
    next.args = [...entry.args];
  } else {
    next = { ...entry, args: [...entry.args] };
  }
  if (existing !== undefined && JSON.stringify(old) === JSON.stringify(next)) {
    return { status: "unchanged", text: existing };
  }
  const nextServers: JsonObject = {};
  for (const [k, v] of Object.entries(servers)) Object.defineProperty(nextServers, k, field(v));
  nextServers.memo = next;
  const nextDoc: JsonObject = {};
  for (const [k, v] of Object.entries(doc)) Object.defineProperty(nextDoc, k, field(v));
  nextDoc[key] = nextServers;
  return {
    status: existing === undefined ? "created" : "updated",
    text: JSON.stringify(nextDoc, null, 2) + "\n",
  };
}

/** Keys of an HTTP server entry that a stdio entry has no use for. */
const HTTP_ONLY_KEYS: readonly string[] = ["url", "headers", "serverUrl"];

/** A plain own property (so that a `__proto__` key stays a key). */
function field(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}
