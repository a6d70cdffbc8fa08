/**
 * The `memo init` subcommand (being written: see issue 15).
 *
 * @module
 */

import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";

/**
 * The `memo init` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initCommand } from "./init.ts";
 *
 * assert.equal(initCommand.name, "init");
 * ```
 */
export const initCommand: CliCommand = {
  ...COMMAND_INFO.init,
  run() {
    return Promise.reject(new Error("Cannot run memo init: not written yet"));
  },
};
