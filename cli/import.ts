/**
 * The `memo import` subcommand (being written: see issue 15).
 *
 * @module
 */

import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";

/**
 * The `memo import` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importCommand } from "./import.ts";
 *
 * assert.equal(importCommand.name, "import");
 * ```
 */
export const importCommand: CliCommand = {
  ...COMMAND_INFO.import,
  run() {
    return Promise.reject(new Error("Cannot run memo import: not written yet"));
  },
};
