/**
 * The registry of `memo` subcommands, in the order `memo help` lists them.
 *
 * An entry holds only its help (`command_info.ts`); the command's module is imported when the
 * command runs. `memo mcp` therefore starts without loading the memory commands, the connectors or
 * the HTTP endpoint, and the other commands do not load the MCP server.
 *
 * @module
 */

import { COMMAND_INFO, type CommandName } from "./command_info.ts";
import type { CliCommand } from "./context.ts";

/**
 * Imports the module of a subcommand and returns its full definition.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadCommand } from "./commands.ts";
 *
 * const mcp = await loadCommand("mcp");
 * assert.equal(mcp.name, "mcp");
 * assert.equal((await loadCommand("recall")).usage.split(" ")[0], "recall");
 * ```
 */
export async function loadCommand(name: CommandName): Promise<CliCommand> {
  switch (name) {
    case "init":
      return (await import("./init/init.ts")).initCommand;
    case "import":
      return (await import("./import/command.ts")).importCommand;
    case "export":
      return (await import("./export.ts")).exportCommand;
    case "sync":
      return (await import("./sync.ts")).syncCommand;
    case "replicate":
      return (await import("./replicate.ts")).replicateCommand;
    case "merge-file":
      return (await import("./merge_file.ts")).mergeFileCommand;
    case "doctor":
      return (await import("./git/doctor.ts")).doctorCommand;
    case "resolve":
      return (await import("./resolve.ts")).resolveCommand;
    case "mcp":
      return (await import("./serve/mcp.ts")).mcpCommand;
    case "serve":
      return (await import("./serve/serve.ts")).serveCommand;
    case "cloud":
      return (await import("./serve/cloud.ts")).cloudCommand;
    case "scan":
      return (await import("./secrets.ts")).scanCommand;
    case "hook":
      return (await import("./hook/hook.ts")).hookCommand;
    case "correct":
    case "supersede": {
      const { historyCommands } = await import("./notes/history_commands.ts");
      return historyCommands.find((c) => c.name === name)!;
    }
    case "tidy":
      return (await import("./notes/tidy.ts")).tidyCommand;
    default: {
      const { memoryCommands } = await import("./notes/memory_commands.ts");
      return memoryCommands.find((c) => c.name === name)!;
    }
  }
}

/**
 * Every subcommand except `help`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordingIO } from "../testing/cli_io.ts";
 * import { commands } from "./commands.ts";
 *
 * const rootDir = await Deno.makeTempDir();
 * const stats = commands.find((c) => c.name === "stats")!;
 * const io = recordingIO(rootDir);
 * assert.equal(await stats.run(["--json"], io), 0); // loads the command's module now
 * assert.equal(JSON.parse(io.out.join("")).notes, 0);
 * await Deno.remove(rootDir, { recursive: true });
 * ```
 */
export const commands: readonly CliCommand[] = (Object.keys(COMMAND_INFO) as CommandName[]).map(
  (name) => ({
    ...COMMAND_INFO[name],
    run: async (argv, io) => await (await loadCommand(name)).run(argv, io),
  }),
);
