/**
 * The command line `memo init` writes into MCP client configurations: the form memo was launched
 * with, told by the URL of a module of the running CLI, or the user's own `--command` line split
 * into command and arguments.
 *
 * @module
 */

import { realpath } from "node:fs/promises";
import { platform } from "node:os";
import { delimiter, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "../args.ts";

/** The npm package the CLI ships in. */
const NPM_PACKAGE = "@memo/mcp-server";

/**
 * The command line (command, then arguments) that starts `memo mcp` the way the running CLI was
 * launched, from the URL of a module in the CLI's `cli/` folder (`cli/main.ts`, or `cli/main.js`
 * once built):
 *
 * - a path inside an npm install of `@memo/mcp-server` that npx finds from `projectRoot` (in the
 *   project or an ancestor, npx's own cache, Deno's npm cache) → `npx -y @memo/mcp-server mcp`; any
 *   other install (a global one) → `node <install>/cli.js mcp`, since npx would look in the
 *   registry;
 * - `https://jsr.io/@memo/mcp-server/…` → `deno run -A jsr:@memo/mcp-server mcp`;
 * - a `file:` URL elsewhere (a clone) → `deno run -A <clone>/cli.ts mcp`. A built `.js` file
 *   outside `node_modules` (the `npm/` build of a clone) → `node <folder>/cli.js mcp`;
 * - another URL → `deno run -A <that URL's cli.ts> mcp`.
 *
 * `deno` and `node` are the plain commands unless `options` names others (`memo init` passes what
 * {@linkcode runningCommand} finds for the running program).
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
export function launchCommand(
  moduleUrl: string,
  projectRoot?: string,
  options: LaunchCommandOptions = {},
): string[] {
  const deno = options.deno ?? "deno";
  const node = options.node ?? "node";
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
      return [node, join(dirname(dirname(fileURLToPath(url))), "cli.js"), "mcp"];
    }
    if (path.includes(`/registry.npmjs.org/${NPM_PACKAGE}/`)) return npm;
    const root = dirname(dirname(fileURLToPath(url)));
    if (path.endsWith(".js")) return [node, join(root, "cli.js"), "mcp"];
    return [deno, "run", "-A", join(root, "cli.ts"), "mcp"];
  }
  if (
    url.protocol === "https:" && url.host === "jsr.io" &&
    url.pathname.startsWith(`/${NPM_PACKAGE}/`)
  ) {
    return [deno, "run", "-A", `jsr:${NPM_PACKAGE}`, "mcp"];
  }
  return [deno, "run", "-A", new URL("../cli.ts", url).href, "mcp"];
}

/** Options of {@linkcode launchCommand}: the commands that start Deno and Node. */
export interface LaunchCommandOptions {
  /**
   * The command of the forms that run Deno.
   * @default "deno"
   */
  deno?: string;
  /**
   * The command of the forms that run Node.
   * @default "node"
   */
  node?: string;
}

/**
 * How an MCP client should start the running program (Deno or Node), whose file is `execPath`: by
 * its plain `name` when the `name` found first on `pathList` (the `PATH` variable) is that same
 * file, else by `execPath` itself. The plain name keeps a configuration valid across upgrades; the
 * full path lets a client start memo when that program is not on its `PATH` (Deno run from `npx
 * deno`, or installed in a folder the shell alone knows).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runningCommand } from "./_launch_command.ts";
 *
 * const self = Deno.execPath();
 * assert.equal(await runningCommand("deno", self, undefined), self); // no PATH: the full path
 * assert.equal(await runningCommand("deno", self, "/nonexistent"), self);
 * ```
 */
export async function runningCommand(
  name: "deno" | "node",
  execPath: string,
  pathList: string | undefined,
): Promise<string> {
  const self = await realpath(execPath).catch(() => execPath);
  const names = platform() === "win32" ? [`${name}.exe`, name] : [name];
  for (const dir of (pathList ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const file of names) {
      const found = await realpath(join(dir, file)).catch(() => undefined);
      if (found === undefined) continue;
      return found === self ? name : execPath; // the first one found is the one a shell runs
    }
  }
  return execPath;
}

/**
 * Splits a `--command` line into command and arguments: words are separated by whitespace; `'…'`
 * keeps its text as is; `"…"` keeps its text, where `\"` is a quote and `\\` a backslash. A
 * backslash elsewhere is an ordinary character (Windows paths stay as typed). An empty line or an
 * unclosed quote is a usage error.
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
