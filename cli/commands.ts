/**
 * The registry of `memo` subcommands, in the order `memo help` lists them.
 *
 * @module
 */

import type { CliCommand } from "./context.ts";
import { mcpCommand } from "./mcp.ts";
import { memoryCommands } from "./memory_commands.ts";
import { serveCommand } from "./serve.ts";
import { syncCommand } from "./sync.ts";

/** Every subcommand except `help`. */
export const commands: readonly CliCommand[] = [
  ...memoryCommands,
  syncCommand,
  mcpCommand,
  serveCommand,
];
