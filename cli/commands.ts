/**
 * The registry of `memo` subcommands, in the order `memo help` lists them.
 *
 * An entry holds only its help (`command_info.ts`); the command's module is
 * imported when the command runs. `memo mcp` therefore starts without loading
 * the memory commands, the connectors or the HTTP endpoint, and the other
 * commands do not load the MCP server.
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
 * import { loadCommand } from "./commands.ts";
 * const mcp = await loadCommand("mcp");
 * console.log(mcp.name); // "mcp"
 * ```
 */
export async function loadCommand(name: CommandName): Promise<CliCommand> {
  switch (name) {
    case "sync":
      return (await import("./sync.ts")).syncCommand;
    case "mcp":
      return (await import("./mcp.ts")).mcpCommand;
    case "serve":
      return (await import("./serve.ts")).serveCommand;
    default: {
      const { memoryCommands } = await import("./memory_commands.ts");
      return memoryCommands.find((c) => c.name === name)!;
    }
  }
}

/** Every subcommand except `help`. */
export const commands: readonly CliCommand[] = (Object.keys(COMMAND_INFO) as CommandName[]).map(
  (name) => ({
    ...COMMAND_INFO[name],
    run: async (argv, io) => await (await loadCommand(name)).run(argv, io),
  }),
);
