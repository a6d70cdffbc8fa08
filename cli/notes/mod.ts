/**
 * The commands on notes: the memory tools' mirrors (remember, recall, …),
 * history (`memo correct`, `memo supersede`), `memo tidy` and `memo embed`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyCommands, memoryCommands, tidyCommand } from "./mod.ts";
 *
 * assert.ok(memoryCommands.some((c) => c.name === "recall"));
 * assert.deepEqual(historyCommands.map((c) => c.name), ["correct", "supersede"]);
 * assert.equal(tidyCommand.name, "tidy");
 * ```
 *
 * @module
 */

export * from "./memory_commands.ts";
export * from "./history_commands.ts";
export * from "./tidy.ts";
export * from "./embed.ts";
