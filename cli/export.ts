/**
 * The `memo export` subcommand (being written: see issue 15).
 *
 * @module
 */

import { COMMAND_INFO } from "./command_info.ts";
import type { CliCommand } from "./context.ts";

/**
 * The `memo export` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportCommand } from "./export.ts";
 *
 * assert.equal(exportCommand.name, "export");
 * ```
 */
export const exportCommand: CliCommand = {
  ...COMMAND_INFO.export,
  run() {
    return Promise.reject(new Error("Cannot run memo export: not written yet"));
  },
};
