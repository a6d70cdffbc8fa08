/**
 * `memo init`: the project's `.memo/` folder and the MCP client configurations.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { initCommand } from "./mod.ts";
 *
 * assert.equal(initCommand.name, "init");
 * ```
 *
 * @module
 */

export * from "./init.ts";
