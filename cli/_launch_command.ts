/**
 * The command line `memo init` writes into MCP client configurations: the
 * form memo was launched with, told by the URL of a module of the running
 * CLI, or the user's own `--command` line split into command and arguments.
 *
 * @module
 */

import { dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./args.ts";

/** The npm package the CLI ships in. */
const NPM_PACKAGE = "@memo/mcp-server";

/**
 * The command line (command, then arguments) that starts `memo mcp` the way
 * the running CLI was launched, from the URL of a module in the CLI's `cli/`
 * folder (`import.meta.url` of `cli/init.ts`, or `cli/init.js` once built):
 *
 * - a path inside an npm install of `@memo/mcp-server` that npx finds from
 *   `projectRoot` (in the project or an ancestor, npx's own cache, Deno's npm
 *   cache) → `npx -y @memo/mcp-server mcp`; any other install (a global one)
 *   → `node <install>/cli.js mcp`, since npx would look in the registry;
 * - `https://jsr.io/@memo/mcp-server/…` → `deno run -A jsr:@memo/mcp-server mcp`;
 * - a `file:` URL elsewhere (a clone) → `deno run -A <clone>/cli.ts mcp`, with
 *   the plain command `deno` (what the README shows; a client finds it on
 *   `PATH`). A built `.js` file outside `node_modules` (the `npm/` build of a
 *   clone) → `node <folder>/cli.js mcp`;
 * - another URL → `deno run -A <that URL's cli.ts> mcp`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { launchCommand } from "./_launch_command.ts";
 *
 * assert.deepEqual(
 *   launchCommand("file:///app/node_modules/@memo/mcp-server/cli/init.js", "/app"),
 *   ["npx", "-y", "@memo/mcp-server", "mcp"],
 * );
 * assert.deepEqual( // a global install: npx would look in the registry
 *   launchCommand("file:///usr/lib/node_modules/@memo/mcp-server/cli/init.js", "/app"),
 *   ["node", "/usr/lib/node_modules/@memo/mcp-server/cli.js", "mcp"],
 * );
 * assert.deepEqual(
 *   launchCommand("https://jsr.io/@memo/mcp-server/0.2.0/cli/init.ts"),
 *   ["deno", "run", "-A", "jsr:@memo/mcp-server", "mcp"],
 * );
 * assert.deepEqual(
 *   launchCommand("file:///home/ada/memo/cli/init.ts"),
 *   ["deno", "run", "-A", "/home/ada/memo/cli.ts", "mcp"],
 * );
 * ```
 */
export function launchCommand(moduleUrl: string, projectRoot?: string): string[] {
  const url = new URL(moduleUrl);
  const npm = ["npx", "-y", NPM_PACKAGE, "mcp"];
  if (url.protocol === "file:") {
    const path = url.pathname;
    const installed = path.indexOf(`/node_modules/${NPM_PACKAGE}/`);
    if (installed >= 0) {
      // npx finds a package installed in the project (or an ancestor) and one it
      // fetched itself (its `_npx` cache); a global install, or another project's,
      // it would look up in the registry instead, so that one runs by its path.
      const owner = fileURLToPath(new URL(`file://${path.slice(0, installed) || "/"}`));
      const inProject = projectRoot === undefined ||
        !relative(owner, projectRoot).startsWith("..") && !isAbsolute(relative(owner, projectRoot));
      if (path.includes("/_npx/") || path.includes("/.deno/") || inProject) return npm;
      return ["node", join(dirname(dirname(fileURLToPath(url))), "cli.js"), "mcp"];
    }
    if (path.includes(`/registry.npmjs.org/${NPM_PACKAGE}/`)) return npm;
    const root = dirname(dirname(fileURLToPath(url)));
    if (path.endsWith(".js")) return ["node", join(root, "cli.js"), "mcp"];
    return ["deno", "run", "-A", join(root, "cli.ts"), "mcp"];
  }
  if (
    url.protocol === "https:" && url.host === "jsr.io" &&
    url.pathname.startsWith(`/${NPM_PACKAGE}/`)
  ) {
    return ["deno", "run", "-A", `jsr:${NPM_PACKAGE}`, "mcp"];
  }
  return ["deno", "run", "-A", new URL("../cli.ts", url).href, "mcp"];
}

/**
 * Splits a `--command` line into command and arguments: words are separated
 * by whitespace; `'…'` keeps its text as is; `"…"` keeps its text, where `\"`
 * is a quote and `\\` a backslash. A backslash elsewhere is an ordinary
 * character (Windows paths stay as typed). An empty line or an unclosed
 * quote is a usage error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitCommandLine } from "./_launch_command.ts";
 *
 * assert.deepEqual(
 *   splitCommandLine(`deno run -A "/opt/my memo/cli.ts" mcp`),
 *   ["deno", "run", "-A", "/opt/my memo/cli.ts", "mcp"],
 * );
 * assert.deepEqual(splitCommandLine(`node 'C:\\memo\\cli.js' mcp`), ["node", "C:\\memo\\cli.js", "mcp"]);
 * assert.throws(() => splitCommandLine("  "), { name: "UsageError" });
 * assert.throws(() => splitCommandLine(`deno "run`), /unclosed quote/);
 * ```
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += c;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new UsageError(`flag --command has an unclosed quote (${quote})`);
  if (inWord) words.push(word);
  if (!words.length) throw new UsageError("flag --command needs a command line");
  return words;
}
